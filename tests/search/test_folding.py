"""Cross-language folding: the same section in several languages is one hit listing the others."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.folding import HitRow, fold, path_words
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest, Section
from testkit.index_fixtures import SDK_FILES, write_docs

pytestmark = pytest.mark.timeout(120)

NAMES = path_words(
    {"language": {v: [v] for v in ("go", "java", "python", "typescript")} | {"go": ["go", "golang"]}}
)


def _row(path: str, language: str | None, **others: str) -> HitRow:
    facets = {**others, **({"language": language} if language else {})}
    return HitRow(path, facets)


def _fold(hits: list[tuple[str, HitRow]]) -> list[tuple[str, list[str]]]:
    ranked = [(f"{row.file_path}#{fragment}" if fragment else row.file_path, 1.0) for fragment, row in hits]
    rows = {cid: row for (cid, _), (_, row) in zip(ranked, hits, strict=True)}
    return [
        (hit.chunk_id, [v.chunk_id for v in hit.also_in]) for hit in fold(ranked, rows, ["language"], NAMES)
    ]


def test_generator_layouts_fold_when_name_heading_and_part_match_without_case() -> None:
    folded = _fold(
        [
            ("foo/fields", _row("java/docs/models/components/Foo.md", "java")),
            ("foo/fields", _row("python/docs/models/foo.md", "python")),
            ("foo/fields", _row("go/docs/models/components/foo.md", "go")),
        ]
    )
    assert folded == [
        (
            "java/docs/models/components/Foo.md#foo/fields",
            ["python/docs/models/foo.md#foo/fields", "go/docs/models/components/foo.md#foo/fields"],
        )
    ]


def test_the_value_is_taken_out_of_headings_and_a_title_only_one_side_has_is_ignored() -> None:
    folded = _fold(
        [
            ("acme-python-client/retries", _row("python/README.md", "python")),
            ("acme-typescript-client/retries", _row("typescript/README.md", "typescript")),
            ("retries", _row("java/README.md", "java")),
            ("githubcomacmeacme-go/retries", _row("go/README.md", "go")),
        ]
    )
    assert [len(also) for _, also in folded] == [3]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            ("links/create", _row("python/README.md", "python")),
            ("domains/create", _row("go/README.md", "go")),
        ),
        (("foo/fields", _row("python/foo.md", "python")), ("foo/fields-part-2", _row("go/foo.md", "go"))),
        (("foo/fields", _row("python/foo.md", "python")), ("foo/fields", _row("go/bar.md", "go"))),
        (
            ("foo/fields", _row("a/foo.md", "python", api="a")),
            ("foo/fields", _row("b/foo.md", "go", api="b")),
        ),
        (("foo/fields", _row("a/foo.md", "python")), ("foo/fields", _row("b/foo.md", "python"))),
        (("foo/fields", _row("a/foo.md", None)), ("foo/fields", _row("b/foo.md", "go"))),
    ],
    ids=["other titles", "other part", "other file", "other api", "same language", "no language"],
)
def test_different_sections_never_fold(first: tuple[str, HitRow], second: tuple[str, HitRow]) -> None:
    assert [len(also) for _, also in _fold([first, second])] == [0, 0]


def test_a_hit_prefers_a_hit_without_its_value_then_the_closest_folders() -> None:
    folded = _fold(
        [
            ("x", _row("python/docs/models/utils/retryconfig.md", "python")),
            ("x", _row("python/packages/azure/docs/models/utils/retryconfig.md", "python")),
            ("x", _row("typescript/packages/azure/docs/lib/utils/retryconfig.md", "typescript")),
            ("x", _row("typescript/docs/lib/utils/retryconfig.md", "typescript")),
        ]
    )
    assert folded == [
        (
            "python/docs/models/utils/retryconfig.md#x",
            ["typescript/docs/lib/utils/retryconfig.md#x"],
        ),
        (
            "python/packages/azure/docs/models/utils/retryconfig.md#x",
            ["typescript/packages/azure/docs/lib/utils/retryconfig.md#x"],
        ),
    ]


def test_copies_in_one_language_never_leave_a_section_shown_in_two_languages() -> None:
    # The main client and its GCP copy, in both languages, ranked so that pairs cross.
    folded = _fold(
        [
            ("fim/overview", _row("typescript/packages/gcp/docs/sdks/fim/README.md", "typescript")),
            ("fim/overview", _row("python/docs/sdks/fim/README.md", "python")),
            ("fim/overview", _row("python/packages/gcp/docs/sdks/fim/README.md", "python")),
            ("fim/overview", _row("typescript/docs/sdks/fim/README.md", "typescript")),
        ]
    )
    assert folded == [
        (
            "typescript/packages/gcp/docs/sdks/fim/README.md#fim/overview",
            [
                "python/docs/sdks/fim/README.md#fim/overview",
                "python/packages/gcp/docs/sdks/fim/README.md#fim/overview",
            ],
        ),
        ("typescript/docs/sdks/fim/README.md#fim/overview", []),  # a copy in the same language
    ]


# -- on a real index ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sdk_index(tmp_path_factory: pytest.TempPathFactory) -> DocsIndex:
    root = tmp_path_factory.mktemp("sdk")
    build(BuildOptions(docs_dir=write_docs(root / "docs", SDK_FILES), out=root / "out"))
    return DocsIndex.open(root / "out")


def _hits(index: DocsIndex, query: str, **filters: str) -> list[Section]:
    return index.search(SearchRequest(query, filters=filters, limit=50)).hits


def _all(index: DocsIndex, query: str, limit: int = 50) -> list[Section]:
    """Every hit, page after page."""
    hits: list[Section] = []
    more = True
    while more:
        page = index.search(SearchRequest(query, limit=limit, offset=len(hits)))
        hits += page.hits
        more = page.has_more
    return hits


def test_the_index_manifest_records_which_facets_fold(sdk_index: DocsIndex) -> None:
    assert sdk_index.collapse_facets == ["language"]
    assert sdk_index.manifest.taxonomy["language"].aliases == {"java": ["jvm"]}


def test_without_a_language_one_section_in_four_languages_is_one_hit(sdk_index: DocsIndex) -> None:
    retry = [
        h for h in _hits(sdk_index, "retry configuration backoff") if h.chunk_id.endswith("configuration")
    ]
    folded = next(h for h in retry if h.also_in)
    languages = {folded.facets["language"], *(v.value for v in folded.also_in if v.facet == "language")}
    assert languages == {"go", "java", "python", "typescript"}
    # README-PYPI (the same language) is no language variant: it folds in as a copy of the Python
    # README's section (issue 31); the other API's README is another section.
    copies = [v for v in folded.also_in if v.facet == "copy"]
    assert [v.chunk_id for v in copies] == ["python/README-PYPI.md#retry-configuration"]
    assert {v.facet for v in folded.also_in} == {"language", "copy"}
    assert {h.chunk_id for h in retry if not h.also_in} == {"other/README.md#retry-configuration"}
    # It is the best-scoring of the four: the scores before folding say so.
    unfolded = DocsIndex.open(sdk_index.path, config=replace(SearchConfig(), fold=False))
    scores = {h.chunk_id: h.score for h in _all(unfolded, "retry configuration backoff")}
    assert folded.score == max(
        scores[cid] for cid in [folded.chunk_id, *(v.chunk_id for v in folded.also_in)]
    )


def test_the_folded_variants_are_real_chunk_ids_get_can_read(sdk_index: DocsIndex) -> None:
    hit = next(h for h in _hits(sdk_index, "Foo widget model fields") if h.also_in)
    for variant in hit.also_in:
        assert sdk_index.get(variant.chunk_id).chunks[0].facets["language"] == variant.value


def test_with_the_language_set_nothing_folds(sdk_index: DocsIndex) -> None:
    hits = _hits(sdk_index, "retry configuration backoff", language="go")
    assert hits and not any(h.also_in for h in hits)
    assert {h.facets.get("language", "go") for h in hits} == {"go"}


def test_pages_are_stable_and_count_a_folded_hit_once(sdk_index: DocsIndex) -> None:
    whole = _all(sdk_index, "widget operation")
    raw = _all(DocsIndex.open(sdk_index.path, config=replace(SearchConfig(), fold=False)), "widget operation")
    for limit in (1, 3, 7):
        paged = _all(sdk_index, "widget operation", limit)
        assert [h.chunk_id for h in paged] == [h.chunk_id for h in whole]
        assert [h.also_in for h in paged] == [h.also_in for h in whole]
    shown = [h.chunk_id for h in whole] + [v.chunk_id for h in whole for v in h.also_in]
    assert len(shown) == len(set(shown))
    assert set(shown) == {h.chunk_id for h in raw}
    assert len(whole) < len(raw)


def test_an_index_whose_taxonomy_does_not_fold_is_unchanged(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", SDK_FILES)
    manifest = (docs / ".docs-mcp.json").read_text().replace('"vector_collapse": true, ', "")
    (docs / ".docs-mcp.json").write_text(manifest)
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    index = DocsIndex.open(tmp_path / "out")
    assert index.collapse_facets == []
    # Nothing folds across languages; only copies within one (README-PYPI, issue 31) do.
    assert {v.facet for h in _hits(index, "retry configuration backoff") for v in h.also_in} == {"copy"}


@pytest.fixture(scope="module")
def sdk_hybrid(tmp_path_factory: pytest.TempPathFactory) -> DocsIndex:
    root = tmp_path_factory.mktemp("sdk-hybrid")
    docs = write_docs(root / "docs", SDK_FILES)
    build(BuildOptions(docs_dir=docs, out=root / "out", embedding_provider="hash"))
    return DocsIndex.open(root / "out")


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_hybrid_and_vector_rankings_fold_and_page_the_same_way(sdk_hybrid: DocsIndex, mode: str) -> None:
    whole = sdk_hybrid.search(SearchRequest("retry configuration", limit=50, mode=mode))  # type: ignore[arg-type]
    assert whole.mode == mode
    assert any(sum(v.facet == "language" for v in h.also_in) == 3 for h in whole.hits)
    paged: list[Section] = []
    while len(paged) < len(whole.hits):
        page = sdk_hybrid.search(SearchRequest("retry configuration", limit=4, offset=len(paged), mode=mode))  # type: ignore[arg-type]
        paged += page.hits
    assert [h.chunk_id for h in paged] == [h.chunk_id for h in whole.hits]


def test_a_fallback_to_full_text_still_folds_and_says_why(sdk_index: DocsIndex) -> None:
    page = sdk_index.search(SearchRequest("retry configuration", mode="hybrid"))
    assert page.mode == "fulltext" and page.fallback_reason and "no vectors" in page.fallback_reason
    assert any(h.also_in for h in page.hits)
