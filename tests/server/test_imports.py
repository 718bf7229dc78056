"""The serving path stays lean: no build-time, authoring or eval dependency is imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_support import server_env

FORBIDDEN = (
    "markdown_it",
    "mdit_py_plugins",
    "yaml",
    "openai",
    "tenacity",
    "docs_mcp.indexing.pipeline",
    "docs_mcp.eval",
)

pytestmark = pytest.mark.timeout(60)


def _printed(probe: str) -> Any:
    """What ``probe`` (run in a fresh interpreter, as the server runs) prints last, as JSON."""
    output = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=server_env(),
        check=True,
        timeout=60,
    ).stdout
    return json.loads(output.splitlines()[-1])


def _loaded_after(code: str) -> list[str]:
    modules: list[str] = _printed(f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))")
    return modules


def test_the_server_package_imports_no_build_or_authoring_code() -> None:
    modules = _loaded_after(
        "import docs_mcp.server.app, docs_mcp.server.serving, docs_mcp.server.http, docs_mcp.server.stdio"
    )
    assert [m for m in modules if m.split(".")[0] in FORBIDDEN or m.startswith(FORBIDDEN)] == []
    assert not [m for m in modules if m == "docs_mcp.cli" or m.startswith("docs_mcp.cli.")]


def test_the_serve_command_imports_no_build_or_authoring_code() -> None:
    modules = _loaded_after(
        "from docs_mcp.cli.main import build_parser\n"
        "build_parser(only='serve')\n"
        "import docs_mcp.server.serving"
    )
    assert [m for m in modules if m.split(".")[0] in FORBIDDEN or m.startswith(FORBIDDEN)] == []
    assert "docs_mcp.cli.commands.build" not in modules


def test_jsonschema_is_not_imported_until_a_call_needs_it_explained() -> None:
    # It costs ~60 ms of cold start; valid arguments are recognised without it.
    modules = _loaded_after(
        "import docs_mcp.server.app, docs_mcp.server.serving\n"
        "from docs_mcp.server.arguments import ArgumentValidator\n"
        "from docs_mcp.server.tool_schema import search_input_schema\n"
        "ArgumentValidator('search_docs', search_input_schema({'language': ['go']})).validate("
        "{'query': 'q', 'language': 'go', 'limit': 5})"
    )
    assert "jsonschema" not in modules


def test_serving_a_local_folder_imports_no_registry_client() -> None:
    # oras and requests load only for --index oci://...; a folder's cold start does not pay for them.
    modules = _loaded_after("import docs_mcp.server.app, docs_mcp.server.serving")
    assert [m for m in modules if m.split(".")[0] in ("oras", "requests", "urllib3")] == []
    assert "docs_mcp.artifact" not in modules


def test_pyjwt_is_imported_only_for_an_oauth_issuer() -> None:
    # Stdio, plain HTTP and static tokens never pay for it (serve --auth-issuer loads it).
    modules = _loaded_after(
        "import docs_mcp.server.app, docs_mcp.server.serving, docs_mcp.server.http, docs_mcp.server.stdio\n"
        "import docs_mcp.server.auth, docs_mcp.server.auth_tokens"
    )
    assert "jwt" not in modules and "docs_mcp.server.auth_jwt" not in modules
    assert "jwt" in _loaded_after("import docs_mcp.server.auth_jwt")


def test_what_stdio_answers_before_the_index_loads_imports_no_index_stack_nor_mcp_client(
    example_index: Path,
) -> None:
    # initialize and tools/list come from the manifest (docs_mcp.server.deferred): without LanceDB,
    # pyarrow or numpy, and the MCP SDK without its client (docs_mcp.server.mcp_import).
    modules = _loaded_after(
        "from docs_mcp.server.mcp_import import install_lazy_mcp\n"
        "assert install_lazy_mcp()\n"
        "import docs_mcp.server.app, docs_mcp.server.stdio\n"
        "from docs_mcp.server.listing import manifest_front\n"
        "from docs_mcp.store.index_manifest import read_manifest\n"
        f"manifest_front(read_manifest({str(example_index)!r}))"
    )
    assert [m for m in modules if m.split(".")[0] in ("lancedb", "pyarrow", "numpy")] == []
    assert "mcp.client" not in modules and "mcp.server.mcpserver" not in modules
    # Measured and kept: mcp.server.lowlevel.server imports starlette and the Streamable HTTP transport.
    assert "starlette" in modules and "mcp.server.streamable_http" in modules


def test_the_lazy_mcp_package_still_gives_every_name_it_exports() -> None:
    modules = _loaded_after(
        "from docs_mcp.server.mcp_import import install_lazy_mcp\n"
        "assert install_lazy_mcp()\n"
        "import mcp, mcp.server\n"
        "from mcp import Client, StdioServerParameters, MCPError, types\n"
        "from mcp.server import Server, MCPServer\n"
        "assert all(getattr(mcp, name) is not None for name in mcp.__all__)\n"
        "assert all(getattr(mcp.server, name) is not None for name in mcp.server.__all__)\n"
        "assert types.Tool is __import__('mcp_types').Tool"
    )
    assert "mcp.client" in modules  # resolved on first use


def test_the_protocol_models_build_on_first_use_and_validate_as_before() -> None:
    # docs_mcp.server.mcp_import: pydantic's defer_build while mcp_types' modules execute, only then.
    probe = (
        "import json, pydantic\n"
        "from docs_mcp.server.mcp_import import install_lazy_mcp\n"
        "assert install_lazy_mcp()\n"
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

