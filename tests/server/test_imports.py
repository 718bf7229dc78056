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
        "import docs_mcp.server.tools.app, docs_mcp.server.startup.serving\n"
        "import docs_mcp.server.transport.http, docs_mcp.server.transport.stdio"
    )
    assert [m for m in modules if m.split(".")[0] in FORBIDDEN or m.startswith(FORBIDDEN)] == []
    assert not [m for m in modules if m == "docs_mcp.cli" or m.startswith("docs_mcp.cli.")]


def test_the_serve_command_imports_no_build_or_authoring_code() -> None:
    modules = _loaded_after(
        "from docs_mcp.cli.main import build_parser\n"
        "build_parser(only='serve')\n"
        "import docs_mcp.server.startup.serving"
    )
    assert [m for m in modules if m.split(".")[0] in FORBIDDEN or m.startswith(FORBIDDEN)] == []
    assert "docs_mcp.cli.commands.build" not in modules


def test_jsonschema_is_not_imported_until_a_call_needs_it_explained() -> None:
    # It costs ~60 ms of cold start; valid arguments are recognised without it.
    modules = _loaded_after(
        "import docs_mcp.server.tools.app, docs_mcp.server.startup.serving\n"
        "from docs_mcp.server.tools.arguments import ArgumentValidator\n"
        "from docs_mcp.server.tools.tool_schema import search_input_schema\n"
        "ArgumentValidator('search_docs', search_input_schema({'language': ['go']})).validate("
        "{'query': 'q', 'language': 'go', 'limit': 5})"
    )
    assert "jsonschema" not in modules


def test_serving_a_local_folder_imports_no_registry_client() -> None:
    # oras and requests load only for --index oci://...; a folder's cold start does not pay for them.
    modules = _loaded_after("import docs_mcp.server.tools.app, docs_mcp.server.startup.serving")
    assert [m for m in modules if m.split(".")[0] in ("oras", "requests", "urllib3")] == []
    assert "docs_mcp.artifact" not in modules


def test_pyjwt_is_imported_only_for_an_oauth_issuer() -> None:
    # Stdio, plain HTTP and static tokens never pay for it (serve --auth-issuer loads it).
    modules = _loaded_after(
        "import docs_mcp.server.tools.app, docs_mcp.server.startup.serving\n"
        "import docs_mcp.server.transport.http, docs_mcp.server.transport.stdio\n"
        "import docs_mcp.server.auth.gate, docs_mcp.server.auth.tokens"
    )
    assert "jwt" not in modules and "docs_mcp.server.auth.jwt" not in modules
    assert "jwt" in _loaded_after("import docs_mcp.server.auth.jwt")


def test_what_stdio_answers_before_the_index_loads_imports_no_index_stack_nor_mcp_client(
    example_index: Path,
) -> None:
    # initialize and tools/list come from the manifest (docs_mcp.server.hub.deferred): without LanceDB,
    # pyarrow or numpy, and the MCP SDK without its client (docs_mcp.import_cuts).
    modules = _loaded_after(
        "from docs_mcp.import_cuts import install\n"
        "assert 'mcp-client' in install()\n"
        "import docs_mcp.server.tools.app, docs_mcp.server.transport.stdio\n"
        "from docs_mcp.server.tools.listing import manifest_front\n"
        "from docs_mcp.store.index_manifest import read_manifest\n"
        f"manifest_front(read_manifest({str(example_index)!r}))"
    )
    assert [m for m in modules if m.split(".")[0] in ("lancedb", "pyarrow", "numpy")] == []
    assert "mcp.client" not in modules and "mcp.server.mcpserver" not in modules
    # Measured and kept: mcp.server.lowlevel.server imports starlette and the Streamable HTTP transport.
    assert "starlette" in modules and "mcp.server.streamable_http" in modules


def test_serve_imports_lancedb_and_the_mcp_sdk_with_the_import_cuts(example_index: Path) -> None:
    # docs_mcp.import_cuts, installed by serve alone: input ends at once, the index opens in the
    # background, and the modules it loaded are reported at exit.
    probe = (
        "import atexit, json, sys\n"
        "def report():\n"
        "    print(json.dumps([type(sys.modules[name].__spec__.loader).__name__\n"
        "                      for name in ('lance_namespace', 'lance_namespace_urllib3_client', 'mcp')]))\n"
        "atexit.register(report)\n"
        "from docs_mcp.cli.main import main\n"
        f"sys.exit(main(['serve', '--index', {str(example_index)!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [
        "DeferringLoader",
        "_LazyPackageLoader",
        "_LazyPackageLoader",
    ]
