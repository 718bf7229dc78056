"""lancedb imports without executing its REST namespace client, and still works."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys, time
import docs_mcp.store
import lancedb
import pyarrow as pa
installed = "lance_namespace_urllib3_client" in sys.modules and hasattr(
    sys.modules["lance_namespace_urllib3_client"], "__getattr__")
loaded = sum(1 for m in sys.modules if m.startswith("lance_namespace_urllib3_client.api."))
db = lancedb.connect(sys.argv[1])
table = db.create_table("t", pa.table({"id": ["a", "b"], "text": ["create a link", "delete a domain"]}))
table.create_fts_index("text")
hits = [row["id"] for row in table.search("link", query_type="fts").limit(5).to_list()]
from lance_namespace_urllib3_client.models import JsonArrowSchema
from lance_namespace_urllib3_client import ApiClient, __version__
print(json.dumps({"installed": installed, "api_modules": loaded, "hits": hits,
                  "lazy_names_resolve": [JsonArrowSchema.__name__, ApiClient.__name__, bool(__version__)]}))
"""


def test_lancedb_works_with_the_rest_client_deferred_and_its_names_still_resolve(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", PROBE, str(tmp_path / "db")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["installed"] is True
    assert report["api_modules"] == 0, "the REST API modules were executed at import"
    assert report["hits"] == ["a"]
    assert report["lazy_names_resolve"] == ["JsonArrowSchema", "ApiClient", True]
