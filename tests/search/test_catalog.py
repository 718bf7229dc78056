"""The row catalog reads what a request needs from LanceDB, behind bounded caches (issue 34): opening
reads no rows, and answers are the same whatever the caches hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.errors import ChunkNotFound
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search import catalog, lance
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from testkit.index_fixtures import write_docs

QUERIES = ["retry with backoff", "create a link", "cursor next page", "timeout", "O'Reilly paths", "retries"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("catalog")
    docs = write_docs(root / "docs")
    (docs / "guides" / "it's quoted.md").write_text(
        "# Quoted\n\n## One\n\nFirst part.\n\n## Two\n\nSecond part.\n"
    )
    build(BuildOptions(docs_dir=docs, out=root / "out", embedding_provider="hash"))
    return root / "out"


def _answers(index: DocsIndex) -> list[object]:
    answers: list[object] = []
    for query in QUERIES:
        page = index.search(SearchRequest(query, limit=5))
        answers.append(page.hits)
        for hit in page.hits:
            answers.append(index.get(hit.chunk_id, context=2).chunks)
    answers.append(index.resource_ids())
    answers.append(index.example_section())
    return answers


def test_opening_reads_no_rows(built: Path) -> None:
    index = DocsIndex.open(built)
    held = index._catalog
    assert not held._rows._items and not held._files._items
    index.search(SearchRequest("retry with backoff"))
    assert held._rows._items  # a search's rows were kept from its own read


def test_answers_do_not_depend_on_what_the_caches_hold(built: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    roomy = _answers(DocsIndex.open(built))
    monkeypatch.setattr(catalog, "ROWS_CACHED", 2)
    monkeypatch.setattr(catalog, "FILES_CACHED", 1)
    cramped = DocsIndex.open(built)
    assert _answers(cramped) == roomy
    assert len(cramped._catalog._rows._items) <= 2 and len(cramped._catalog._files._items) <= 1


def test_the_index_is_read_through_one_bounded_lancedb_cache(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every connection reading an index shares one LanceDB session whose caches are bounded (LanceDB
    gives each connection its own, GiBs each); answers do not depend on what it holds."""
    roomy = _answers(DocsIndex.open(built))
    held = lance.session().size_bytes
    assert 0 < held <= lance.INDEX_CACHE_BYTES + lance.METADATA_CACHE_BYTES
    monkeypatch.setattr(lance, "INDEX_CACHE_BYTES", 4096)
    monkeypatch.setattr(lance, "METADATA_CACHE_BYTES", 4096)
    monkeypatch.setattr(lance, "_SESSION", [])
    cramped = DocsIndex.open(built)
    assert _answers(cramped) == roomy
    assert lance.session().size_bytes < held


def test_ids_with_quotes_are_found_and_unknown_ones_get_close_ids(built: Path) -> None:
    index = DocsIndex.open(built)
    quoted = [hit.chunk_id for hit in index.search(SearchRequest("second part")).hits]
    assert any("it's" in cid for cid in quoted)
    window = index.get(next(cid for cid in quoted if "it's" in cid), context=1)
    assert [section.position for section in window.chunks] == list(range(1, len(window.chunks) + 1))
    assert {section.total for section in window.chunks} == {len(window.chunks)}
    with pytest.raises(ChunkNotFound) as missing:
        index.get("guides/it's quoted.md#tw")
    assert missing.value.close_ids and all("it's" in cid for cid in missing.value.close_ids)
    with pytest.raises(ChunkNotFound) as far:
        index.get("guides/its-quoted.md#two")  # an unknown file: close files, then their ids
    assert far.value.close_ids


def test_an_index_built_before_the_place_columns_answers_the_same(built: Path, tmp_path: Path) -> None:
    """Indexes built before issue 34 have no position/file_chunks columns: places come from the file."""
    import shutil

    import lancedb

    expected = _answers(DocsIndex.open(built))
    older = shutil.copytree(built, tmp_path / "older")
    lancedb.connect(str(older / ".lancedb")).open_table("chunks").drop_columns(["position", "file_chunks"])
    index = DocsIndex.open(older)
    assert not index._catalog.has_places
    assert _answers(index) == expected


def test_neighbours_are_right_when_a_files_rows_are_not_side_by_side(built: Path, tmp_path: Path) -> None:
    """get_doc takes a window by row id (a file's rows are written one after another) and checks what
    it got: a row moved elsewhere in the table (deleted and added again) sends it to a filtered query."""
    import shutil

    import lancedb

    index = DocsIndex.open(built)
    middle = next(
        hit.chunk_id for hit in index.search(SearchRequest("retry configuration")).hits if hit.total >= 3
    )
    window = index.get(middle, context=2)
    expected = [(s.chunk_id, s.position, s.total, s.markdown) for s in window.chunks]
    moved = shutil.copytree(built, tmp_path / "moved")
    table = lancedb.connect(str(moved / ".lancedb")).open_table("chunks")
    first = window.chunks[0].chunk_id.replace("'", "''")
    row = table.search().where(f"id = '{first}'").limit(1).to_arrow()
    table.delete(f"id = '{first}'")
    table.add(row)
    reopened = DocsIndex.open(moved)
    reopened.search(SearchRequest("retry configuration"))  # remember rows and their new row ids
    got = reopened.get(middle, context=2)
    assert [(s.chunk_id, s.position, s.total, s.markdown) for s in got.chunks] == expected
