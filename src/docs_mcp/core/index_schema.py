"""The layout of the ``chunks`` table: column names, the Arrow schema, and chunks -> rows.

Shared by the writer (build) and the reader (``DocsIndex``), so both agree on one definition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePosixPath

import pyarrow as pa

from docs_mcp.core.model import Chunk
from docs_mcp.core.textsplit import split_identifiers

TABLE_NAME = "chunks"
LANCEDB_DIR = ".lancedb"
VECTOR_COLUMN = "vector"

# Two full-text columns (their boosted BM25 scores are summed at query time; see SearchConfig):
# - body: the chunk's text, its own heading, and the parts of their compound identifiers;
# - crumbs: where the chunk sits: path words, page title, breadcrumb and heading (+ identifier parts).
# Measured on claude-docs, these two score as well as four separate columns (text, split parts,
# heading, crumbs) or better, and each column scored costs query time (see benchmarks/test_search.py).
# ``text`` keeps the plain text for snippets; it is not indexed.
FTS_BODY = "body"
FTS_CRUMBS = "crumbs"
FTS_COLUMNS: tuple[str, ...] = (FTS_BODY, FTS_CRUMBS)
TEXT_COLUMN = "text"

_FACET_PREFIX = "facet_"
_UNSAFE = re.compile(r"[^a-z0-9]")
_PATH_WORDS = re.compile(r"[A-Za-z0-9]+")


def facet_column(name: str) -> str:
    """The column holding facet ``name``: ``language`` -> ``facet_language``.

    Every character outside ``[a-z0-9]`` is hex-escaped (``sdk-version`` -> ``facet_sdk_2d_version``),
    so any facet name maps to a distinct column that needs no SQL quoting.
    """
    return _FACET_PREFIX + _UNSAFE.sub(lambda m: f"_{ord(m.group(0)):x}_", name)


def table_schema(facet_names: Sequence[str], dimensions: int | None) -> pa.Schema:
    """The Arrow schema of the ``chunks`` table for these facets and (optional) vector width."""
    fields = [
        pa.field("id", pa.string(), nullable=False),
        pa.field("file_path", pa.string(), nullable=False),
        pa.field("heading", pa.string(), nullable=False),
        pa.field("breadcrumb", pa.list_(pa.string()), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("ordinal", pa.int32(), nullable=False),
        pa.field("level", pa.int32(), nullable=False),
        pa.field("start_line", pa.int32(), nullable=False),
        pa.field("end_line", pa.int32(), nullable=False),
        pa.field("markdown", pa.string(), nullable=False),
        pa.field(TEXT_COLUMN, pa.string(), nullable=False),
        pa.field(FTS_BODY, pa.string(), nullable=False),
        pa.field(FTS_CRUMBS, pa.string(), nullable=False),
    ]
    fields.extend(pa.field(facet_column(name), pa.string(), nullable=True) for name in sorted(facet_names))
    if dimensions is not None:
        fields.append(pa.field(VECTOR_COLUMN, pa.list_(pa.float32(), dimensions), nullable=False))
    return pa.schema(fields)


def crumbs_text(chunk: Chunk) -> str:
    """The crumb field: path words, page title, breadcrumb and heading, plus their identifier parts."""
    path = PurePosixPath(chunk.file_path)
    path_words = " ".join(_PATH_WORDS.findall(str(path.with_suffix(""))))
    plain = " ".join(part for part in (path_words, chunk.title, *chunk.breadcrumb, chunk.heading) if part)
    extra = split_identifiers(plain)
    return f"{plain} {extra}" if extra else plain


def body_text(chunk: Chunk) -> str:
    """The body field: text, heading, then the words hidden in their compound identifiers."""
    plain = f"{chunk.text}\n{chunk.heading}" if chunk.heading else chunk.text
    extra = split_identifiers(plain)
    return f"{plain}\n{extra}" if extra else plain


def chunk_rows(
    chunks: Sequence[Chunk],
    facet_names: Iterable[str],
    vectors: Sequence[Sequence[float]] | None = None,
) -> pa.Table:
    """The rows of ``chunks`` (in the given order) as an Arrow table matching ``table_schema``.

    Raises ``ValueError`` when ``vectors`` does not hold one vector per chunk.
    """
    names = sorted(set(facet_names))
    dimensions = len(vectors[0]) if vectors is not None and len(vectors) else None
    if vectors is not None and len(vectors) != len(chunks):
        raise ValueError(f"{len(vectors)} vectors for {len(chunks)} chunks")
    schema = table_schema(names, dimensions)
    columns: dict[str, list[object]] = {
        "id": [c.id for c in chunks],
        "file_path": [c.file_path for c in chunks],
        "heading": [c.heading for c in chunks],
        "breadcrumb": [list(c.breadcrumb) for c in chunks],
        "title": [c.title for c in chunks],
        "ordinal": [c.ordinal for c in chunks],
        "level": [c.level for c in chunks],
        "start_line": [c.start_line for c in chunks],
        "end_line": [c.end_line for c in chunks],
        "markdown": [c.markdown for c in chunks],
        TEXT_COLUMN: [c.text for c in chunks],
        FTS_BODY: [body_text(c) for c in chunks],
        FTS_CRUMBS: [crumbs_text(c) for c in chunks],
    }
    for name in names:
        columns[facet_column(name)] = [_facet_value(c.metadata, name) for c in chunks]
    arrays: list[pa.Array] = [
        pa.array(columns[f.name], type=f.type) for f in schema if f.name != VECTOR_COLUMN
    ]
    if dimensions is not None and vectors is not None:
        import numpy as np

        flat = np.asarray(vectors, dtype=np.float32).reshape(-1)
        arrays.append(pa.FixedSizeListArray.from_arrays(pa.array(flat, type=pa.float32()), dimensions))
    return pa.Table.from_arrays(arrays, schema=schema)


def _facet_value(metadata: Mapping[str, str], name: str) -> str | None:
    value = metadata.get(name)
    return None if value is None else str(value)
