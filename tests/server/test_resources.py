"""MCP resources: the ``mcp_resource`` sections listed, paged and read through real MCP clients."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from server_support import CURSOR_KEY, serve_command, server_env

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.app import create_server
from docs_mcp.server.tools.resources import PAGE_SIZE, resource_uri
from testkit.index_fixtures import write_docs

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


@pytest.fixture
async def client(docs_index: DocsIndex) -> AsyncIterator[Client]:
    async with Client(create_server(docs_index, key=CURSOR_KEY)) as connected:
        yield connected


async def _listed(client: Client) -> list[types.Resource]:
    """Every listed resource, page after page."""
    resources: list[types.Resource] = []
    cursor: str | None = None
    while True:
        page = await client.list_resources(cursor=cursor)
        resources += page.resources
        cursor = page.next_cursor
        if cursor is None:
            return resources


async def test_the_marked_values_sections_are_listed_with_heading_breadcrumb_and_type(
    client: Client, docs_index: DocsIndex
) -> None:
    assert client.server_capabilities.resources is not None
    resources = await _listed(client)
    assert docs_index.resource_values == {"scope": ["global-guide"]}
    assert [r.name for r in resources] == docs_index.resource_ids()
    sections = {s.chunk_id: s for s in docs_index.sections(docs_index.resource_ids())}
    assert resources and all(sections[r.name].facets["scope"] == "global-guide" for r in resources)
    backoff = next(r for r in resources if r.name == "guides/retries.md#retries/backoff-strategy")
    assert backoff.uri == "docs://guides/retries.md%23retries/backoff-strategy"
    assert backoff.title == "Backoff strategy"
    assert backoff.description is not None and backoff.description.startswith("Retries")
    assert {r.mime_type for r in resources} == {"text/markdown"}


async def test_reading_a_resource_returns_its_markdown(client: Client, docs_index: DocsIndex) -> None:
    chunk_id = docs_index.resource_ids()[0]
    read = await client.read_resource(resource_uri(chunk_id))
    content = read.contents[0]
    assert isinstance(content, types.TextResourceContents)
    assert content.mime_type == "text/markdown"
    assert content.text == docs_index.get(chunk_id).chunks[0].markdown


async def test_the_template_reads_any_section_even_unlisted_and_unencoded(
    client: Client, docs_index: DocsIndex
) -> None:
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["docs://{chunk_id}"]
    sdk_chunk = next(
        h.chunk_id for h in docs_index.sections(["sdks/python/README.md#acme-payments-python-sdk/retries"])
    )
    assert sdk_chunk not in docs_index.resource_ids()
    read = await client.read_resource("docs://" + sdk_chunk)  # the raw id, "#" and all
    assert "retr" in read.contents[0].text.lower()  # type: ignore[union-attr]


@pytest.mark.parametrize("uri", ["docs://guides/nothing.md%23x", "https://example.com/a.md", "docs://"])
async def test_an_unknown_resource_is_an_invalid_params_error(client: Client, uri: str) -> None:
    with pytest.raises(MCPError, match="Unknown resource") as caught:
        await client.read_resource(uri)
    assert caught.value.error.code == types.INVALID_PARAMS


async def test_a_tampered_or_foreign_list_cursor_is_refused(tmp_path: Path) -> None:
    index = _many_resources(tmp_path)
    async with Client(create_server(index, key=CURSOR_KEY)) as many:
        cursor = (await many.list_resources()).next_cursor
        assert cursor is not None
        with pytest.raises(MCPError, match="cursor"):
            await many.list_resources(cursor=cursor[:-2] + "AA")
        search = await many.call_tool("search_docs", {"query": "section", "limit": 1})
        assert isinstance(search.structured_content, dict)
        with pytest.raises(MCPError, match="not a resources cursor"):
            await many.list_resources(cursor=search.structured_content["next_cursor"])


def _many_resources(tmp_path: Path) -> DocsIndex:
    sections = "".join(f"## Section {n}\n\nText of section {n}.\n\n" for n in range(1, 2 * PAGE_SIZE + 31))
    manifest = (
        '{"version": "1", "metadata": {"kind": "guide"}, '
        '"taxonomy": {"kind": {"properties": {"guide": {"mcp_resource": true}}}}}'
    )
    docs = write_docs(tmp_path / "docs", {".docs-mcp.json": manifest, "guide.md": "# Guide\n\n" + sections})
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    return DocsIndex.open(tmp_path / "out")


async def test_the_list_is_paged_and_each_resource_listed_once(tmp_path: Path) -> None:
    index = _many_resources(tmp_path)
    async with Client(create_server(index, key=CURSOR_KEY)) as many:
        first = await many.list_resources()
        assert len(first.resources) == PAGE_SIZE and first.next_cursor
        resources = await _listed(many)
    names = [r.name for r in resources]
    assert len(names) == len(set(names)) == len(index.resource_ids()) > 2 * PAGE_SIZE
    assert names == index.resource_ids()  # file order


async def test_without_a_marked_value_the_server_offers_no_resources(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", {"a.md": "# A\n\n## One\n\nText.\n"})
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    async with Client(create_server(DocsIndex.open(tmp_path / "out"), key=CURSOR_KEY)) as plain:
        assert plain.server_capabilities.resources is None
        with pytest.raises(MCPError, match="Method not found"):
            await plain.list_resources()
        assert (await plain.list_tools()).tools


async def test_resources_are_listed_and_read_over_stdio(example_index: Path) -> None:
    command = serve_command(example_index)
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=server_env())
    async with Client(parameters) as stdio:
        resources = (await stdio.list_resources()).resources
        assert resources
        read = await stdio.read_resource(resources[0].uri)
        assert read.contents[0].text.strip()  # type: ignore[union-attr]
