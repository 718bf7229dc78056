"""Searches rank the leads of each group of copies only (``store.columns.COPY_LEAD_COLUMN``) and list
a page's copies with one lookup: the same hits as ranking every copy, and a filter that lets only
copies through still finds them (issue 34)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import lancedb
import pytest

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search import lance, ranking
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest, Section
from docs_mcp.store.columns import COPY_COLUMN, COPY_LEAD_COLUMN, LANCEDB_DIR, TABLE_NAME
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(300)

COPIES = 40
GUIDE = (
    "# Guide\n\n## Retries\n\nRetry a failed request with exponential backoff: the first wait, the longest "
    "wait and the factor between them.\n\n## Webhooks\n\nRegister a webhook URL to receive signed events.\n"
)
OTHERS = {
    "other/timeouts.md": "# Timeouts\n\n## Request timeout\n\nA request that waits too long is retried.\n",
    "other/errors.md": "# Errors\n\n## Rate limits\n\nA rate-limited request is retried after a backoff.\n",
}

README = (
    "# Acme Client\n\n## Background\n\nPass a RetryConfig to retry failed calls with exponential backoff: "
    "the initial interval, the maximum interval and the exponent.\n"
)
PACKAGE = (
    "# Acme on {cloud}\n\n## Background\n\nThe {cloud} deployment retries throttled requests by itself; give "
    "the client a backoff strategy object to change how long it keeps trying.\n"
)


BACKGROUND = "Background"


def _manifest(**extra: object) -> str:
    return json.dumps({"version": "1", "strategy": {"chunk_by": "h2"}, **extra})


def clouds_docs(root: Path) -> Path:
    """The main README (cloud ``any``) and two packages' READMEs declared its copies, each of another
    cloud; Azure's has a PyPI twin (a copy found by its text)."""
    rules = [
        {"pattern": "packages/azure/**", "metadata": {"cloud": "azure"}},
        {"pattern": "packages/gcp/**", "metadata": {"cloud": "gcp"}},
        {"pattern": "packages/*/README.md", "copy_of": "README.md"},
    ]
    return write_docs(
        root,
        {
            ".docs-mcp.json": _manifest(metadata={"cloud": "any"}, overrides=rules),
            "README.md": README,
            "packages/azure/README.md": PACKAGE.format(cloud="Azure"),
            "packages/azure/README-PYPI.md": PACKAGE.format(cloud="Azure"),
            "packages/gcp/README.md": PACKAGE.format(cloud="GCP"),
        },
    )


