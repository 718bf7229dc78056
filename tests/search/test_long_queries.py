"""Long queries (pasted code) are matched on their distinct content words; short ones as written."""

from __future__ import annotations

from pathlib import Path

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.query import LONG_QUERY_WORDS, match_terms
from docs_mcp.search.types import SearchRequest
from testkit.index_fixtures import write_docs

PASTED = (
    "from acme import Client\nclient = Client(api_key=KEY)\n"
    + "for link in client.links.list():\n    client.links.delete(link.id)\n" * 8
    + "result = sdk.links.create_link(url)  # shorten the URL\n"
)


def test_a_short_query_is_matched_as_written() -> None:
    assert match_terms("how do I retry the request with backoff") == "how do I retry the request with backoff"
    assert match_terms("createLink options") == "createLink options create link"


def test_a_long_query_keeps_each_content_word_once_in_order() -> None:
    terms = match_terms(PASTED).split()
    assert len(PASTED.split()) > LONG_QUERY_WORDS
    assert len(terms) == len(set(terms))
    assert terms[:4] == ["acme", "import", "client", "api"]
    assert "the" not in terms and "for" not in terms and "create" in terms and "shorten" in terms


def test_pasted_code_still_finds_the_section_it_comes_from(tmp_path: Path) -> None:
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs"), out=tmp_path / "out"))
    hits = DocsIndex.open(tmp_path / "out").search(SearchRequest(PASTED)).hits
    assert hits and hits[0].chunk_id.startswith("python/links.md#")
