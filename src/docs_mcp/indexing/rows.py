"""Chunks -> the rows of the ``chunks`` table (``docs_mcp.store.columns``), with the full-text fields."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, TypeAlias

import pyarrow as pa

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.store.columns import (
    COPY_COLUMN,
    COPY_LEAD_COLUMN,
    FILE_CHUNKS_COLUMN,
    FTS_BODY,
    FTS_CRUMBS,
    POSITION_COLUMN,
    TEXT_COLUMN,
    URL_COLUMN,
    VECTOR_COLUMN,
    facet_column,
    table_schema,
)
from docs_mcp.store.identifiers import split_identifiers

if TYPE_CHECKING:
    import numpy as np

    from docs_mcp.corpus.copy_map import MainCopies

    Vectors: TypeAlias = Sequence[Sequence[float]] | np.ndarray[Any, np.dtype[np.float32]]

_PATH_WORDS = re.compile(r"[A-Za-z0-9]+")


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
    urls: Mapping[str, str] | None = None,
) -> pa.Table:
    """The rows of ``chunks`` (in the given order) as an Arrow table matching ``table_schema``;
    ``urls`` (chunk id -> page URL; not empty) adds the URL column.

    Raises ``ValueError`` when ``vectors`` does not hold one vector per chunk.
    """
    rows = text_rows(chunks, facet_names, urls or None)
    return rows if vectors is None else with_vectors(rows, vectors)


def text_rows(
    chunks: Sequence[Chunk], facet_names: Iterable[str], urls: Mapping[str, str] | None = None
) -> pa.Table:
    """The rows of ``chunks`` without the vector column: everything their text (and URL) decides.
    With ``urls`` (chunk id -> page URL; None: no URL column) the URL column holds theirs."""
    names = sorted(set(facet_names))
    schema = table_schema(names, None, urls=urls is not None)
    places = _places(chunks)
    columns: dict[str, list[object]] = {
        "id": [c.id for c in chunks],
        "file_path": [c.file_path for c in chunks],
        "heading": [c.heading for c in chunks],
        "breadcrumb": [list(c.breadcrumb) for c in chunks],
        "title": [c.title for c in chunks],
        "ordinal": [c.ordinal for c in chunks],
        POSITION_COLUMN: places[0],
        FILE_CHUNKS_COLUMN: places[1],
        "level": [c.level for c in chunks],
        "start_line": [c.start_line for c in chunks],
        "end_line": [c.end_line for c in chunks],
        "markdown": [c.markdown for c in chunks],
        TEXT_COLUMN: [c.text for c in chunks],
        FTS_BODY: [body_text(c) for c in chunks],
        FTS_CRUMBS: [crumbs_text(c) for c in chunks],
    }
    if urls is not None:
        columns[URL_COLUMN] = [urls.get(c.id) for c in chunks]
    for name in names:
        columns[facet_column(name)] = [_facet_value(c.metadata, name) for c in chunks]
    return pa.Table.from_arrays([pa.array(columns[f.name], type=f.type) for f in schema], schema=schema)


def with_vectors(rows: pa.Table, vectors: Vectors) -> pa.Table:
    """``rows`` (from ``text_rows``) with the vector column of ``vectors`` (none when it is empty).

    Raises ``ValueError`` when ``vectors`` does not hold one vector per row.
    """
    if len(vectors) != rows.num_rows:
        raise ValueError(f"{len(vectors)} vectors for {rows.num_rows} chunks")
    if not len(vectors):
        return rows
    import numpy as np

    dimensions = len(vectors[0])
    flat = np.asarray(vectors, dtype=np.float32).reshape(-1)
    column = pa.FixedSizeListArray.from_arrays(pa.array(flat, type=pa.float32()), dimensions)
    return rows.append_column(pa.field(VECTOR_COLUMN, column.type, nullable=False), column)


def vector_batches(
    schema: pa.Schema,
    batches: Iterable[pa.RecordBatch],
    vectors: Callable[[int], Vectors],
    dimensions: int,
) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """The schema and batches of ``batches`` (from ``text_rows``, in order) with the vector column,
    one batch at a time: ``vectors(n)`` gives the next ``n`` rows' vectors (of ``dimensions``). The
    batches raise ``ValueError`` when it gives another number."""
    field = pa.field(VECTOR_COLUMN, pa.list_(pa.float32(), dimensions), nullable=False)

    def joined() -> Iterator[pa.RecordBatch]:
        for batch in batches:
            if not batch.num_rows:
                continue
            yield from with_vectors(pa.Table.from_batches([batch]), vectors(batch.num_rows)).to_batches()

    return schema.append(field), joined()


def copy_batches(
    schema: pa.Schema, batches: Iterable[pa.RecordBatch], main_copies: MainCopies
) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
    """The schema and batches of ``batches`` with ``COPY_COLUMN``, each row's main copy in
    ``main_copies``, null for a row with no copy, and ``COPY_LEAD_COLUMN``: whether the row has no
    copy, is a main copy or is one of ``main_copies.other_leads``; one batch at a time."""
    joined_schema = schema.append(pa.field(COPY_COLUMN, pa.string(), nullable=True)).append(
        pa.field(COPY_LEAD_COLUMN, pa.bool_(), nullable=False)
    )

    def joined() -> Iterator[pa.RecordBatch]:
        for batch in batches:
            ids = batch.column(batch.schema.get_field_index("id")).to_pylist()
            mains = main_copies.column(ids)
            other_leads = main_copies.other_leads
            pairs = zip(ids, mains, strict=True)
            leads = [main is None or main == cid or cid in other_leads for cid, main in pairs]
            columns = [pa.array(mains, type=pa.string()), pa.array(leads, type=pa.bool_())]
            yield pa.RecordBatch.from_arrays([*batch.columns, *columns], schema=joined_schema)

    return joined_schema, joined()


def _places(chunks: Sequence[Chunk]) -> tuple[list[object], list[object]]:
    """Per chunk, its 1-based place among its file's chunks (by ordinal, then id) and their number."""
    by_file: dict[str, list[int]] = {}
    for number, chunk in enumerate(chunks):
        by_file.setdefault(chunk.file_path, []).append(number)
    positions: list[object] = [0] * len(chunks)
    totals: list[object] = [0] * len(chunks)
    for numbers in by_file.values():
        numbers.sort(key=lambda n: (chunks[n].ordinal, chunks[n].id))
        for place, number in enumerate(numbers, start=1):
            positions[number], totals[number] = place, len(numbers)
    return positions, totals


def _facet_value(metadata: Mapping[str, str], name: str) -> str | None:
    value = metadata.get(name)
    return None if value is None else str(value)
