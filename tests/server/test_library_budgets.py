"""Token budgets and get_doc windows in the multi-library server, through a real MCP client.

The hub serves claude-docs, the dub and mistral SDKs, the bundled example and a small SDK (real
full-text indexes). Every answer to the 100 claude-docs and 51 SDK questions stays within its budget
(counted on the serialized result a client receives), long sections of each library reassemble
exactly from their windows, and window cursors carry their library and go stale with its index.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from library_fixtures import acme_index, claude_index, example_v1, example_v2, sdk_index
from mcp import Client, StdioServerParameters
from server_support import CURSOR_KEY

from docs_mcp.search.index import DocsIndex
from docs_mcp.server.hub.opening import ReadyHub, open_hub
from docs_mcp.server.hub.specs import parse_index_specs
from docs_mcp.server.tools.budget import (
    FRAME_BYTES,
    MAX_TOKENS_DEFAULT,
    MAX_TOKENS_MAX,
    MAX_TOKENS_MIN,
    answer_bytes,
    budget_bytes,
)
from testkit.evaldata_sets import SDK_QUERIES, claude_docs_queries, question_texts

__all__ = ["acme_index", "claude_index", "example_v1", "example_v2", "sdk_index"]  # fixtures used here

pytestmark = pytest.mark.timeout(300)

BUDGETS = (MAX_TOKENS_MIN, 1_500, 3_000, 8_000, MAX_TOKENS_MAX)


@pytest.fixture(scope="module")
def hub(claude_index: Path, sdk_index: Path, example_v2: Path, acme_index: Path) -> Iterator[ReadyHub]:
    specs = [
        f"claude-docs={claude_index}",
        f"sdks={sdk_index}",
        f"example={example_v2}",
        f"acme={acme_index}",
    ]
    ready = open_hub(parse_index_specs(specs), key=CURSOR_KEY)
    yield ready
    ready.stop()


@pytest.fixture
async def client(hub: ReadyHub) -> AsyncIterator[Client]:
    async with Client(hub.server) as connected:
        yield connected


async def _fitted(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The structured result of a call, checked to fit its budget as the client received it."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, (arguments, result.content)
    assert isinstance(result.structured_content, dict)
    # What the server sent, counted as the budget counts it (the in-process client's result object
    # adds its own _meta, which is not on the wire).
    size = answer_bytes(result.structured_content, result.content[0].text)  # type: ignore[union-attr]
    assert size <= budget_bytes(arguments.get("max_tokens", MAX_TOKENS_DEFAULT)), (tool, arguments)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.mark.anyio
async def test_budgets_hold_over_every_librarys_questions(client: Client, evaldata_dir: Path) -> None:
    """Each question once, at a drawn limit and budget, to its own library or to all of them (merged);
    then get_doc of its first hit at a drawn context and budget."""
    draw = random.Random(2122)
    asked = [("claude-docs", q) for q in question_texts(claude_docs_queries(evaldata_dir))]
    asked += [("sdks", q) for q in question_texts(SDK_QUERIES)]
    held_back = 0
    for library, query in asked:
        limit, budget = draw.randint(1, 50), draw.choice(BUDGETS)
        arguments: dict[str, Any] = {"query": query, "limit": limit, "max_tokens": budget}
        if draw.random() < 0.5:
            arguments["library"] = library
        page = await _fitted(client, "search_docs", arguments)
        assert len(page["hits"]) + page["held_back"] <= limit
        held_back += page["held_back"]
        if page["held_back"]:
            assert page["next_cursor"], "hits left for the cursor need a cursor"
            rest = await _fitted(client, "search_docs", {"cursor": page["next_cursor"], "max_tokens": budget})
            assert rest["offset"] == len(page["hits"])
        if not page["hits"]:
            continue
        hit = page["hits"][0]
        context, budget = draw.randint(0, 5), draw.choice(BUDGETS)
        got = await _fitted(
            client,
            "get_doc",
            {
                "library": hit["library"],
                "chunk_id": hit["chunk_id"],
                "context": context,
                "max_tokens": budget,
            },
        )
        assert got["library"] == hit["library"]
        assert hit["chunk_id"] in [chunk["chunk_id"] for chunk in got["chunks"]]
    assert held_back > 0, "the small budgets must have held some hits back"


def _longest(path: Path, count: int) -> list[tuple[str, str]]:
    table = DocsIndex.open(path)._table.to_arrow().select(["id", "markdown"]).to_pydict()
    return sorted(zip(table["id"], table["markdown"], strict=True), key=lambda p: -len(p[1]))[:count]


async def _windows(client: Client, first: dict[str, Any], max_tokens: int) -> list[str]:
    """The markdown of each window of a section, from ``first``'s arguments on."""
    answer = await _fitted(client, "get_doc", {**first, "max_tokens": max_tokens})
    windows = []
    while True:
        assert [chunk["chunk_id"] for chunk in answer["chunks"]] == [answer["chunk_id"]]
        windows.append(answer["chunks"][0]["markdown"])
        if answer["next_cursor"] is None:
            return windows
        assert len(windows) < 500, "windows must end"
        # The cursor alone: it carries the library.
        answer = await _fitted(client, "get_doc", {"cursor": answer["next_cursor"], "max_tokens": max_tokens})


