"""Every answer stays within its token budget, and long sections read in windows that reassemble.

The sweep runs in process on the real tools of a real index (claude-docs and the SDK corpora, full
text): the 100 claude-docs and 51 SDK questions, ``search_docs`` at limits 1-50 and ``get_doc`` at
context 0-5, budgets 500-20,000, drawn by a seeded generator so the run stays a few seconds. The
count the tools fit to is then checked against the bytes a real client receives, over stdio and
over HTTP.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters
from server_support import CURSOR_KEY, HttpServer, start_http_server, stop

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.answers import BudgetTooSmall
from docs_mcp.server.tools.app import index_state
from docs_mcp.server.tools.budget import (
    MAX_TOKENS_MAX,
    MAX_TOKENS_MIN,
    answer_bytes,
    budget_bytes,
    estimate_tokens,
)
from docs_mcp.server.tools.hub_tools import HubTools
from testkit.evaldata_sets import (
    SDK_QUERIES,
    claude_docs_queries,
    materialize_sdk_corpora,
    question_texts,
    stage_claude_docs,
)

pytestmark = pytest.mark.timeout(300)

BUDGETS = (MAX_TOKENS_MIN, 1_500, 3_000, 8_000, MAX_TOKENS_MAX)


@pytest.fixture(scope="module")
def claude_tools(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> HubTools:
    docs = stage_claude_docs(evaldata_dir, tmp_path_factory.mktemp("claude-docs") / "docs")
    out = tmp_path_factory.mktemp("claude-index") / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    index = DocsIndex.open(out)
    return index_state(index, CURSOR_KEY).tools


@pytest.fixture(scope="module")
def sdk_index(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = materialize_sdk_corpora(evaldata_dir / "corpora", tmp_path_factory.mktemp("corpora") / "corpora")
    out = tmp_path_factory.mktemp("corpora-index") / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    return out


@pytest.fixture(scope="module")
def sdk_tools(sdk_index: Path) -> HubTools:
    index = DocsIndex.open(sdk_index)
    return index_state(index, CURSOR_KEY).tools


def _index(tools: HubTools) -> DocsIndex:
    """The one index ``tools`` answer from (opened in this process)."""
    index = tools.view.sole.state.index
    assert isinstance(index, DocsIndex)
    return index


def _within(answer: tuple[dict[str, Any], str], max_tokens: int) -> int:
    result, text = answer
    size = answer_bytes(result, text)
    assert size <= budget_bytes(max_tokens), (size, max_tokens, result.get("query"))
    return size


def _sweep(tools: HubTools, queries: list[str], seed: int) -> None:
    draw = random.Random(seed)
    for query in queries:
        limit, budget = draw.randint(1, 50), draw.choice(BUDGETS)
        try:
            answer = tools.search_docs({"query": query, "limit": limit, "max_tokens": budget})
        except BudgetTooSmall:  # never on these questions: say so if one day it is
            pytest.fail(f"max_tokens={budget} held no hit of {query!r}")
        _within(answer, budget)
        page = answer[0]
        assert len(page["hits"]) + page["held_back"] <= limit
        if page["held_back"]:
            assert page["next_cursor"], "hits left for the cursor need a cursor"
        if not page["hits"]:
            continue
        chunk_id = page["hits"][0]["chunk_id"]
        context, budget = draw.randint(0, 5), draw.choice(BUDGETS)
        got = tools.get_doc({"chunk_id": chunk_id, "context": context, "max_tokens": budget})
        _within(got, budget)
        assert chunk_id in [chunk["chunk_id"] for chunk in got[0]["chunks"]]


def test_budgets_hold_on_the_claude_docs_questions(claude_tools: HubTools, evaldata_dir: Path) -> None:
    _sweep(claude_tools, question_texts(claude_docs_queries(evaldata_dir)), seed=21)


def test_budgets_hold_on_the_sdk_questions(sdk_tools: HubTools) -> None:
    _sweep(sdk_tools, question_texts(SDK_QUERIES), seed=22)


def test_a_smaller_budget_returns_fewer_whole_hits_and_says_how_many_it_held_back(
    sdk_tools: HubTools,
) -> None:
    query = "retry configuration typescript"
    full, _ = sdk_tools.search_docs({"query": query, "limit": 50, "max_tokens": MAX_TOKENS_MAX})
    small, _ = sdk_tools.search_docs({"query": query, "limit": 50, "max_tokens": 1_500})
    assert 0 < len(small["hits"]) < len(full["hits"])
    assert small["hits"] == full["hits"][: len(small["hits"])], "whole hits, never a cut one"
    assert small["held_back"] == len(full["hits"]) - len(small["hits"]) + full["held_back"]
    rest, _ = sdk_tools.search_docs({"cursor": small["next_cursor"], "max_tokens": MAX_TOKENS_MAX})
    assert rest["offset"] == len(small["hits"])
    assert rest["hits"][0] == full["hits"][len(small["hits"])]


def _read_in_windows(tools: HubTools, chunk_id: str, max_tokens: int) -> list[str]:
    answer = tools.get_doc({"chunk_id": chunk_id, "max_tokens": max_tokens})
    windows = []
    while True:
        _within(answer, max_tokens)
        result = answer[0]
        assert [chunk["chunk_id"] for chunk in result["chunks"]] == [chunk_id]
        windows.append(result["chunks"][0]["markdown"])
        if result["next_cursor"] is None:
            return windows
        assert len(windows) < 500, "windows must end"
        answer = tools.get_doc({"cursor": result["next_cursor"], "max_tokens": max_tokens})


def _longest(index: DocsIndex, count: int) -> list[tuple[str, str]]:
    table = index._table.to_arrow().select(["id", "markdown"]).to_pydict()
    pairs = sorted(zip(table["id"], table["markdown"], strict=True), key=lambda p: -len(p[1]))
    return pairs[:count]


@pytest.mark.parametrize("max_tokens", [MAX_TOKENS_MIN, 2_000])
def test_long_sections_reassemble_exactly_from_their_windows(claude_tools: HubTools, max_tokens: int) -> None:
    longest = _longest(_index(claude_tools), 12)
    assert len(longest[0][1]) > budget_bytes(MAX_TOKENS_MAX) // 2, "needs sections longer than a budget"
    line_ends = 0
    for chunk_id, markdown in longest:
        windows = _read_in_windows(claude_tools, chunk_id, max_tokens)
        assert "".join(windows) == markdown
        if len(markdown) > 2 * budget_bytes(max_tokens):
            assert len(windows) > 1
            # Cut between blocks, lines or words, never inside a word (these sections have spaces).
            assert all(window[-1].isspace() for window in windows[:-1])
            line_ends += sum(window.endswith("\n") for window in windows[:-1])
    # Some cuts fall between blocks or lines. Counted over all the sections: whether one of a
    # section's windows ends at a line depends on where its few line breaks (15 in 15 KB for one of
    # them) fall, which moves with the size of the answer's frame (its cursor).
    assert line_ends > 0


def test_sdk_sections_reassemble_at_the_smallest_budget(sdk_tools: HubTools) -> None:
    """The 3 longest SDK sections (generated model tables) and 20 drawn from those over 3 KB."""
    long = [pair for pair in _longest(_index(sdk_tools), 10_000) if len(pair[1]) >= 3_000]
    for chunk_id, markdown in long[:3] + random.Random(23).sample(long[3:], 20):
        assert "".join(_read_in_windows(sdk_tools, chunk_id, MAX_TOKENS_MIN)) == markdown


def test_neighbours_are_dropped_whole_before_the_section_is_cut(sdk_tools: HubTools) -> None:
    checked = 0
    for chunk_id, _markdown in _longest(_index(sdk_tools), 3_000)[1_000:]:
        wide = sdk_tools.get_doc({"chunk_id": chunk_id, "context": 5, "max_tokens": MAX_TOKENS_MAX})
        alone = sdk_tools.get_doc({"chunk_id": chunk_id, "max_tokens": MAX_TOKENS_MAX})
        budget = estimate_tokens(answer_bytes(*alone)) + 100  # the section fits, its neighbours do not
        if len(wide[0]["chunks"]) < 5 or not MAX_TOKENS_MIN <= budget < estimate_tokens(answer_bytes(*wide)):
            continue
        narrow, _ = sdk_tools.get_doc({"chunk_id": chunk_id, "context": 5, "max_tokens": budget})
        ids = [chunk["chunk_id"] for chunk in wide[0]["chunks"]]
        kept = [chunk["chunk_id"] for chunk in narrow["chunks"]]
        assert narrow["next_cursor"] is None and all("part" not in chunk for chunk in narrow["chunks"])
        assert chunk_id in kept and len(kept) < len(ids)
        first = ids.index(kept[0])
        assert ids[first : first + len(kept)] == kept, "the neighbours kept surround the section"
        checked += 1
        if checked == 5:
            break
    assert checked == 5


def test_a_window_cursor_is_refused_when_tampered_or_for_another_index(
    claude_tools: HubTools, sdk_tools: HubTools
) -> None:
    from docs_mcp.errors import CursorError

    chunk_id = _longest(_index(claude_tools), 1)[0][0]
    cursor = claude_tools.get_doc({"chunk_id": chunk_id, "max_tokens": MAX_TOKENS_MIN})[0]["next_cursor"]
    assert cursor
    with pytest.raises(CursorError, match="stale"):
        sdk_tools.get_doc({"cursor": cursor})
    flipped = cursor[:5] + ("A" if cursor[5] != "A" else "B") + cursor[6:]
    with pytest.raises(CursorError, match="altered"):
        claude_tools.get_doc({"cursor": flipped})
    with pytest.raises(CursorError, match="not a search cursor"):
        claude_tools.search_docs({"cursor": cursor})


# -- the count against what a real client receives ----------------------------------------------------


def _wire_calls() -> list[tuple[str, dict[str, Any]]]:
    queries = question_texts(SDK_QUERIES)[:6]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_docs", {"query": q, "limit": 50, "max_tokens": b})
        for q, b in zip(queries, (MAX_TOKENS_MIN, 1_500, 2_000, 4_000, 8_000, 20_000), strict=True)
    ]
    return calls


@pytest.fixture(scope="module")
def http_server(sdk_index: Path) -> Iterator[HttpServer]:
    server = start_http_server(sdk_index, "--max-tokens", "2000")
    try:
        yield server
    finally:
        stop(server)


def test_answers_over_http_stay_within_the_budget_counted_on_the_wire(http_server: HttpServer) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with httpx.Client(timeout=30) as http:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        opened = http.post(http_server.url, json=init, headers=headers)
        session = opened.headers.get("mcp-session-id")
        if session:
            headers["mcp-session-id"] = session
        http.post(
            http_server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        calls = [*_wire_calls(), ("search_docs", {"query": "create a customer", "limit": 50})]
        for number, (tool, arguments) in enumerate(calls, start=1):
            call = {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
            answer = http.post(http_server.url, json=call, headers=headers)
            assert answer.status_code == 200
            body = answer.content
            budget = arguments.get("max_tokens", 2_000)  # the server's --max-tokens
            assert len(body) <= budget_bytes(budget), (len(body), budget)
            assert b'"isError":false' in body or b'"isError": false' in body or b"isError" not in body


@pytest.mark.anyio
async def test_answers_over_stdio_stay_within_the_budget_counted_on_the_wire(sdk_index: Path) -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(sdk_index)]
    )
    async with Client(server) as client:
        hits = []
        for tool, arguments in _wire_calls():
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.content
            wire = result.model_dump_json(by_alias=True, exclude_none=True).encode()
            assert len(wire) <= budget_bytes(arguments["max_tokens"]) - 160
            assert isinstance(result.structured_content, dict)
            hits += result.structured_content["hits"]
        for budget in (MAX_TOKENS_MIN, 3_000):
            result = await client.call_tool(
                "get_doc", {"chunk_id": hits[0]["chunk_id"], "context": 5, "max_tokens": budget}
            )
            wire = result.model_dump_json(by_alias=True, exclude_none=True).encode()
            assert len(wire) <= budget_bytes(budget)
