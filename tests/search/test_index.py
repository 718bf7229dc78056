"""DocsIndex against a real index built from a small docs tree with language/scope facets."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from docs_mcp.embedding.hash import HashProvider
from docs_mcp.errors import ChunkNotFound, IndexCompatibilityError, IndexUnavailable, QueryError
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import UNFILTERED, SearchRequest
from testkit.index_fixtures import HOSTILE_LANGUAGE, write_docs

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("idx")
    build(BuildOptions(docs_dir=write_docs(root / "docs"), out=root / "out", embedding_provider="hash"))
    return root / "out"


@pytest.fixture(scope="module")
def index(built: Path) -> DocsIndex:
    return DocsIndex.open(built)


@pytest.fixture(scope="module")
def fts_index(tmp_path_factory: pytest.TempPathFactory) -> DocsIndex:
    root = tmp_path_factory.mktemp("fts")
    build(BuildOptions(docs_dir=write_docs(root / "docs"), out=root / "out"))
    return DocsIndex.open(root / "out")


def _ids(index: DocsIndex, query: str, **filters: str) -> list[str]:
    return [hit.chunk_id for hit in index.search(SearchRequest(query, filters=filters, limit=50)).hits]


def test_facets_list_every_value_present(index: DocsIndex) -> None:
    assert index.facets == {
        "language": sorted(["python", "typescript", HOSTILE_LANGUAGE]),
        "scope": ["global-guide", "sdk-specific"],
    }


@pytest.mark.parametrize("mode", ["fulltext", "vector", "hybrid"])
def test_a_language_filter_never_returns_another_languages_chunks(index: DocsIndex, mode: str) -> None:
    page = index.search(
        SearchRequest("retry configuration", filters={"language": "python"}, limit=50, mode=mode)
    )  # type: ignore[arg-type]
    assert page.hits
    for hit in page.hits:
        assert hit.facets.get("language") in (None, "python")
        assert hit.facets.get("language") == "python" or hit.facets["scope"] == "global-guide"


def test_language_without_scope_auto_includes_global_guides(index: DocsIndex) -> None:
    ids = _ids(index, "retries backoff", language="typescript")
    assert "guides/retries.md#retries/backoff-strategy" in ids
    assert "typescript/links.md#links/retry-configuration" in ids
    assert not [cid for cid in ids if cid.startswith(("python/", "hostile/"))]


def test_an_explicit_scope_is_respected_exactly(index: DocsIndex) -> None:
    ids = _ids(index, "retries backoff", language="typescript", scope="sdk-specific")
    assert ids and all(cid.startswith("typescript/") for cid in ids)
    guides = _ids(index, "retries", scope="global-guide")
    assert guides and all(cid.startswith("guides/") for cid in guides)


def test_an_unknown_facet_or_absent_value_is_a_query_error_naming_the_choices(index: DocsIndex) -> None:
    with pytest.raises(QueryError, match="available filters: language, scope"):
        index.search(SearchRequest("x", filters={"lang": "python"}))
    with pytest.raises(QueryError, match="language is one of"):
        index.search(SearchRequest("x", filters={"language": "python' OR '1'='1"}))


def test_sql_hostile_facet_values_filter_exactly(index: DocsIndex) -> None:
    ids = _ids(index, "retries", language=HOSTILE_LANGUAGE, scope="sdk-specific")
    assert ids == ["hostile/odd.md#odd/quotes-and-backslashes"]


@pytest.mark.parametrize(
    "query",
    [
        "O'Reilly's",
        "'; DROP TABLE chunks; --",
        "back\\slash \\\\ paths",
        "ünïcode",
        '"unbalanced',
        "AND OR NOT *",
    ],
)
def test_sql_hostile_queries_search_without_error(index: DocsIndex, query: str) -> None:
    page = index.search(SearchRequest(query, mode="fulltext"))
    assert page.mode == "fulltext"
    assert all(hit.chunk_id for hit in page.hits)


@pytest.mark.parametrize("query", ["", "   ", "x" * 1001])
def test_a_blank_or_overlong_query_is_refused_before_it_reaches_the_index(query: str) -> None:
    with pytest.raises(QueryError, match="query"):
        SearchRequest(query)


@pytest.mark.parametrize(
    ("limit", "offset"), [(0, 0), (51, 0), (10, -1), (True, 0), (10, 10_001), (10, 2**63)]
)
def test_a_page_outside_the_limits_is_refused_when_the_request_is_made(limit: int, offset: int) -> None:
    with pytest.raises(QueryError, match=r"limit|offset"):
        SearchRequest("retries", limit=limit, offset=offset)


def test_hostile_query_text_still_finds_its_words(index: DocsIndex) -> None:
    assert _ids(index, "O'Reilly's ünïcode")[0] == "hostile/odd.md#odd/quotes-and-backslashes"


@pytest.mark.parametrize(
    "query", ["create link", "createLink", "create_link", "links.create", "CreateLinkRequest"]
)
def test_identifiers_are_found_however_they_are_typed(fts_index: DocsIndex, query: str) -> None:
    ids = _ids(fts_index, query)[:3]
    assert "python/links.md#links/create-a-link" in ids
    assert "typescript/links.md#links/create-a-link" in ids


def test_an_index_without_vectors_searches_full_text_and_says_so_only_when_vectors_were_asked(
    fts_index: DocsIndex,
) -> None:
    assert fts_index.search(SearchRequest("retries")).fallback_reason is None
    page = fts_index.search(SearchRequest("retries", mode="hybrid"))
    assert page.mode == "fulltext"
    assert page.fallback_reason is not None and "no vectors" in page.fallback_reason
    assert page.hits


class _FailingEmbedder(HashProvider):
    def embed_query(self, text: str) -> list[float]:
        from docs_mcp.errors import EmbeddingError

        raise EmbeddingError("the embedding server is down")


def test_a_failing_query_embedder_falls_back_to_full_text_with_a_flag(built: Path) -> None:
    index = DocsIndex.open(built, query_embedder=_FailingEmbedder())
    page = index.search(SearchRequest("retries backoff"))
    assert page.mode == "fulltext"
    assert page.fallback_reason is not None and "server is down" in page.fallback_reason
    assert page.hits


def test_a_query_embedder_of_another_size_is_refused(built: Path) -> None:
    with pytest.raises(IndexCompatibilityError, match="64 dimensions"):
        DocsIndex.open(built, query_embedder=HashProvider(dimensions=32))


def test_hybrid_is_the_default_when_the_index_has_vectors(index: DocsIndex) -> None:
    page = index.search(SearchRequest("exponential backoff jitter"))
    assert page.mode == "hybrid" and page.fallback_reason is None
    assert page.hits[0].chunk_id == "guides/retries.md#retries/backoff-strategy"


@pytest.mark.parametrize("mode", ["fulltext", "hybrid"])
def test_pages_are_stable_and_do_not_overlap(index: DocsIndex, mode: str) -> None:
    full = index.search(SearchRequest("retries link", limit=8, mode=mode))  # type: ignore[arg-type]
    first = index.search(SearchRequest("retries link", limit=4, mode=mode))  # type: ignore[arg-type]
    second = index.search(SearchRequest("retries link", limit=4, offset=4, mode=mode))  # type: ignore[arg-type]
    assert [h.chunk_id for h in first.hits + second.hits] == [h.chunk_id for h in full.hits]
    assert first.has_more
    scores = [(-h.score, h.chunk_id) for h in full.hits]
    assert scores == sorted(scores)


def test_snippets_keep_case_and_show_the_query_terms(index: DocsIndex) -> None:
    hit = index.search(
        SearchRequest("CreateLinkRequest", filters={"language": "typescript"}, mode="fulltext")
    ).hits[0]
    assert "CreateLinkRequest" in hit.snippet and "TypeScript" in hit.snippet


def test_get_returns_the_chunk_with_its_neighbours_in_file_order(index: DocsIndex) -> None:
    window = index.get("python/links.md#links/delete-a-link", context=1)
    assert [v.chunk_id for v in window.chunks] == [
        "python/links.md#links/create-a-link",
        "python/links.md#links/delete-a-link",
        "python/links.md#links/retry-configuration",
    ]
    middle = window.chunks[1]
    assert (middle.position, middle.total) == (2, 3)
    assert middle.markdown.startswith("## Delete a link")
    assert middle.facets == {"language": "python", "scope": "sdk-specific"}


def test_get_of_an_unknown_id_suggests_close_ids(index: DocsIndex) -> None:
    with pytest.raises(ChunkNotFound) as raised:
        index.get("python/links.md#links/delete-link")
    assert "python/links.md#links/delete-a-link" in raised.value.close_ids


def test_suggest_filters_names_the_values_where_the_query_matches(index: DocsIndex) -> None:
    suggestions = index.suggest_filters("TypeScript", {"language": "python", "scope": "sdk-specific"})
    assert suggestions["language"] == ["typescript"]
    assert UNFILTERED in suggestions
    assert index.suggest_filters("zzzunfindable", {}) == {}


def test_a_missing_index_says_to_run_build(tmp_path: Path) -> None:
    with pytest.raises(IndexUnavailable, match="docs-mcp build"):
        DocsIndex.open(tmp_path)


def test_searches_from_many_threads_agree(index: DocsIndex) -> None:
    expected = _ids(index, "retries backoff")
    results: list[list[str]] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(5):
                results.append(_ids(index, "retries backoff"))
        except BaseException as error:  # collected and re-raised in the test thread
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    assert results == [expected] * 20
