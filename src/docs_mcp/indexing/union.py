"""One full-text table over several libraries' indexes: a merged search asks it once, not each library.

``union`` reads each library's ``chunks`` table (one library at a time, without vectors or markdown:
the union only ranks and shows hits, ``get_doc`` reads the library's own index) and writes them as one
index folder that ``DocsIndex`` opens like any other: every row keeps its columns, with its id, file
path and copy group prefixed by its library (``NAME/``, names hold no ``/``) so that rows of several
libraries never collide, and a ``library`` column (bitmap-indexed) says whose it is. Its facets are the
union of the libraries' facets (a row of a library without a facet holds null there); its taxonomy
merges theirs. BM25 statistics are the union's, not each library's: its own ranking differs from
asking every library's own index (docs/scaling.md measures how far); each library's statistics are
kept beside it (``store.library_terms``), so that a hit can be scored as its library scores it.

The folder is written under a temporary name and renamed into place, so a reader never sees half of
one; its name is :func:`union_key` of the libraries' names and index identities, so a server started
again over the same indexes finds it ready, and a swapped index needs another.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import lancedb
import pyarrow as pa
import pyarrow.compute as pc

from docs_mcp import __version__
from docs_mcp.errors import IndexUnavailable
from docs_mcp.indexing.library_terms import TOKENS_TYPE, LibraryTerms
from docs_mcp.indexing.terms import WordCounts
from docs_mcp.indexing.writer import write_batches
from docs_mcp.store.columns import (
    COPY_COLUMN,
    COPY_LEAD_COLUMN,
    FILE_CHUNKS_COLUMN,
    FTS_COLUMNS,
    LANCEDB_DIR,
    LIBRARY_COLUMN,
    POSITION_COLUMN,
    TABLE_NAME,
    table_schema,
)
from docs_mcp.store.index_manifest import FacetTaxonomy, IndexManifest, read_manifest, write_manifest
from docs_mcp.store.library_terms import UNION_FORMAT, tokens_column
from docs_mcp.store.term_table import TERMS_TABLE

__all__ = ["UnionBuilt", "union", "union_key"]

_BATCH_ROWS = 8192
_PREFIXED = ("id", "file_path", COPY_COLUMN)


def union_key(libraries: Sequence[tuple[str, str]]) -> str:
    """The name of the union of ``libraries`` (name, index identity): the same for the same indexes."""
    parts = [UNION_FORMAT, *sorted(f"{name}={identity}" for name, identity in libraries)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class UnionBuilt:
    """What :func:`union` made: the folder, its rows, and whether it was there already."""

    path: Path
    chunks: int
    reused: bool


def union(libraries: Sequence[tuple[str, Path]], cache: Path) -> UnionBuilt:
    """The union index of ``libraries`` (name, index folder) in ``cache``/``KEY`` (:func:`union_key`),
    made unless it is there. Raises ``IndexUnavailable`` for a library that cannot be read (naming
    it), and what LanceDB raises writing."""
    manifests = {name: read_manifest(path) for name, path in libraries}
    key = union_key([(name, manifests[name].identity) for name, _ in libraries])
    out = cache / key
    if (out / LANCEDB_DIR).is_dir():
        return UnionBuilt(out, read_manifest(out).chunk_count, reused=True)
    facets: dict[str, set[str]] = {}
    for manifest in manifests.values():
        for facet, values in manifest.facets.items():
            facets.setdefault(facet, set()).update(values)
    schema = table_schema(sorted(facets), None, urls=True)
    schema = schema.append(pa.field(COPY_COLUMN, pa.string(), nullable=True))
    tables = {name: _chunks(path) for name, path in libraries}  # each opened once, read once
    if all(COPY_LEAD_COLUMN in table.schema.names for table in tables.values()):  # else every copy ranks
        schema = schema.append(pa.field(COPY_LEAD_COLUMN, pa.bool_(), nullable=False))
    schema = schema.append(pa.field(LIBRARY_COLUMN, pa.string(), nullable=False))
    for column in FTS_COLUMNS:  # each row's tokens: its library's scores without tokenizing again
        schema = schema.append(pa.field(tokens_column(column), TOKENS_TYPE, nullable=False))
    cache.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=cache))
    try:
        words = _word_counts(libraries)
        statistics = LibraryTerms(FTS_COLUMNS)
        batches = _rows(libraries, tables, schema, statistics)
        write_batches(
            building, schema, batches, sorted(facets), bitmaps=(LIBRARY_COLUMN,), impacts=False, words=words
        )
        statistics.write(lancedb.connect(str(building / LANCEDB_DIR)))
        moved = [name for name, path in libraries if read_manifest(path).identity != manifests[name].identity]
        if moved:  # rebuilt while read: its rows may be the new build's, the key the old one's
            raise IndexUnavailable(
                f"library {moved[0]!r} was swapped while its union was made; make it again"
            )
        write_manifest(building, _manifest(manifests, {f: sorted(v) for f, v in facets.items()}, key))
        os.chmod(building, 0o755)
        os.rename(building, out)  # atomic; another process that made it first wins
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
        if (out / LANCEDB_DIR).is_dir():
            return UnionBuilt(out, read_manifest(out).chunk_count, reused=True)
        raise
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return UnionBuilt(out, read_manifest(out).chunk_count, reused=False)


def _chunks(path: Path) -> lancedb.table.Table:
    """The library's ``chunks`` table, opened."""
    return lancedb.connect(str(path / LANCEDB_DIR)).open_table(TABLE_NAME)


