"""An index built with the offline `local` model is served hybrid: the server re-creates the query
embedder from the index manifest, with no option passed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from docs_mcp.indexing.pipeline import BuildOptions, build

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def local_index(tmp_path_factory: pytest.TempPathFactory, examples_docs: Path) -> Path:
    out = tmp_path_factory.mktemp("local-index") / "out"
    build(BuildOptions(docs_dir=examples_docs, out=out, embedding_provider="local"))
    return out


async def test_a_local_model_index_answers_over_stdio_in_hybrid_mode_with_the_right_section(
    local_index: Path,
) -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(local_index)]
    )
    async with Client(server) as client:
        result = await client.call_tool(
            "search_docs", {"query": "my charge was declined, what went wrong?", "language": "go", "limit": 5}
        )
    assert not result.is_error, result.content
    page = result.structured_content
    assert isinstance(page, dict)
    assert page["mode"] == "hybrid" and page["fallback_reason"] is None
    hits = page["hits"]
    assert all(hit["facets"].get("language") in ("go", None) for hit in hits)
    assert "guides/errors.md#errors/error-types/carderror" in [hit["chunk_id"] for hit in hits], hits


NONSENSE = ["zzzqqq nonexistent frobnicate", "qwxz vbnmk plorf", "blorptastic wibble snorkfest", "asdfghjkl"]


async def test_nonsense_gets_no_hits_in_hybrid_mode_and_real_questions_say_how_they_matched(
    local_index: Path,
) -> None:
    """Hits found by meaning alone must reach the model's floor: gibberish finds nothing (and gets the
    zero-result hint) instead of ten confident-looking sections."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(local_index)]
    )
    async with Client(server) as client:
        for query in NONSENSE:
            result = await client.call_tool("search_docs", {"query": query})
            page = result.structured_content
            assert isinstance(page, dict) and page["mode"] == "hybrid"
            assert page["hits"] == [], (query, page["hits"])
            assert page["hint"] is not None and "Broaden" in page["hint"]["message"]
        result = await client.call_tool("search_docs", {"query": "what happens when my card is declined"})
    page = result.structured_content
    assert isinstance(page, dict) and page["hits"]
    assert {hit["matched"] for hit in page["hits"]} <= {"text", "meaning", "both"}
    assert page["hits"][0]["matched"] == "both"
