"""The real MCP server over a real index, driven by the SDK's in-process client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from client_support import structured
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.shared.exceptions import MCPError
from server_support import CURSOR_KEY

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.app import create_server
from docs_mcp.server.tools.tool_schema import get_output_schema, search_output_schema

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
async def client(docs_index: DocsIndex) -> AsyncIterator[Client]:
    async with Client(create_server(docs_index, key=CURSOR_KEY)) as connected:
        yield connected


async def _error(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    assert result.structured_content is None
    text: str = result.content[0].text  # type: ignore[union-attr]
    return text


async def test_tools_are_listed_with_enums_from_the_index(client: Client, docs_index: DocsIndex) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"search_docs", "get_doc"}
    search = tools["search_docs"]
    properties = search.input_schema["properties"]
    assert properties["language"]["enum"] == ["go", "python", "typescript"]
    assert properties["scope"]["enum"] == ["global-guide", "sdk-specific"]
    assert properties["language"]["enum"] == docs_index.facets["language"]
    assert search.input_schema["additionalProperties"] is False
    assert properties["limit"] == {**properties["limit"], "minimum": 1, "maximum": 50, "default": 10}
    assert "Always set `language`" in (search.description or "")
    for tool in tools.values():
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.output_schema is not None


async def test_initialize_instructions_carry_the_corpus_and_its_taxonomy(client: Client) -> None:
    instructions = client.instructions or ""
    assert "Acme Payments" in instructions
    assert "- language: go, python, typescript" in instructions


async def test_search_returns_hits_as_structured_content_and_the_same_as_text(client: Client) -> None:
    result = await client.call_tool("search_docs", {"query": "retries backoff", "language": "python"})
    page = result.structured_content
    assert not result.is_error and isinstance(page, dict)
    assert page["hits"], "the example docs document retries"
    assert page["mode"] in ("fulltext", "hybrid", "vector")
    text = result.content[0].text  # type: ignore[union-attr]
    for hit in page["hits"]:
        assert set(hit) == {
            "chunk_id", "file", "heading", "breadcrumb", "snippet", "facets", "score", "matched",
        }  # fmt: skip
        assert hit["matched"] == "text"  # a full-text index matches by words only
        assert round(hit["score"], 3) == hit["score"]
        # language filter plus the auto-included global guides, nothing from another SDK
        assert hit["facets"].get("language") == "python" or hit["facets"].get("scope") == "global-guide"
        assert hit["chunk_id"] in text
        assert f". {hit['heading']}" in text, "the text names each hit by its own heading"
    assert page["filters"] == {"language": "python"}
    assert page["held_back"] == 0


async def test_paging_with_cursors_reaches_the_end_without_repeats(client: Client) -> None:
    first_fifty = [
        hit["chunk_id"]
        for hit in (await structured(client, "search_docs", {"query": "payment", "limit": 50}))["hits"]
    ]
    seen: list[str] = []
    page = await structured(client, "search_docs", {"query": "payment", "limit": 7})
    while True:
        assert page["offset"] == len(seen)
        seen += [hit["chunk_id"] for hit in page["hits"]]
        if page["next_cursor"] is None:
            break
        assert len(seen) < 1000, "paging must terminate"
        page = await structured(client, "search_docs", {"query": "payment", "cursor": page["next_cursor"]})
    assert len(seen) > 7 * 2, "need several pages"
    assert seen[: len(first_fifty)] == first_fifty
    assert len(set(seen)) == len(seen)


async def test_a_tampered_cursor_is_a_tool_error_not_a_wrong_page(client: Client) -> None:
    page = await structured(client, "search_docs", {"query": "payment", "limit": 2})
    cursor: str = page["next_cursor"]
    flipped = cursor[:5] + ("A" if cursor[5] != "A" else "B") + cursor[6:]
    message = await _error(client, "search_docs", {"query": "payment", "cursor": flipped})
    assert "cursor" in message and "without `cursor`" in message


async def test_a_cursor_from_another_server_is_rejected(client: Client, docs_index: DocsIndex) -> None:
    async with Client(create_server(docs_index, key=b"another-key")) as other:
        foreign = (await structured(other, "search_docs", {"query": "payment", "limit": 2}))["next_cursor"]
    message = await _error(client, "search_docs", {"query": "payment", "cursor": foreign})
    assert "another server" in message


async def test_a_cursor_for_another_query_or_limit_is_rejected(client: Client) -> None:
    cursor = (await structured(client, "search_docs", {"query": "payment", "limit": 2}))["next_cursor"]
    assert "different query" in await _error(client, "search_docs", {"query": "refund", "cursor": cursor})
    message = await _error(client, "search_docs", {"query": "payment", "cursor": cursor, "limit": 3})
    assert "limit=2" in message


async def test_a_cursor_from_a_previous_build_is_stale(
    client: Client, tmp_path: Path, examples_docs: Path, docs_index: DocsIndex
) -> None:
    changed = tmp_path / "docs"
    changed.mkdir()
    for source in examples_docs.rglob("*"):
        target = changed / source.relative_to(examples_docs)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.write_bytes(source.read_bytes())
    guide = changed / "guides" / "retries.md"
    guide.write_text(guide.read_text() + "\n\n## Added later\n\nA new section about payment retries.\n")
    build(BuildOptions(docs_dir=changed, out=tmp_path / "out"))
    rebuilt = DocsIndex.open(tmp_path / "out")
    assert rebuilt.identity != docs_index.identity
    async with Client(create_server(rebuilt, key=CURSOR_KEY)) as new_server:
        old_cursor = (await structured(client, "search_docs", {"query": "payment", "limit": 2}))[
            "next_cursor"
        ]
        message = await _error(new_server, "search_docs", {"query": "payment", "cursor": old_cursor})
    assert "stale" in message


async def test_zero_results_with_a_filter_suggest_the_values_that_match(client: Client) -> None:
    page = await structured(client, "search_docs", {"query": "instanceof", "language": "go"})
    assert page["hits"] == []
    assert page["next_cursor"] is None
    hint = page["hint"]
    assert hint["suggested_filters"].get("language") == ["typescript"]
    assert "typescript" in hint["message"]
    assert hint["matches_without_filters"] is True


async def test_zero_results_anywhere_advise_how_to_broaden(client: Client) -> None:
    result = await client.call_tool("search_docs", {"query": "xylophonequartz zebrafinch"})
    page = result.structured_content
    assert isinstance(page, dict) and page["hits"] == []
    assert page["hint"]["suggested_filters"] == {}
    assert page["hint"]["matches_without_filters"] is False
    assert "Broaden" in page["hint"]["message"]
    assert "Hint: " in result.content[0].text  # type: ignore[union-attr]


async def test_get_doc_returns_the_chunk_with_its_position(client: Client) -> None:
    hit = (await structured(client, "search_docs", {"query": "backoff strategy", "scope": "global-guide"}))[
        "hits"
    ][0]
    window = await structured(client, "get_doc", {"chunk_id": hit["chunk_id"]})
    assert [c["chunk_id"] for c in window["chunks"]] == [hit["chunk_id"]]
    chunk = window["chunks"][0]
    assert "position_label" not in chunk and 1 <= chunk["position"] <= chunk["total"]
    assert chunk["markdown"].strip()
    assert window["next_cursor"] is None


async def test_get_doc_context_is_clipped_at_the_edges_of_the_file(
    client: Client, docs_index: DocsIndex
) -> None:
    any_id = (await structured(client, "search_docs", {"query": "Retries", "scope": "global-guide"}))["hits"][
        0
    ]
    whole = await structured(client, "get_doc", {"chunk_id": any_id["chunk_id"], "context": 5})
    total = whole["chunks"][0]["total"]
    assert total >= 3, "needs a file of several chunks"
    file_ids = [c["chunk_id"] for c in whole["chunks"]]
    first = await structured(client, "get_doc", {"chunk_id": file_ids[0], "context": 2})
    assert [c["position"] for c in first["chunks"]] == [1, 2, 3][: min(3, total)]
    last_id = (await structured(client, "get_doc", {"chunk_id": file_ids[-1], "context": 5}))["chunks"][-1][
        "chunk_id"
    ]
    last = await structured(client, "get_doc", {"chunk_id": last_id, "context": 1})
    assert [c["position"] for c in last["chunks"]] == [total - 1, total]
    assert all(c["file"] == whole["chunks"][0]["file"] for c in last["chunks"])


async def test_an_unknown_chunk_id_points_to_search_docs_and_close_ids(client: Client) -> None:
    hit = (await structured(client, "search_docs", {"query": "backoff strategy"}))["hits"][0]
    message = await _error(client, "get_doc", {"chunk_id": hit["chunk_id"] + "-typo"})
    assert "search_docs" in message
    assert hit["chunk_id"] in message


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("search_docs", {"query": "x", "lang": "go"}, "unknown argument 'lang'"),
        ("search_docs", {"query": "x", "language": "rust"}, "use one of: go, python, typescript"),
        (
            "search_docs",
            {"query": "x", "limit": 500},
            "limit=500 is out of range; use an integer",
        ),
        ("search_docs", {"query": "   "}, "query must not be blank"),
        ("search_docs", {}, "missing required argument 'query'"),
        ("get_doc", {"chunk_id": "a.md", "context": 9}, "context=9 is out of range"),
        ("get_doc", {"id": "a.md"}, "unknown argument 'id'"),
        ("get_doc", {"context": 1}, "missing required argument 'chunk_id' (or pass 'cursor')"),
        ("search_docs", {"query": "x", "max_tokens": 999}, "max_tokens=999 is out of range"),
        ("get_doc", {"chunk_id": "a.md", "max_tokens": 20001}, "max_tokens=20001 is out of range"),
    ],
)
async def test_invalid_arguments_are_tool_errors_naming_the_field(
    client: Client, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    assert expected in await _error(client, tool, arguments)


async def test_an_unknown_tool_is_a_protocol_error_and_the_server_keeps_serving(client: Client) -> None:
    with pytest.raises(MCPError, match="Unknown tool 'delete_docs'"):
        await client.call_tool("delete_docs", {})
    assert (await structured(client, "search_docs", {"query": "payment"}))["hits"]


async def test_the_legacy_handshake_gets_the_same_tools_and_instructions(docs_index: DocsIndex) -> None:
    async with Client(create_server(docs_index, key=CURSOR_KEY), mode="legacy") as legacy:
        assert "Acme Payments" in (legacy.instructions or "")
        page = await structured(legacy, "search_docs", {"query": "refund", "language": "go"})
    assert page["hits"]


async def test_every_result_field_has_the_type_the_strict_output_schemas_document(client: Client) -> None:
    searched = await structured(client, "search_docs", {"query": "retries backoff", "language": "python"})
    assert searched["hits"]
    Draft202012Validator(search_output_schema(strict=True)).validate(searched)
    window = await structured(client, "get_doc", {"chunk_id": searched["hits"][0]["chunk_id"], "context": 2})
    Draft202012Validator(get_output_schema(strict=True)).validate(window)