@pytest.mark.anyio
@pytest.mark.parametrize("max_tokens", [MAX_TOKENS_MIN, 3_000])
async def test_long_sections_of_each_library_reassemble_exactly(
    client: Client, claude_index: Path, sdk_index: Path, max_tokens: int
) -> None:
    for library, path in (("claude-docs", claude_index), ("sdks", sdk_index)):
        for chunk_id, markdown in _longest(path, 4):
            windows = await _windows(
                client, {"library": library, "chunk_id": chunk_id, "context": 2}, max_tokens
            )
            assert "".join(windows) == markdown, (library, chunk_id)
            if len(markdown) > 2 * budget_bytes(max_tokens):
                assert len(windows) > 1
                assert all(window[-1].isspace() for window in windows[:-1]), "cut between words or blocks"


@pytest.mark.anyio
async def test_window_cursors_carry_their_library_and_are_refused_elsewhere(
    client: Client, claude_index: Path
) -> None:
    chunk_id = _longest(claude_index, 1)[0][0]
    first = await _fitted(
        client, "get_doc", {"chunk_id": chunk_id, "library": "claude-docs", "max_tokens": MAX_TOKENS_MIN}
    )
    cursor = first["next_cursor"]
    assert cursor
    again = await _fitted(
        client, "get_doc", {"cursor": cursor, "library": "claude-docs", "max_tokens": 1_000}
    )
    assert again["library"] == "claude-docs" and again["chunks"][0]["part"]["start"] > 0
    for arguments, expected in (
        ({"cursor": cursor, "library": "sdks"}, "belongs to another library"),
        ({"cursor": cursor, "chunk_id": "other.md#x"}, "The cursor continues"),
        ({"cursor": cursor[:5] + ("A" if cursor[5] != "A" else "B") + cursor[6:]}, "altered"),
        ({"cursor": "not-a-cursor"}, "malformed"),
    ):
        result = await client.call_tool("get_doc", arguments)
        assert result.is_error and expected in result.content[0].text, (arguments, result.content)  # type: ignore[union-attr]
    searched = await client.call_tool("search_docs", {"cursor": cursor})
    assert searched.is_error and "not a search cursor" in searched.content[0].text  # type: ignore[union-attr]
    page = await _fitted(client, "search_docs", {"query": "tool use", "library": "claude-docs", "limit": 1})
    read = await client.call_tool("get_doc", {"cursor": page["next_cursor"]})
    assert read.is_error and "not a section cursor" in read.content[0].text  # type: ignore[union-attr]


def test_a_swapped_index_makes_only_its_own_window_cursors_stale(
    example_v2: Path, example_v1: Path, claude_index: Path
) -> None:
    ready = open_hub(parse_index_specs([f"example={example_v2}", f"claude={claude_index}"]), key=CURSOR_KEY)
    try:
        tools = ready.states.acquire().tools
        small = {"max_tokens": MAX_TOKENS_MIN}
        example_id = _longest(example_v2, 1)[0][0]
        claude_id = _longest(claude_index, 1)[0][0]
        example = tools.get_doc({"chunk_id": example_id, "library": "example", "max_tokens": 1_000})[0]
        claude = tools.get_doc({"chunk_id": claude_id, "library": "claude", **small})[0]
        assert example["next_cursor"] and claude["next_cursor"]
        ready.hub.libraries[0].live.replace(example_v1)  # what a refresh does
        after = ready.states.acquire().tools
        assert after.get_doc({"cursor": claude["next_cursor"], **small})[0]["library"] == "claude"
        with pytest.raises(Exception, match="The cursor is stale"):
            after.get_doc({"cursor": example["next_cursor"], **small})
    finally:
        ready.stop()


@pytest.mark.anyio
async def test_serve_max_tokens_and_feedback_log_apply_to_several_libraries_over_stdio(
    example_v2: Path, acme_index: Path, tmp_path: Path
) -> None:
    log = tmp_path / "feedback.jsonl"
    server = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "docs_mcp",
            "serve",
            "--index",
            f"example={example_v2}",
            "--index",
            f"acme={acme_index}",
            "--max-tokens",
            "1000",
            "--feedback-log",
            str(log),
        ],
    )
    async with Client(server) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listed) == {"search_docs", "get_doc", "docs_feedback"}
        for name in ("search_docs", "get_doc"):
            assert listed[name].input_schema["properties"]["max_tokens"]["default"] == 1_000
        result = await client.call_tool("search_docs", {"query": "retries", "limit": 50})
        wire = result.model_dump_json(by_alias=True, exclude_none=True).encode()
        assert not result.is_error and len(wire) <= budget_bytes(1_000) - FRAME_BYTES
        page = result.structured_content
        assert isinstance(page, dict) and page["held_back"] > 0 and page["next_cursor"]
        reported = await client.call_tool(
            "docs_feedback", {"query": "retries", "chunk_ids": [page["hits"][0]["chunk_id"]], "score": 4}
        )
        assert not reported.is_error
    record = json.loads(log.read_text())
    assert record["score"] == 4 and "example@2.0=" in record["index"] and "acme@=" in record["index"]
