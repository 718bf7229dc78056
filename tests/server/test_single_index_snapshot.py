"""One index served with a bare ``--index REF``, recorded: what a client sees must not change.

The example docs (plus one prompt template, so ``prompts/list`` has something to list) are built full
text into a temporary folder and served two ways: in process (:func:`docs_mcp.server.open_server`)
to the SDK's client, and by the real CLI over stdio, to the same client and to a raw JSON-RPC line
client. The answers (``initialize``, the four listings, a search and its next page, a section, a tool
error and a protocol error) are compared with the files in ``golden/single_index/``: the client's view
(``client/``, the same for both transports) and the bytes on the wire (``wire/``).

Normalised, because it varies per run or per release and nothing else does: the package version in
``serverInfo`` (``<version>``). Cursors are kept as they are: they are signed with a fixed secret
(``DOCS_MCP_CURSOR_SECRET``) and bound to the index identity, which hashes the docs, the format and
the package version; a new release therefore changes them, and so does a new cursor layout.
``DOCS_MCP_UPDATE_GOLDEN=1`` rewrites the files (then review the diff).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel
from rpc_support import LineClient
from server_support import serve_command, server_env

from docs_mcp import __version__
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.server import open_server
from docs_mcp.server.tools.cursor import SECRET_ENV, cursor_key

pytestmark = pytest.mark.timeout(120)

GOLDEN = Path(__file__).parent / "golden" / "single_index"
UPDATE = os.environ.get("DOCS_MCP_UPDATE_GOLDEN") == "1"
SECRET = "single-index-snapshot"
TEMPLATE = (
    "---\n"
    "name: answer\n"
    "description: Answer from these docs with citations\n"
    "arguments:\n"
    "  - name: question\n"
    "    description: The user's question\n"
    "    required: true\n"
    "---\n"
    "Answer {{question}} from search_docs results only. Cite each chunk_id.\n"
)
SEARCH = {"query": "create a payment", "language": "python", "limit": 2}
CHUNK = "guides/retries.md#retries/what-is-retried"
GET = {"chunk_id": CHUNK, "context": 1}
BAD_SEARCH = {"query": "refund", "language": "cobol"}


@pytest.fixture(scope="module")
def snapshot_index(tmp_path_factory: pytest.TempPathFactory, examples_docs: Path) -> Path:
    root = tmp_path_factory.mktemp("snapshot")
    docs = root / "docs"
    shutil.copytree(examples_docs, docs)
    (docs / "prompts").mkdir()
    (docs / "prompts" / "answer.template.md").write_text(TEMPLATE, encoding="utf-8")
    build(BuildOptions(docs_dir=docs, out=root / "out"))
    return root / "out"


def _normalised(text: str) -> str:
    return text.replace(json.dumps(__version__), '"<version>"')


def _check(kind: str, name: str, value: Any) -> None:
    """``value`` (JSON) against ``golden/single_index/KIND/NAME.json``; written instead when updating."""
    text = _normalised(json.dumps(value, indent=1, ensure_ascii=False)) + "\n"
    path = GOLDEN / kind / f"{name}.json"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"{path} is missing: run with DOCS_MCP_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8"), f"{kind}/{name} differs from {path}"


def _dump(model: BaseModel) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def _client_view(client: Client) -> dict[str, Any]:
    """Everything the snapshot records, as the SDK's client returns it."""
    first = await client.call_tool("search_docs", SEARCH)
    assert isinstance(first.structured_content, dict) and first.structured_content["next_cursor"]
    following = await client.call_tool("search_docs", {"cursor": first.structured_content["next_cursor"]})
    with pytest.raises(MCPError) as unknown:
        await client.call_tool("no_such_tool", {})
    assert client.server_info is not None and client.server_capabilities is not None
    return {
        "initialize": {
            "serverInfo": _dump(client.server_info),
            "capabilities": _dump(client.server_capabilities),
            "instructions": client.instructions,
        },
        "tools_list": _dump(await client.list_tools()),
        "resources_list": _dump(await client.list_resources()),
        "resource_templates_list": _dump(await client.list_resource_templates()),
        "prompts_list": _dump(await client.list_prompts()),
        "search_docs": _dump(first),
        "search_docs_next_page": _dump(following),
        "get_doc": _dump(await client.call_tool("get_doc", GET)),
        "error_tool": _dump(await client.call_tool("search_docs", BAD_SEARCH)),
        "error_protocol": {"code": unknown.value.error.code, "message": unknown.value.error.message},
    }


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_one_index_in_process_answers_as_recorded(snapshot_index: Path) -> None:
    ready = open_server(snapshot_index, key=cursor_key({SECRET_ENV: SECRET}))
    async with Client(ready.server) as client:
        view = await _client_view(client)
    for name, value in view.items():
        _check("client", name, value)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_one_index_over_stdio_answers_as_recorded(snapshot_index: Path) -> None:
    command = serve_command(snapshot_index)
    parameters = StdioServerParameters(
        command=command[0], args=command[1:], env=server_env(**{SECRET_ENV: SECRET})
    )
    async with Client(parameters) as client:
        view = await _client_view(client)
    if UPDATE:  # the in-process test writes them
        return
    for name, value in view.items():
        _check("client", name, value)


def _call(request_id: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def test_one_index_over_stdio_puts_the_recorded_bytes_on_the_wire(
    snapshot_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, SECRET)  # LineClient passes this environment on
    client = LineClient(snapshot_index)
    try:
        answers = {"initialize": client.initialize()}
        for name, method, params in [
            ("tools_list", "tools/list", None),
            ("resources_list", "resources/list", None),
            ("resource_templates_list", "resources/templates/list", None),
            ("prompts_list", "prompts/list", None),
            ("search_docs", "tools/call", {"name": "search_docs", "arguments": SEARCH}),
            ("get_doc", "tools/call", {"name": "get_doc", "arguments": GET}),
            ("prompts_get", "prompts/get", {"name": "answer", "arguments": {"question": "refunds?"}}),
            ("error_tool", "tools/call", {"name": "search_docs", "arguments": BAD_SEARCH}),
            ("error_protocol", "tools/call", {"name": "no_such_tool", "arguments": {}}),
            ("error_resource", "resources/read", {"uri": "docs://no/such/section"}),
        ]:
            answers[name] = client.request(_call(name, method, params))
    finally:
        assert client.close() == 0, client.stderr_text
    for name, answer in answers.items():
        _check("wire", name, answer)