def _word_counts(libraries: Sequence[tuple[str, Path]]) -> WordCounts | None:
    """The libraries' ``terms`` counts added up; None when one has no table (built before it: the
    words are then counted from the rows as they are written)."""
    words = WordCounts()
    for _name, path in libraries:
        try:
            terms = lancedb.connect(str(path / LANCEDB_DIR)).open_table(TERMS_TABLE)
        except ValueError:  # "Table 'terms' was not found"
            return None
        words.merge(terms)
    return words


def _rows(
    libraries: Sequence[tuple[str, Path]],
    tables: dict[str, lancedb.table.Table],
    schema: pa.Schema,
    statistics: LibraryTerms,
) -> Iterator[pa.RecordBatch]:
    """Every library's rows in ``schema``, one library read at a time, in batches; each library's
    term statistics counted into ``statistics``."""
    tokens = {tokens_column(column): column for column in FTS_COLUMNS}
    wanted = [f.name for f in schema if f.name != LIBRARY_COLUMN and f.name not in tokens]
    for name, path in libraries:
        table = tables[name]
        present = set(table.schema.names)
        for needed in (POSITION_COLUMN, FILE_CHUNKS_COLUMN):
            if needed not in present:
                raise IndexUnavailable(
                    f"library {name!r} ({path}) was built before the {needed!r} column; rebuild it: "
                    "docs-mcp build --docs-dir DOCS --out OUT"
                )
        read = [c for c in wanted if c in present and c != "markdown"]
        rows = table.search().select(read).limit(None).to_arrow()
        made = statistics.add(name, rows)
        prefix = pa.scalar(f"{name}/")
        columns: list[pa.Array | pa.ChunkedArray] = []
        for field in schema:
            if field.name == LIBRARY_COLUMN:
                columns.append(pa.array([name] * rows.num_rows, pa.string()))
            elif field.name in tokens:
                columns.append(made[tokens[field.name]])
            elif field.name == "markdown":  # only get_doc shows it, from the library's own index
                columns.append(pa.array([""] * rows.num_rows, pa.string()))
            elif field.name not in present:  # a facet, URL or copy column this library lacks
                columns.append(pa.nulls(rows.num_rows, field.type))
            elif field.name in _PREFIXED:
                columns.append(pc.binary_join_element_wise(prefix, rows[field.name], ""))
            else:
                columns.append(rows[field.name].cast(field.type))
        yield from pa.Table.from_arrays(columns, schema=schema).to_batches(_BATCH_ROWS)


def _manifest(manifests: dict[str, IndexManifest], facets: dict[str, list[str]], key: str) -> IndexManifest:
    """The union's manifest: its facets and merged taxonomy, the libraries' counts summed, no vectors."""
    collapse: dict[str, bool] = {}
    aliases: dict[str, dict[str, set[str]]] = {}
    for manifest in manifests.values():
        for facet, declared in manifest.taxonomy.items():
            collapse[facet] = collapse.get(facet, False) or declared.vector_collapse
            for value, words in declared.aliases.items():
                aliases.setdefault(facet, {}).setdefault(value, set()).update(words)
    taxonomy = {
        facet: FacetTaxonomy(
            vector_collapse=folds, aliases={v: sorted(w) for v, w in aliases.get(facet, {}).items()}
        )
        for facet, folds in collapse.items()
    }
    first = next(iter(manifests.values()))
    return IndexManifest(
        format_version=first.format_version,
        docs_mcp_version=__version__,
        description=f"the union of {len(manifests)} libraries",
        instructions=None,
        facets=facets,
        embedding=None,
        chunk_count=sum(m.chunk_count for m in manifests.values()),
        file_count=sum(m.file_count for m in manifests.values()),
        content_hash=key,
        taxonomy=taxonomy,
        copy_groups=sum(m.copy_groups for m in manifests.values()),
    )
