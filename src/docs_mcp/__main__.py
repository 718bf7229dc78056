import sys

from docs_mcp.cli.main import main

sys.exit(main())
