"""The layout of the ``chunks`` table: column names and the Arrow schema.

Shared by the writer (build) and the reader (``DocsIndex``), so both agree on one definition; how chunks
become rows is build's concern (``docs_mcp.indexing.rows``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "COPY_COLUMN",
    "COPY_LEAD_COLUMN",
    "FILE_CHUNKS_COLUMN",
    "FTS_BODY",
    "FTS_COLUMNS",
    "FTS_CRUMBS",
    "LANCEDB_DIR",
    "LIBRARY_COLUMN",
    "POSITION_COLUMN",
    "TABLE_NAME",
    "TEXT_COLUMN",
    "URL_COLUMN",
    "VECTOR_COLUMN",
    "facet_column",
    "table_schema",
]

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
# The page URL and anchor of a chunk, for docs that are the source of a site with a known base URL. The
# column exists only in such indexes: a reader finds none in others (or older ones) and gives no URL.
URL_COLUMN = "url"

# A chunk's place in its file (1-based, in file order) and its file's number of chunks: what a result
# shows ("section 2 of 5") and where get_doc's neighbours are, read with the row, so a server needs no
# per-file lists in memory (issue 34). Indexes built before them have neither; readers ask the file.
POSITION_COLUMN = "position"
FILE_CHUNKS_COLUMN = "file_chunks"

# The id of the main copy of the group of copies a chunk belongs to (``corpus.copies``: the same section
# in several places), null for a chunk with no copy. Search folds the hits of one group into one, reading
# the column with the hits (issue 34: the groups once sat in the index manifest, read whole at open, a
# few hundred bytes a chunk of a copied corpus). Added after the text rows (it depends on the whole
# corpus, not on one file); indexes built before it have none, and their manifest's ``copies`` instead.
COPY_COLUMN = "copy_of"
# Whether a chunk leads its group of copies (``corpus.copies.CopyGroups``): true for a chunk with no
# copy, a group's main copy, and the first copy of each other combination of facet values in a group.
# Searches rank the leads only and list a page's copies with one lookup (btree on ``copy_of``): a
# section copied 120 times costs a search one candidate, not 120 (issue 34). Indexes built before it
# have none and rank every copy.
COPY_LEAD_COLUMN = "copy_lead"

# In the union of several libraries' indexes (``indexing.union``): the library a row is of.
LIBRARY_COLUMN = "library"

_FACET_PREFIX = "facet_"
_UNSAFE = re.compile(r"[^a-z0-9]")


def facet_column(name: str) -> str:
    """The column holding facet ``name``: ``language`` -> ``facet_language``.

    Every character outside ``[a-z0-9]`` is hex-escaped (``sdk-version`` -> ``facet_sdk_2d_version``),
    so any facet name maps to a distinct column that needs no SQL quoting.
    """
    return _FACET_PREFIX + _UNSAFE.sub(lambda m: f"_{ord(m.group(0)):x}_", name)


def table_schema(facet_names: Sequence[str], dimensions: int | None, urls: bool = False) -> pa.Schema:
    """The Arrow schema of the ``chunks`` table for these facets, (optional) vector width and, with
    ``urls``, the nullable URL column."""
    import pyarrow as pa  # here, not above: the column names are needed where pyarrow is not

    fields = [
        pa.field("id", pa.string(), nullable=False),
        pa.field("file_path", pa.string(), nullable=False),
        pa.field("heading", pa.string(), nullable=False),
        pa.field("breadcrumb", pa.list_(pa.string()), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("ordinal", pa.int32(), nullable=False),
        pa.field(POSITION_COLUMN, pa.int32(), nullable=False),
        pa.field(FILE_CHUNKS_COLUMN, pa.int32(), nullable=False),
        pa.field("level", pa.int32(), nullable=False),
        pa.field("start_line", pa.int32(), nullable=False),
        pa.field("end_line", pa.int32(), nullable=False),
        pa.field("markdown", pa.string(), nullable=False),
        pa.field(TEXT_COLUMN, pa.string(), nullable=False),
        pa.field(FTS_BODY, pa.string(), nullable=False),
        pa.field(FTS_CRUMBS, pa.string(), nullable=False),
    ]
    if urls:
        fields.append(pa.field(URL_COLUMN, pa.string(), nullable=True))
    fields.extend(pa.field(facet_column(name), pa.string(), nullable=True) for name in sorted(facet_names))
    if dimensions is not None:
        fields.append(pa.field(VECTOR_COLUMN, pa.list_(pa.float32(), dimensions), nullable=False))
    return pa.schema(fields)
