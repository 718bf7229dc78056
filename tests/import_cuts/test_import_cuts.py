"""The import cuts (docs_mcp.import_cuts): lancedb and the MCP SDK import without what the server never
uses and still work (every deferred name resolves to the real one, the models validate as before); a
library in a version the cuts were not measured with, or imported by a command that does not serve,
imports the ordinary way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(120)


def _printed(probe: str, *args: str) -> Any:
    """What ``probe`` run in a fresh interpreter prints last, as JSON."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    output = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", probe, *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    ).stdout
    return json.loads(output.splitlines()[-1])


LANCEDB_PROBE = """
import json, sys
from docs_mcp.import_cuts import install
cuts = sorted(install())
import lancedb
import pyarrow as pa
installed = "lance_namespace_urllib3_client" in sys.modules and hasattr(
    sys.modules["lance_namespace_urllib3_client"], "__getattr__")
loaded = sum(1 for m in sys.modules if m.startswith("lance_namespace_urllib3_client.api."))
models = sum(1 for m in sys.modules if m.startswith("lance_namespace_urllib3_client.models."))
overrides_after_import = "overrides" in sys.modules
db = lancedb.connect(sys.argv[1])
table = db.create_table("t", pa.table({"id": ["a", "b"], "text": ["create a link", "delete a domain"]}))
table.create_fts_index("text")
hits = [row["id"] for row in table.search("link", query_type="fts").limit(5).to_list()]
from lance_namespace_urllib3_client.models import JsonArrowSchema
from lance_namespace_urllib3_client import ApiClient, __version__
import lance_namespace
from lance_namespace import CreateTableRequest, CreateEmptyTableRequest, LanceNamespace, connect
from lance_namespace_urllib3_client.models.create_table_request import CreateTableRequest as Real
namespace_names = all(getattr(lance_namespace, name) is not None for name in lance_namespace.__all__)
from lancedb.rerankers import LinearCombinationReranker
overrides = None
if sys.version_info < (3, 12):
    import overrides as package, lancedb.db
    overrides = [overrides_after_import, package.EnforceOverrides.__module__,
                 lancedb.db.LanceDBConnection.open_table.__override__]
print(json.dumps({
    "cuts": cuts, "installed": installed, "api_modules": loaded, "model_modules": models, "hits": hits,
    "lazy_names_resolve": [JsonArrowSchema.__name__, ApiClient.__name__, bool(__version__)],
    "namespace": [type(lance_namespace.__spec__.loader).__name__, namespace_names,
                  CreateTableRequest is Real is CreateEmptyTableRequest, LanceNamespace.__name__,
                  callable(connect), "CreateTableRequest" in dir(lance_namespace)],
    "reranker": LinearCombinationReranker.__module__,
    "overrides": overrides,
}))
"""


def test_lancedb_works_with_its_unused_parts_deferred_and_their_names_still_resolve(tmp_path: Path) -> None:
    report = _printed(LANCEDB_PROBE, str(tmp_path / "db"))
    assert {"rest-client", "namespace-exports"} <= set(report["cuts"])
    assert ("overrides" in report["cuts"]) is (sys.version_info < (3, 12))
    assert report["installed"] is True
    assert report["api_modules"] == 0, "the REST API modules were executed at import"
    # lancedb itself imports ~20 of the client's models; lance_namespace's ~110 re-exports are deferred.
    assert 0 < report["model_modules"] < 40
    assert report["hits"] == ["a"]
    assert report["lazy_names_resolve"] == ["JsonArrowSchema", "ApiClient", True]
    assert report["namespace"] == ["DeferringLoader", True, True, "LanceNamespace", True, True]
    assert report["reranker"] == "lancedb.rerankers.linear_combination"
    if sys.version_info < (3, 12):  # lancedb's 3.12+ markers while it imports; the real package after
        assert report["overrides"] == [False, "overrides.enforce", True]


