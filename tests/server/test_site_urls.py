"""Page URLs over MCP: a site's hits and chunks carry ``url`` in structured content and text, and the
strict output schemas accept them; an index without URLs (plain markdown) has none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from server_support import CURSOR_KEY

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.app import create_server
from docs_mcp.server.tools.tool_schema import get_output_schema, search_output_schema

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]

PAGES = {
    "index.md": "# Acme\n\nAcme sends invoices.\n",
    "guide/retries.md": "# Retries\n\n## Backoff strategy\n\n!!! tip\n    Retry with exponential backoff.\n",
}


async def _call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content, result.content[0].text  # type: ignore[union-attr]


async def test_hits_and_chunks_carry_the_page_url_with_its_anchor(tmp_path: Path) -> None:
    docs = tmp_path / "site" / "docs"
    for path, text in PAGES.items():
        (docs / path).parent.mkdir(parents=True, exist_ok=True)
        (docs / path).write_text(text, encoding="utf-8")
    (tmp_path / "site" / "mkdocs.yml").write_text("site_name: Acme\nsite_url: https://acme.dev/\n")
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    async with Client(create_server(DocsIndex.open(tmp_path / "out"), key=CURSOR_KEY)) as client:
        searched, text = await _call(client, "search_docs", {"query": "exponential backoff"})
        Draft202012Validator(search_output_schema(strict=True)).validate(searched)
        hit = searched["hits"][0]
        assert hit["url"] == "https://acme.dev/guide/retries/#backoff-strategy"
        assert "   url: https://acme.dev/guide/retries/#backoff-strategy" in text
        assert "!!!" not in text and "Tip:" in text
        window, shown = await _call(client, "get_doc", {"chunk_id": hit["chunk_id"]})
        Draft202012Validator(get_output_schema(strict=True)).validate(window)
        assert window["chunks"][0]["url"] == hit["url"] and f"url: {hit['url']}\n" in shown


async def test_a_plain_folder_has_no_urls(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome backoff words.\n", encoding="utf-8")
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    async with Client(create_server(DocsIndex.open(tmp_path / "out"), key=CURSOR_KEY)) as client:
        searched, text = await _call(client, "search_docs", {"query": "backoff"})
    assert searched["hits"] and all("url" not in hit for hit in searched["hits"]) and "url:" not in text
