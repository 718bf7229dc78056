"""The union of several libraries' indexes (``indexing.union``): every row once, named by its library,
the facets and word counts of all, searchable like any index."""

from __future__ import annotations

from pathlib import Path

import lancedb

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.indexing.union import union, union_key
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.columns import COPY_COLUMN, COPY_LEAD_COLUMN, LANCEDB_DIR, LIBRARY_COLUMN, TABLE_NAME
from docs_mcp.store.index_manifest import read_manifest
from docs_mcp.store.term_table import TERMS_TABLE
from testkit.index_fixtures import SDK_FILES, write_docs


def _table(path: Path, name: str = TABLE_NAME) -> lancedb.table.Table:
    return lancedb.connect(str(path / LANCEDB_DIR)).open_table(name)


def test_the_union_holds_every_row_of_each_library_under_its_name(
    examples_docs: Path, tmp_path: Path
) -> None:
    build(BuildOptions(docs_dir=examples_docs, out=tmp_path / "example"))
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs", SDK_FILES), out=tmp_path / "acme"))
    libraries = [("example", tmp_path / "example"), ("acme", tmp_path / "acme")]
    made = union(libraries, tmp_path / "unions")
    key = union_key([(name, read_manifest(path).identity) for name, path in libraries])
    assert made.path == tmp_path / "unions" / key and not made.reused
    rows = _table(made.path).search().select(["id", "file_path", LIBRARY_COLUMN]).limit(None).to_arrow()
    for name, path in libraries:
        own = _table(path).search().select(["id", "file_path"]).limit(None).to_arrow()
        mine = [
            (i, f)
            for i, f, lib in zip(*(rows[c].to_pylist() for c in rows.column_names), strict=True)
            if lib == name
        ]
        assert sorted(mine) == sorted(
            (f"{name}/{i}", f"{name}/{f}")
            for i, f in zip(own["id"].to_pylist(), own["file_path"].to_pylist(), strict=True)
        )
    manifest = read_manifest(made.path)
    assert manifest.chunk_count == rows.num_rows and manifest.embedding is None
    assert set(manifest.facets) == set(read_manifest(tmp_path / "acme").facets) | set(
        read_manifest(tmp_path / "example").facets
    )
    counts = {}
    for _name, path in libraries:
        terms = _table(path, TERMS_TABLE).search().limit(None).to_arrow().to_pylist()
        for row in terms:
            counts[row["term"]] = counts.get(row["term"], 0) + row["chunks"]
    merged = _table(made.path, TERMS_TABLE).search().limit(None).to_arrow().to_pylist()
    assert {row["term"]: row["chunks"] for row in merged} == counts
    hits = DocsIndex.open(made.path).search(SearchRequest("install", {}, 5)).hits
    assert hits and all(hit.chunk_id.split("/", 1)[0] in {"example", "acme"} for hit in hits)
    assert union(libraries, tmp_path / "unions").reused


def test_the_union_keeps_which_copy_leads_each_group_so_it_ranks_leads_as_its_libraries_do(
    tmp_path: Path,
) -> None:
    docs = write_docs(tmp_path / "docs", SDK_FILES)
    build(BuildOptions(docs_dir=docs, out=tmp_path / "acme"))
    build(BuildOptions(docs_dir=docs, out=tmp_path / "beta"))
    libraries = [("acme", tmp_path / "acme"), ("beta", tmp_path / "beta")]
    made = union(libraries, tmp_path / "unions")
    columns = ["id", COPY_COLUMN, COPY_LEAD_COLUMN]
    rows = _table(made.path).search().select(columns).limit(None).to_arrow().to_pylist()
    own = _table(tmp_path / "acme").search().select(columns).limit(None).to_arrow().to_pylist()
    assert any(not row[COPY_LEAD_COLUMN] for row in own)  # the fixture has copies that do not lead
    for name, _path in libraries:
        assert sorted(
            (row["id"], row[COPY_COLUMN], row[COPY_LEAD_COLUMN])
            for row in rows
            if row["id"].startswith(f"{name}/")
        ) == sorted(
            (f"{name}/{row['id']}", row[COPY_COLUMN] and f"{name}/{row[COPY_COLUMN]}", row[COPY_LEAD_COLUMN])
            for row in own
        )
    request = SearchRequest("widget operation", {}, 50)  # every hit of either, on one page
    alone = {h.chunk_id: h for h in DocsIndex.open(tmp_path / "acme").search(request).hits}
    together = {
        h.chunk_id.removeprefix("acme/"): h
        for h in DocsIndex.open(made.path).search(request).hits
        if h.chunk_id.startswith("acme/")
    }
    assert alone and set(together) == set(alone)
    for chunk_id, hit in alone.items():
        listed = [  # a copy is named by its file, which the union prefixes like every path
            (v.facet, f"acme/{v.value}" if v.facet == "copy" else v.value, f"acme/{v.chunk_id}")
            for v in hit.also_in
        ]
        assert [(v.facet, v.value, v.chunk_id) for v in together[chunk_id].also_in] == listed