@pytest.fixture(scope="module")
def copied(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A guide copied ``COPIES`` times (each copy in its own folder) and two other pages, built."""
    root = tmp_path_factory.mktemp("copied")
    files = {f"copy-{n:02}/guide.md": GUIDE for n in range(COPIES)}
    build(BuildOptions(docs_dir=write_docs(root / "docs", {**files, **OTHERS}), out=root / "out"))
    return root / "out"


@pytest.fixture(scope="module")
def clouds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("clouds")
    build(BuildOptions(docs_dir=clouds_docs(root / "docs"), out=root / "out"))
    return root / "out"


def _column(out: Path, name: str) -> dict[str, object]:
    table = lancedb.connect(str(out / LANCEDB_DIR)).open_table(TABLE_NAME)
    read = table.search().select(["id", name]).limit(None).to_arrow()
    return dict(zip(read["id"].to_pylist(), read[name].to_pylist(), strict=True))


def without_leads(out: Path, tmp_path: Path) -> Path:
    """A copy of the index ``out`` as built before its rows said which copy leads its group."""
    older = Path(shutil.copytree(out, tmp_path / "older"))
    lancedb.connect(str(older / LANCEDB_DIR)).open_table(TABLE_NAME).drop_columns([COPY_LEAD_COLUMN])
    return older


def _shown(hits: list[Section]) -> list[tuple[str, float | None, list[str]]]:
    return [(hit.chunk_id, hit.score, sorted(v.chunk_id for v in hit.also_in)) for hit in hits]


def test_a_group_leads_by_its_main_copy_and_the_first_copy_of_each_other_facet_values(clouds: Path) -> None:
    leads = _column(clouds, COPY_LEAD_COLUMN)
    mains = _column(clouds, COPY_COLUMN)
    background = {cid.partition("#")[0]: cid for cid in leads if cid.endswith("/background")}
    assert {path: leads[cid] for path, cid in background.items()} == {
        "README.md": True,  # the main copy
        # the first of cloud=azure: a copy found by its text ranks before a declared one
        "packages/azure/README-PYPI.md": True,
        "packages/azure/README.md": False,
        "packages/gcp/README.md": True,  # the only one of cloud=gcp
    }
    assert {mains[cid] for cid in background.values()} == {background["README.md"]}
    assert all(leads[cid] for cid in leads if mains[cid] is None)  # a section without copies leads itself


def _background(index: DocsIndex, **filters: str) -> list[Section]:
    return [
        h for h in index.search(SearchRequest("backoff retries", filters)).hits if h.heading == BACKGROUND
    ]


def test_a_filter_that_leaves_out_the_main_copy_finds_the_copies_it_allows(clouds: Path) -> None:
    index = DocsIndex.open(clouds)
    azure = _background(index, cloud="azure")
    assert [(h.file_path, [(v.facet, v.value) for v in h.also_in]) for h in azure] == [
        ("packages/azure/README-PYPI.md", [("copy", "packages/azure/README.md")])
    ]
    gcp = _background(index, cloud="gcp")
    assert [(h.file_path, h.also_in) for h in gcp] == [("packages/gcp/README.md", ())]
    every = _background(index)
    assert len(every) == 1  # every copy, of every cloud, in one hit
    listed = {every[0].file_path, *(v.value for v in every[0].also_in if v.facet == "copy")}
    assert listed == {
        "README.md",
        "packages/azure/README.md",
        "packages/azure/README-PYPI.md",
        "packages/gcp/README.md",
    }


def test_a_page_shows_distinct_sections_each_listing_every_copy(copied: Path) -> None:
    index = DocsIndex.open(copied)
    hits = index.search(SearchRequest("retry request backoff", limit=3)).hits
    assert len({hit.heading for hit in hits}) == 3  # each copy of the guide folded into one hit
    retries = next(hit for hit in hits if hit.heading == "Retries")
    assert retries.file_path == "copy-00/guide.md"  # the main copy: first by path
    assert [v.value for v in retries.also_in] == [f"copy-{n:02}/guide.md" for n in range(1, COPIES)]
    assert {v.facet for v in retries.also_in} == {"copy"}


def test_pages_stay_prefixes_of_one_order(copied: Path) -> None:
    index = DocsIndex.open(copied)
    query = "request retried webhook"
    whole = index.search(SearchRequest(query, limit=3))
    assert len(whole.hits) == 3 and not whole.has_more  # the guide (in 40 copies) and the other two
    pages = [index.search(SearchRequest(query, limit=1, offset=n)) for n in range(3)]
    assert _shown([hit for page in pages for hit in page.hits]) == _shown(whole.hits)
    assert [page.has_more for page in pages] == [True, True, False]


@pytest.mark.parametrize("query", ["retry request backoff", "webhook", "request retried webhook", "rate"])
def test_an_index_built_before_the_leads_ranks_every_copy_and_shows_the_same(
    copied: Path, tmp_path: Path, query: str
) -> None:
    older = DocsIndex.open(without_leads(copied, tmp_path))
    new = DocsIndex.open(copied)
    for limit, offset in ((5, 0), (2, 1)):
        request = SearchRequest(query, limit=limit, offset=offset)
        assert _shown(new.search(request).hits) == _shown(older.search(request).hits)


def test_an_index_built_before_the_leads_still_finds_copies_a_filter_allows(
    clouds: Path, tmp_path: Path
) -> None:
    older = DocsIndex.open(without_leads(clouds, tmp_path))
    files = {h.file_path for h in _background(older, cloud="azure")}
    assert len(files) == 1 and files <= {"packages/azure/README.md", "packages/azure/README-PYPI.md"}


def test_a_copy_whose_path_holds_a_query_word_ranks_its_group_as_every_copy_would(
    copied: Path, tmp_path: Path
) -> None:
    """Copies the legs do not rank still stand out when they score above their lead: here the word
    of one copy's folder, which is in its path words, not in the main copy's."""
    request = SearchRequest("backoff copy 17", limit=3)
    hits = DocsIndex.open(copied).search(request).hits
    assert hits[0].file_path == "copy-17/guide.md"
    assert "copy-00/guide.md#guide/retries" in {v.chunk_id for v in hits[0].also_in}
    assert _shown(hits) == _shown(DocsIndex.open(without_leads(copied, tmp_path)).search(request).hits)


@pytest.mark.parametrize(
    "query", ["retry request backoff", "webhook", "request retried webhook", "rate", "backoff copy 17"]
)
def test_copies_that_lead_nothing_read_with_the_leads_give_the_pages_of_reading_them_apart(
    copied: Path, query: str, monkeypatch: pytest.MonkeyPatch, text_leg_filters: list[str | None]
) -> None:
    """An index holding few copies that lead nothing (here 78) reads them with its leads' leg, one
    full-text query a search (``search.leads``): the pages, scores and listed copies of reading them
    in a query of their own, at every page."""
    wheres = text_leg_filters
    index = DocsIndex.open(copied)
    requests = [
        SearchRequest(query, limit=limit, offset=offset) for limit, offset in ((5, 0), (2, 1), (1, 3))
    ]
    together = [index.search(request) for request in requests]
    assert len(wheres) == len(requests) and not any(wheres)  # one query each, no filter on the leads
    monkeypatch.setattr(ranking, "FEW_OTHERS", -1)  # read apart, in a query of their own
    apart = [index.search(request) for request in requests]
    assert len(wheres) == 3 * len(requests)
    assert [(_shown(page.hits), page.has_more) for page in together] == [
        (_shown(page.hits), page.has_more) for page in apart
    ]
    assert [[hit.snippet for hit in page.hits] for page in together] == [
        [hit.snippet for hit in page.hits] for page in apart
    ]


def test_a_deep_full_text_leg_leaves_the_text_to_the_page(
    copied: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A leg deeper than ``lance.TEXTS_WITH_LEG`` reads no text: the page's hits' text is read after,
    and their snippets are those of a leg that read it."""
    index = DocsIndex.open(copied)
    request = SearchRequest("request retried webhook", limit=3)
    read = index.search(request).hits
    monkeypatch.setattr(lance, "TEXTS_WITH_LEG", 0)
    left = index.search(request).hits
    assert [(hit.chunk_id, hit.snippet) for hit in left] == [(hit.chunk_id, hit.snippet) for hit in read]
    assert all(hit.snippet for hit in left)
