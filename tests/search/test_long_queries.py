"""Long queries (pasted code) are matched on their rarest distinct content words; short ones as written."""

from __future__ import annotations

from pathlib import Path

import lancedb

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.frequencies import WordFrequencies, terms_table
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.query import LONG_QUERY_TERMS, LONG_QUERY_WORDS, is_long, match_terms
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.identifiers import expand_query
from docs_mcp.store.term_table import chunk_words
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


def test_a_long_query_keeps_only_its_rarest_words_in_query_order() -> None:
    words = [f"word{n}" for n in range(LONG_QUERY_TERMS + 10)]
    query = " ".join(words * 2)
    # word0 is the most common, each later word rarer; two words the index lacks count as the rarest
    frequencies = {word: 1000 - n for n, word in enumerate(words) if n not in (3, 4)}
    kept = match_terms(query, frequencies).split()
    assert is_long(query) and len(kept) == LONG_QUERY_TERMS
    assert kept[:2] == ["word3", "word4"]
    assert kept[2:] == words[len(words) - LONG_QUERY_TERMS + 2 :]


def test_frequencies_leave_short_queries_and_few_distinct_words_alone() -> None:
    common = dict.fromkeys(match_terms(PASTED).split(), 10**6)
    assert match_terms("createLink options", common) == "createLink options create link"
    assert len(match_terms(PASTED).split()) <= LONG_QUERY_TERMS
    assert match_terms(PASTED, common) == match_terms(PASTED)


def test_word_frequencies_count_chunks_per_word(tmp_path: Path) -> None:
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs"), out=tmp_path / "out"))
    index = DocsIndex.open(tmp_path / "out")
    frequencies = WordFrequencies(index._async_table).load()
    assert 0 < frequencies["links"] <= index.manifest.chunk_count
    assert all(word == word.lower() for word in frequencies)
    assert frequencies.get("nonexistentword", 0) == 0


def test_the_terms_table_the_build_wrote_counts_what_the_text_column_holds(tmp_path: Path) -> None:
    """Issue 34: the counts come from the build's ``terms`` table, a lookup of one query's words; they
    equal counting the text column (what an index without the table still does), and a long query
    answers the same either way."""
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs"), out=tmp_path / "out"))
    index = DocsIndex.open(tmp_path / "out")
    terms = terms_table(tmp_path / "out")
    assert terms is not None
    looked_up = WordFrequencies(index._async_table, terms).load(PASTED)
    counted = WordFrequencies(index._async_table).load(PASTED)
    words = chunk_words(expand_query(PASTED))
    assert words and {word: looked_up.get(word, 0) for word in words} == {w: counted.get(w, 0) for w in words}
    assert looked_up["links"] == counted["links"] > 0 and looked_up.get("nonexistentword", 0) == 0
    assert len(looked_up) == len(words) + 1  # only the query's words were read, and the one asked
    with_table = [hit.chunk_id for hit in index.search(SearchRequest(PASTED)).hits]
    lancedb.connect(str(tmp_path / "out" / ".lancedb")).drop_table("terms")  # an index from before
    assert terms_table(tmp_path / "out") is None
    assert [
        hit.chunk_id for hit in DocsIndex.open(tmp_path / "out").search(SearchRequest(PASTED)).hits
    ] == with_table
