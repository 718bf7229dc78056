"""Issue 15 through a real MCP client: folded hits, inferred filters and cursor-only continuation."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from server_support import CURSOR_KEY

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.app import create_server
from docs_mcp.server.tools.cursor import SEARCH, CursorCodec
from docs_mcp.server.tools.tool_schema import search_output_schema
from testkit.index_fixtures import SDK_FILES, write_docs

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture(scope="module")
def sdk_index(tmp_path_factory: pytest.TempPathFactory) -> DocsIndex:
    root = tmp_path_factory.mktemp("sdk")
    build(BuildOptions(docs_dir=write_docs(root / "docs", SDK_FILES), out=root / "out"))
    return DocsIndex.open(root / "out")


@pytest.fixture
async def client(sdk_index: DocsIndex) -> AsyncIterator[Client]:
    async with Client(create_server(sdk_index, key=CURSOR_KEY)) as connected:
        yield connected


async def _search(client: Client, **arguments: Any) -> tuple[dict[str, Any], str]:
    result = await client.call_tool("search_docs", arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    Draft202012Validator(search_output_schema(strict=True)).validate(result.structured_content)
    return result.structured_content, result.content[0].text  # type: ignore[union-attr]


async def _error(client: Client, **arguments: Any) -> str:
    result = await client.call_tool("search_docs", arguments)
    assert result.is_error
    return result.content[0].text  # type: ignore[union-attr]


async def test_a_folded_hit_lists_its_other_languages_for_get_doc(client: Client) -> None:
    page, text = await _search(client, query="Foo widget model fields")
    hit = next(h for h in page["hits"] if h.get("also_in"))
    assert {v["value"] for v in hit["also_in"]} | {hit["facets"]["language"]} == {"go", "java", "python"}
    assert all(v["chunk_id"] in text for v in hit["also_in"])
    for variant in hit["also_in"]:
        window = await client.call_tool("get_doc", {"chunk_id": variant["chunk_id"]})
        assert not window.is_error
    filtered, _ = await _search(client, query="Foo widget model fields", language="go")
    assert not any(h.get("also_in") for h in filtered["hits"])


async def test_a_language_named_in_the_query_is_reported_and_ranked_first(client: Client) -> None:
    page, text = await _search(client, query="retry configuration in golang")
    assert page["inferred_filters"] == {"language": "go"}
    assert page["filters"] == {}
    assert page["hits"][0]["facets"]["language"] == "go"
    assert "language=go" in text and "Pass language=go as arguments" in text
    explicit, _ = await _search(client, query="retry configuration in golang", language="java")
    assert explicit["inferred_filters"] == {}
    assert {h["facets"].get("language", "java") for h in explicit["hits"]} == {"java"}


async def test_a_cursor_alone_continues_the_search(client: Client) -> None:
    first, _ = await _search(client, query="widget operation", scope="sdk-specific", limit=3)
    cursor = first["next_cursor"]
    alone, _ = await _search(client, cursor=cursor)
    repeated, _ = await _search(client, query="widget operation", scope="sdk-specific", cursor=cursor)
    with_limit, _ = await _search(client, cursor=cursor, limit=3)
    assert alone == repeated == with_limit
    assert alone["query"] == "widget operation" and alone["filters"] == {"scope": "sdk-specific"}
    assert alone["offset"] == 3 and len(alone["hits"]) == 3
    assert not {h["chunk_id"] for h in alone["hits"]} & {h["chunk_id"] for h in first["hits"]}
    seen = [h["chunk_id"] for h in first["hits"] + alone["hits"]]
    page = alone
    while page["next_cursor"]:
        page, _ = await _search(client, cursor=page["next_cursor"])
        seen += [h["chunk_id"] for h in page["hits"]]
    everything, _ = await _search(client, query="widget operation", scope="sdk-specific", limit=50)
    assert seen == [h["chunk_id"] for h in everything["hits"]]


@pytest.mark.parametrize(
    ("repeated", "expected"),
    [
        ({"query": "widget operation"}, "different query or different filters"),  # filters left out
        ({"scope": "global-guide"}, "different query or different filters"),
        ({"query": "retries", "scope": "sdk-specific"}, "different query or different filters"),
        ({"limit": 4}, "limit=3"),
    ],
)
async def test_what_a_request_repeats_with_a_cursor_must_match_it(
    client: Client, repeated: dict[str, Any], expected: str
) -> None:
    first, _ = await _search(client, query="widget operation", scope="sdk-specific", limit=3)
    assert expected in await _error(client, cursor=first["next_cursor"], **repeated)


async def test_a_stale_a_foreign_and_a_garbled_cursor_alone_are_refused(
    client: Client, sdk_index: DocsIndex, tmp_path: Path
) -> None:
    async with Client(create_server(sdk_index, key=b"another-key")) as other:
        foreign = (await _search(other, query="widget operation", limit=2))[0]["next_cursor"]
    assert "another server" in await _error(client, cursor=foreign)
    docs = write_docs(tmp_path / "docs", {**SDK_FILES, "guides/new.md": "# New\n\n## Widget operation 9\n"})
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    async with Client(create_server(DocsIndex.open(tmp_path / "out"), key=CURSOR_KEY)) as rebuilt:
        old = (await _search(client, query="widget operation", limit=2))[0]["next_cursor"]
        assert "stale" in await _error(rebuilt, cursor=old)
    assert "malformed" in await _error(client, cursor=old + "=")
    assert "missing required argument 'query'" in await _error(client, limit=3)


async def test_zero_result_hints_still_come_with_inference_and_folding(client: Client) -> None:
    page, _ = await _search(client, query="xylophonequartz for the jvm")
    assert page["hits"] == [] and page["inferred_filters"] == {"language": "java"}
    assert page["hint"] is not None and "Broaden" in page["hint"]["message"]
    filtered, _ = await _search(client, query="dataclass", language="go")
    assert filtered["hits"] == []
    assert filtered["hint"]["suggested_filters"].get("language") == ["python"]


@pytest.mark.parametrize("offset", [True, 2**63, -1])
async def test_a_signed_cursor_with_an_offset_out_of_range_is_a_clear_tool_error(
    client: Client, sdk_index: DocsIndex, offset: object
) -> None:
    # What a server holding the key could sign by mistake; found by fuzzing (2**63 was an internal error).
    forged = CursorCodec(CURSOR_KEY, sdk_index.identity).seal(
        SEARCH, {"q": "widget", "f": {}, "m": None, "o": offset, "l": 3}
    )
    assert "malformed" in await _error(client, cursor=forged)
