from __future__ import annotations

from pathlib import Path

import lancedb
import numpy as np
import pytest

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.indexing.rows import chunk_rows
from docs_mcp.indexing.writer import write_index
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME, facet_column

pytestmark = pytest.mark.timeout(120)


def _chunk(i: int, language: str) -> Chunk:
    text = f"Chunk {i} explains createLink number {i}."
    return Chunk(
        id=f"docs/page{i // 3}.md#section-{i % 3}",
        file_path=f"docs/page{i // 3}.md",
        heading=f"Section {i % 3}",
        level=2,
        breadcrumb=("Page",),
        ordinal=i % 3,
        markdown=f"## Section {i % 3}\n\n{text}\n",
        text=text,
        embedding_input=text,
        start_line=1,
        end_line=3,
        metadata={"language": language, "sdk-version": "v1"},
        title="Page",
    )


def _indexes(out: Path) -> dict[str, str]:
    table = lancedb.connect(str(out / LANCEDB_DIR)).open_table(TABLE_NAME)
    return {config.columns[0]: config.index_type for config in table.list_indices()}


def test_every_search_column_gets_its_index(tmp_path: Path) -> None:
    chunks = [_chunk(i, "python" if i % 2 else "go") for i in range(12)]
    write_index(tmp_path, chunk_rows(chunks, ["language", "sdk-version"]), ["language", "sdk-version"])
    assert _indexes(tmp_path) == {
        "body": "FTS",
        "crumbs": "FTS",
        "id": "BTree",
        "file_path": "BTree",
        "facet_language": "Bitmap",
        "facet_sdk_2d_version": "Bitmap",
    }


def test_facet_names_map_to_distinct_sql_safe_columns() -> None:
    assert facet_column("language") == "facet_language"
    assert facet_column("sdk-version") == "facet_sdk_2d_version"
    assert facet_column("sdk_version") != facet_column("sdk-version")
    assert facet_column("it's") == "facet_it_27_s"


def test_rows_carry_the_split_identifiers_and_crumbs(tmp_path: Path) -> None:
    rows = chunk_rows([_chunk(1, "go")], ["language"]).to_pylist()[0]
    assert rows["text"] == "Chunk 1 explains createLink number 1."
    # The body adds the heading and the parts of compound identifiers to the text.
    assert rows["body"] == "Chunk 1 explains createLink number 1.\nSection 1\ncreate link"
    assert rows["crumbs"] == "docs page0 Page Page Section 1"
    assert rows["facet_language"] == "go"


def test_vectors_stay_exact_below_the_threshold_and_get_hnsw_above(tmp_path: Path) -> None:
    chunks = [_chunk(i, "go") for i in range(300)]
    vectors = np.random.default_rng(0).standard_normal((300, 16)).astype(np.float32)
    write_index(tmp_path / "small", chunk_rows(chunks, ["language"], vectors), ["language"])
    assert "vector" not in _indexes(tmp_path / "small")
    write_index(
        tmp_path / "big", chunk_rows(chunks, ["language"], vectors), ["language"], exact_vector_max_rows=100
    )
    assert _indexes(tmp_path / "big")["vector"] == "IvfHnswSq"
