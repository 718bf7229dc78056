"""docs-mcp: turn a folder of markdown documentation into a search index and serve it over MCP."""

__version__ = "0.1.0"
# The distribution on PyPI (``pip install docs-mcp-index``); the import package and the command stay
# ``docs_mcp`` and ``docs-mcp`` (the name docs-mcp on PyPI is another project).
DISTRIBUTION = "docs-mcp-index"
