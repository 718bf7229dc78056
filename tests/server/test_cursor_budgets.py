"""Budgets ride on cursors (issue 31): a ``next_cursor`` carries the ``max_tokens`` its answer was
fitted to, so a cursor alone continues a search or a section at that budget, not the default; a
``max_tokens`` passed with the cursor wins. Through a real MCP client: the stdio server (one index)
and the multi-library server; a cursor signed before cursors carried a budget still continues.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from library_fixtures import example_v2
from mcp import Client, StdioServerParameters
from server_support import CURSOR_KEY

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.hub.opening import ReadyHub, open_hub
from docs_mcp.server.hub.specs import parse_index_specs
from docs_mcp.server.tools.app import index_state
from docs_mcp.server.tools.budget import MAX_TOKENS_DEFAULT, answer_bytes, budget_bytes
from docs_mcp.server.tools.cursor import SEARCH, SECTION, CursorCodec

__all__ = ["example_v2"]  # fixtures used here

pytestmark = pytest.mark.timeout(180)

SMALL = 1_000
LONG_SECTION = "\n\n".join(
    f"Paragraph {n} of the rollover guide: a ledger rolls over at midnight and every open invoice "
    f"moves to the next period with its balance, its currency and its payment terms kept ({n})."
    for n in range(250)
)  # about 50 KB: read in many windows at any budget


@pytest.fixture(scope="module")
def ledger_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index with one long section and many short ones that all match "ledger"."""
    root = tmp_path_factory.mktemp("ledger")
    docs = root / "docs"
    docs.mkdir()
    (docs / "rollover.md").write_text(f"# Rollover\n\n## Ledger rollover\n\n{LONG_SECTION}\n")
    for n in range(30):
        body = " ".join(f"The ledger entry {n} keeps account {m} balanced." for m in range(12))
        (docs / f"entry-{n:02}.md").write_text(f"# Ledger entry {n}\n\n## Ledger fields {n}\n\n{body}\n")
    build(BuildOptions(docs_dir=docs, out=root / "out", description="Ledger docs"))
    return root / "out"


def carried_budget(cursor: str) -> int | None:
    """The budget a cursor's (signed) payload holds."""
    payload = cursor.partition(".")[0]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).get("t")


def size(result: Any) -> int:
    return answer_bytes(result.structured_content, result.content[0].text)


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> Any:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, (arguments, result.content)
    assert isinstance(result.structured_content, dict)
    return result


@pytest.mark.anyio
async def test_over_stdio_a_cursor_alone_keeps_its_budget_and_an_explicit_one_wins(
    ledger_index: Path,
) -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(ledger_index)]
    )
    async with Client(server) as client:
        first = await call(client, "search_docs", {"query": "ledger", "limit": 30, "max_tokens": SMALL})
        page = first.structured_content
        assert page["held_back"] > 0 and carried_budget(page["next_cursor"]) == SMALL
        second = await call(client, "search_docs", {"cursor": page["next_cursor"]})
        assert size(second) <= budget_bytes(SMALL) and second.structured_content["held_back"] > 0
        assert carried_budget(second.structured_content["next_cursor"]) == SMALL
        # An explicit budget with the cursor wins, and the next cursor carries it.
        wide = await call(client, "search_docs", {"cursor": page["next_cursor"], "max_tokens": 4_000})
        assert len(wide.structured_content["hits"]) > len(second.structured_content["hits"])
        assert carried_budget(wide.structured_content["next_cursor"]) == 4_000

        chunk_id = "rollover.md#rollover/ledger-rollover"
        window = await call(client, "get_doc", {"chunk_id": chunk_id, "max_tokens": SMALL})
        cursor = window.structured_content["next_cursor"]
        assert cursor and carried_budget(cursor) == SMALL
        following = await call(client, "get_doc", {"cursor": cursor})
        assert size(following) <= budget_bytes(SMALL)
        assert carried_budget(following.structured_content["next_cursor"]) == SMALL
        default = await call(client, "get_doc", {"cursor": cursor, "max_tokens": MAX_TOKENS_DEFAULT})
        assert size(default) > budget_bytes(SMALL)
        assert carried_budget(default.structured_content["next_cursor"]) == MAX_TOKENS_DEFAULT


@pytest.fixture(scope="module")
def hub(ledger_index: Path, example_v2: Path) -> Iterator[ReadyHub]:
    ready = open_hub(parse_index_specs([f"ledger={ledger_index}", f"example={example_v2}"]), key=CURSOR_KEY)
    yield ready
    ready.stop()


@pytest.fixture
async def hub_client(hub: ReadyHub) -> AsyncIterator[Client]:
    async with Client(hub.server) as connected:
        yield connected


@pytest.mark.anyio
async def test_the_multi_library_server_keeps_a_cursors_budget_too(hub_client: Client) -> None:
    for library in ("ledger", None):  # one library's page, and the merged page of every library
        where = {"library": library} if library else {}
        first = await call(hub_client, "search_docs", {"query": "ledger", **where, "max_tokens": SMALL})
        assert carried_budget(first.structured_content["next_cursor"]) == SMALL
        second = await call(hub_client, "search_docs", {"cursor": first.structured_content["next_cursor"]})
        assert size(second) <= budget_bytes(SMALL)
    chunk_id = "rollover.md#rollover/ledger-rollover"
    window = await call(
        hub_client, "get_doc", {"library": "ledger", "chunk_id": chunk_id, "max_tokens": SMALL}
    )
    following = await call(hub_client, "get_doc", {"cursor": window.structured_content["next_cursor"]})
    assert size(following) <= budget_bytes(SMALL)
    assert following.structured_content["chunks"][0]["part"]["start"] > 0
    assert carried_budget(following.structured_content["next_cursor"]) == SMALL


def test_a_cursor_without_a_budget_still_continues_at_the_call_s_or_the_default(ledger_index: Path) -> None:
    """Cursors signed before budgets rode on them (same version, no ``t``) stay valid."""
    index = DocsIndex.open(ledger_index)
    codec = CursorCodec(CURSOR_KEY, index.identity)
    tools = index_state(index, CURSOR_KEY).tools
    old_page = codec.seal(SEARCH, {"q": "ledger", "f": {}, "m": None, "o": 3, "l": 5})
    result, _ = tools.search_docs({"cursor": old_page})
    assert result["offset"] == 3 and carried_budget(result["next_cursor"]) == MAX_TOKENS_DEFAULT
    result, _ = tools.search_docs({"cursor": old_page, "max_tokens": SMALL})
    assert carried_budget(result["next_cursor"]) == SMALL
    chunk_id = "rollover.md#rollover/ledger-rollover"
    length = tools.get_doc({"chunk_id": chunk_id})[0]["chunks"][0]["part"]["length"]
    old_window = codec.seal(SECTION, {"c": chunk_id, "s": 100, "n": length})
    result, _ = tools.get_doc({"cursor": old_window})
    assert result["chunks"][0]["part"]["start"] == 100
    assert carried_budget(result["next_cursor"]) == MAX_TOKENS_DEFAULT


def test_a_cursor_with_a_budget_out_of_range_is_refused_as_malformed(ledger_index: Path) -> None:
    index = DocsIndex.open(ledger_index)
    codec = CursorCodec(CURSOR_KEY, index.identity)
    tools = index_state(index, CURSOR_KEY).tools
    for budget in (10, 10**6, "8000", True):
        forged = codec.seal(SEARCH, {"q": "ledger", "f": {}, "m": None, "o": 0, "l": 5, "t": budget})
        with pytest.raises(Exception, match="malformed"):
            tools.search_docs({"cursor": forged})
