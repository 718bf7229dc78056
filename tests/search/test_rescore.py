"""A union's hits scored as their own library's index scores them (``search.rescore``): each score
equals LanceDB's own score of that chunk for the same full-text query on the library's index."""

from __future__ import annotations

from pathlib import Path

import lancedb
import pytest

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.indexing.union import union
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.query import fulltext_clauses, fulltext_query
from docs_mcp.search.rescore import LibraryStatistics
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.columns import FTS_COLUMNS, LANCEDB_DIR, LIBRARY_COLUMN, TABLE_NAME
from docs_mcp.store.library_terms import tokens_column
from testkit.index_fixtures import SDK_FILES, write_docs

QUERIES = [
    "payment methods",
    "create a customer",
    "api key authentication",
    "How do I install the SDK?",
    "list customers with pagination",
    "refund a payment",
    "error handling retries",
    "webhook signature",
]


@pytest.fixture(scope="module")
def libraries(examples_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("rescore")
    build(BuildOptions(docs_dir=examples_docs, out=root / "example"))
    build(BuildOptions(docs_dir=write_docs(root / "docs", SDK_FILES), out=root / "acme"))
    return {"example": root / "example", "acme": root / "acme"}


@pytest.fixture(scope="module")
def made(libraries: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return union(list(libraries.items()), tmp_path_factory.mktemp("unions")).path


def _own_scores(index: Path, query: str) -> dict[str, float]:
    """LanceDB's score of every chunk of ``index`` matching the full-text query of ``query``."""
    table = lancedb.connect(str(index / LANCEDB_DIR)).open_table(TABLE_NAME)
    fts = fulltext_query(query, SearchConfig())
    read = table.search(fts, query_type="fts").select(["id", "_score"]).limit(10_000).to_arrow()
    return dict(zip(read["id"].to_pylist(), read["_score"].to_pylist(), strict=True))


def test_each_rescored_score_is_the_libraries_own_lancedb_score(
    libraries: dict[str, Path], made: Path
) -> None:
    statistics = LibraryStatistics(made)
    assert statistics.available
    rows = lancedb.connect(str(made / LANCEDB_DIR)).open_table(TABLE_NAME)
    columns = ["id", LIBRARY_COLUMN, *map(tokens_column, FTS_COLUMNS)]
    everything = rows.search().select(columns).limit(None).to_arrow()
    checked = phrases = 0
    for query in QUERIES:
        clauses = fulltext_clauses(query, SearchConfig())
        phrases += any(clause.phrase for clause in clauses)
        frequencies = statistics.load(clauses)
        own = {name: _own_scores(path, query) for name, path in libraries.items()}
        scores = statistics.scores(everything, lambda _library, c=clauses: c, frequencies)
        for row_id, score in zip(everything["id"].to_pylist(), scores, strict=True):
            name, chunk_id = row_id.split("/", 1)
            expected = own[name].get(chunk_id, 0.0)  # a chunk its library does not match scores 0
            assert score == pytest.approx(expected, rel=1e-5, abs=1e-6), (query, row_id)
            checked += expected > 0
    assert checked > 50 and phrases >= 4


def test_a_rescored_union_search_ranks_each_librarys_hits_as_its_own_index(
    libraries: dict[str, Path], made: Path
) -> None:
    unioned = DocsIndex.open(made)
    assert unioned.rescores
    compared = 0
    for query in QUERIES:
        page = unioned.search(SearchRequest(query, {}, 10), rescore=True)
        for name, path in libraries.items():
            own = DocsIndex.open(path).search(SearchRequest(query, {}, 10)).hits
            mine = [h for h in page.hits if h.chunk_id.startswith(f"{name}/")]
            by_id = {h.chunk_id: h.score for h in own}
            for hit in mine:  # each hit the union shows scores as on its library's own page
                chunk_id = hit.chunk_id.split("/", 1)[1]
                if chunk_id in by_id:
                    assert hit.score == pytest.approx(by_id[chunk_id], rel=1e-5, abs=1e-5), (query, hit)
                    compared += 1
    assert compared > 20


def test_a_union_made_before_the_statistics_is_not_rescored(made: Path, tmp_path: Path) -> None:
    import shutil

    from docs_mcp.store.library_terms import LIBRARY_SIZES, LIBRARY_TERMS

    old = tmp_path / "old"
    shutil.copytree(made, old)
    db = lancedb.connect(str(old / LANCEDB_DIR))
    db.drop_table(LIBRARY_SIZES)
    db.drop_table(LIBRARY_TERMS)
    assert not LibraryStatistics(old).available
    assert not DocsIndex.open(old).rescores