def test_the_mcp_packages_still_give_every_name_they_export() -> None:
    probe = (
        "import json, sys\n"
        "from docs_mcp.import_cuts import install\n"
        "assert 'mcp-client' in install()\n"
        "import mcp, mcp.server\n"
        "lazy = 'mcp.client' not in sys.modules\n"
        "from mcp import Client, StdioServerParameters, MCPError, types\n"
        "from mcp.server import Server, MCPServer\n"
        "assert all(getattr(mcp, name) is not None for name in mcp.__all__)\n"
        "assert all(getattr(mcp.server, name) is not None for name in mcp.server.__all__)\n"
        "print(json.dumps([lazy, types.Tool is __import__('mcp_types').Tool, 'mcp.client' in sys.modules]))"
    )
    assert _printed(probe) == [True, True, True]  # the client imported on first use only


def test_the_protocol_models_build_on_first_use_and_validate_as_before() -> None:
    # pydantic's defer_build while mcp_types' modules execute, only then.
    probe = (
        "import json, pydantic\n"
        "from docs_mcp.import_cuts import install\n"
        "assert 'model-builds' in install()\n"
        "import mcp_types, mcp_types.methods, mcp.server.lowlevel\n"
        "before = mcp_types.Tool.__pydantic_complete__\n"
        "tool = mcp_types.Tool.model_validate({'name': 'x', 'inputSchema': {'type': 'object'}})\n"
        "try:\n"
        "    mcp_types.Tool.model_validate({'inputSchema': {}})\n"
        "    refused = False\n"
        "except pydantic.ValidationError:\n"
        "    refused = True\n"
        "class Later(pydantic.BaseModel):\n"
        "    x: int\n"
        "adapter = mcp_types.client_request_adapter\n"
        "deferred = type(adapter.validator).__name__\n"
        "request = adapter.validate_python({'method': 'tools/list'})\n"
        "print(json.dumps([before, mcp_types.Tool.__pydantic_complete__, tool.name, refused,\n"
        "                  'defer_build' in pydantic.BaseModel.model_config, Later.__pydantic_complete__,\n"
        "                  deferred, type(request).__name__, pydantic.TypeAdapter(int)._defer_build]))"
    )
    assert _printed(probe) == [False, True, "x", True, False, True, "MockValSer", "ListToolsRequest", False]


def test_a_library_in_a_version_the_cuts_were_not_measured_with_imports_the_ordinary_way() -> None:
    # As after an upstream release: every cut's measured range made to exclude what is installed.
    probe = (
        "import json, sys\n"
        "import docs_mcp.import_cuts as cuts\n"
        "for cut, touched in cuts.CUTS.items():\n"
        "    cuts.CUTS[cut] = {name: ((0, 0), (0, 0)) for name in touched}\n"
        "in_place = sorted(cuts.install())\n"
        "import lancedb, mcp, mcp_types\n"
        "loaders = [type(sys.modules[name].__spec__.loader).__name__\n"
        "           for name in ('lancedb', 'lance_namespace', 'lance_namespace_urllib3_client', 'mcp')]\n"
        "print(json.dumps([loaders, 'mcp.client' in sys.modules, mcp_types.Tool.__pydantic_complete__,\n"
        "                  'overrides' in sys.modules or sys.version_info >= (3, 12)]))"
    )
    assert _printed(probe) == [["SourceFileLoader"] * 4, True, True, True]


def test_a_distribution_that_is_not_installed_is_not_supported() -> None:
    from docs_mcp import import_cuts

    probe = dict(import_cuts.CUTS)
    try:
        import_cuts.CUTS["mcp-client"] = {"docs-mcp-no-such-distribution": ((0, 0), (99, 0))}
        assert not import_cuts.supported("mcp-client")
    finally:
        import_cuts.CUTS.clear()
        import_cuts.CUTS.update(probe)
    assert import_cuts.supported("mcp-client")  # the installed mcp is the one measured


def test_the_build_side_imports_lancedb_the_ordinary_way() -> None:
    # Nothing installs the cuts at package import: build, search and the other commands get the
    # libraries as their authors wrote them.
    probe = (
        "import json, sys\n"
        "import docs_mcp, docs_mcp.store, docs_mcp.search, docs_mcp.indexing.writer\n"
        "import lancedb\n"
        "print(json.dumps([type(sys.modules[name].__spec__.loader).__name__\n"
        "                  for name in ('lance_namespace', 'lance_namespace_urllib3_client')]))"
    )
    assert _printed(probe) == ["SourceFileLoader", "SourceFileLoader"]
