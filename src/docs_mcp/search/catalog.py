"""What a result shows about a section (file, heading, breadcrumb, facets, URL, its place in its file),
read from LanceDB when a request needs it, kept in two bounded LRU caches.

Nothing is read at open, so a server's memory does not grow with its corpus (issue 34). A search's
legs select these columns with its ids (``columns``) and hand them over (``remember``): ranking and
folding read no more rows. A file's chunk ids in file order (position, total, ``get_doc``'s
neighbours) come from one query on the btree-indexed ``file_path`` for the files a page shows that
the cache does not hold; rows of ids not seen in a search (``get_doc``, resources) from one query on
the btree-indexed ``id``. Safe to use from many threads: the caches are behind a lock.
"""

from __future__ import annotations

import difflib
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, Generic, NamedTuple, TypeVar

import pyarrow as pa
import pyarrow.compute as pc

from docs_mcp.search.filters import sql_literal
from docs_mcp.search.folding import HitRow
from docs_mcp.search.kind_prior import KIND, Role
from docs_mcp.search.types import Section
from docs_mcp.store.columns import (
    COPY_COLUMN,
    COPY_LEAD_COLUMN,
    FILE_CHUNKS_COLUMN,
    POSITION_COLUMN,
    TEXT_COLUMN,
    URL_COLUMN,
    facet_column,
)
from docs_mcp.store.index_manifest import pick_example

__all__ = ["RowCatalog"]

# Enough for every candidate of the searches in flight and the hot files of a busy server; each row
# is a few hundred bytes, each file's ids a few KB.
ROWS_CACHED = 8192
FILES_CACHED = 2048
_IN_LIST_MAX = 500  # ids or paths per IN (...) list of one query

K = TypeVar("K")
V = TypeVar("V")


class _Lru(Generic[K, V]):
    """A bounded map that forgets the least recently used entry (callers hold the catalog's lock)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self._size:
            self._items.popitem(last=False)


class _Row(NamedTuple):
    file_path: str
    heading: str
    breadcrumb: tuple[str, ...]
    url: str | None
    facets: dict[str, str]
    position: int | None  # None: an index built without the place columns
    total: int | None
    row_id: int | None  # LanceDB's ``_rowid``: a file's rows are written one after another
    copy_of: str | None  # the main copy of the row's group of copies; None: no copy (or no column)


class RowCatalog:
    """Row metadata of one table, read on demand; ``facets`` names the facet columns."""

    def __init__(self, table: Any, facets: Sequence[str]) -> None:
        self._table = table
        self.facet_columns = {name: facet_column(name) for name in sorted(facets)}
        # Page URLs: only in indexes of a site with a known base URL.
        self.has_urls = URL_COLUMN in table.schema.names
        # Each row's place in its file: in every index built since issue 34; else from its file's ids.
        self.has_places = {POSITION_COLUMN, FILE_CHUNKS_COLUMN} <= set(table.schema.names)
        # Each row's group of copies: in indexes built since issue 34 (before: the manifest's groups).
        self.has_copies = COPY_COLUMN in table.schema.names
        # Which rows lead their copies (the ones a search ranks): in indexes built since its column.
        self.has_leads = self.has_copies and COPY_LEAD_COLUMN in table.schema.names
        # What a search leg selects for the catalog besides ``id`` (``remember`` reads them).
        self.columns = [
            "file_path",
            "heading",
            "breadcrumb",
            *([URL_COLUMN] if self.has_urls else []),
            *([POSITION_COLUMN, FILE_CHUNKS_COLUMN] if self.has_places else []),
            *([COPY_COLUMN] if self.has_copies else []),
            *self.facet_columns.values(),
        ]
        self._lock = threading.Lock()
        self._rows: _Lru[str, _Row] = _Lru(ROWS_CACHED)
        self._files: _Lru[str, list[str]] = _Lru(FILES_CACHED)

    # -- reading --------------------------------------------------------------------------------

    def remember(self, found: pa.Table) -> dict[str, _Row]:
        """Keep the rows of ``found`` (``id`` and ``columns``, as a search leg read them); returns them.
        Rows already held are not read again: the legs of one search, and the next searches, meet
        the same rows."""
        if not found.num_rows:
            return {}
        ids = found["id"].to_pylist()
        with self._lock:
            held = {cid: row for cid in ids if (row := self._rows.get(cid)) is not None}
        if held:
            if len(held) == len(ids):
                return held
            found = found.filter(pa.array([cid not in held for cid in ids]))
        rows = self._read_rows(found)
        return {**held, **rows}

    def _read_rows(self, found: pa.Table) -> dict[str, _Row]:
        """The rows of ``found``, kept."""
        values = {name: found[name].to_pylist() for name in ("id", *self.columns)}
        nothing: list[Any] = [None] * found.num_rows
        urls = values.get(URL_COLUMN) or nothing
        positions, totals = values.get(POSITION_COLUMN) or nothing, values.get(FILE_CHUNKS_COLUMN) or nothing
        copies = values.get(COPY_COLUMN) or nothing
        row_ids = found["_rowid"].to_pylist() if "_rowid" in found.column_names else nothing
        rows: dict[str, _Row] = {}
        for i, cid in enumerate(values["id"]):
            facets = {
                name: value
                for name, column in self.facet_columns.items()
                if (value := values[column][i]) is not None
            }
            crumb = tuple(values["breadcrumb"][i] or ())
            row = _Row(
                values["file_path"][i],
                values["heading"][i],
                crumb,
                urls[i],
                facets,
                positions[i],
                totals[i],
                row_ids[i],
                copies[i],
            )
            rows[cid] = row
        with self._lock:
            for cid, row in rows.items():
                self._rows.put(cid, row)
        return rows

    def _query(self, where: str, columns: Sequence[str]) -> pa.Table:
        query = self._table.search().where(where).select(list(columns)).with_row_id(True)
        return query.limit(None).to_arrow()

    def _rows_of(self, ids: Iterable[str]) -> dict[str, _Row]:
        """The rows of those of ``ids`` the index holds."""
        wanted = list(dict.fromkeys(ids))
        with self._lock:
            found = {cid: row for cid in wanted if (row := self._rows.get(cid)) is not None}
        missing = [cid for cid in wanted if cid not in found]
        for start in range(0, len(missing), _IN_LIST_MAX):
            part = missing[start : start + _IN_LIST_MAX]
            read = self._query(f"id IN ({', '.join(map(sql_literal, part))})", ["id", *self.columns])
            found.update(self.remember(read))
        return found

    def _file_ids(self, files: Iterable[str]) -> dict[str, list[str]]:
        """Per file of ``files`` the index holds, its chunk ids in file order."""
        wanted = list(dict.fromkeys(files))
        with self._lock:
            found = {path: ids for path in wanted if (ids := self._files.get(path)) is not None}
        missing = [path for path in wanted if path not in found]
        for start in range(0, len(missing), _IN_LIST_MAX):
            part = missing[start : start + _IN_LIST_MAX]
            read = self._query(
                f"file_path IN ({', '.join(map(sql_literal, part))})", ["id", "file_path", "ordinal"]
            )
            entries: dict[str, list[tuple[int, str]]] = {}
            for cid, path, ordinal in zip(
                *(read[c].to_pylist() for c in ("id", "file_path", "ordinal")), strict=True
            ):
                entries.setdefault(path, []).append((ordinal, cid))
            with self._lock:
                for path, listed in entries.items():
                    ids = [cid for _, cid in sorted(listed)]
                    self._files.put(path, ids)
                    found[path] = ids
        return found

    # -- what the index asks --------------------------------------------------------------------

    def __contains__(self, chunk_id: object) -> bool:
        return isinstance(chunk_id, str) and chunk_id in self._rows_of([chunk_id])

    def sections(self, ids: Sequence[str], **extra: Sequence[Any]) -> list[Section]:
        """``Section``s of ``ids`` in order; ``extra`` gives per-id values of the optional fields
        (``snippet``, ``score``, ``markdown``). Raises ``KeyError`` for an id the index does not hold."""
        rows = self._rows_of(ids)
        unplaced = [rows[cid].file_path for cid in ids if rows[cid].position is None]
        files = self._file_ids(unplaced) if unplaced else {}
        sections = []
        for i, cid in enumerate(ids):
            row = rows[cid]
            position, total = row.position, row.total
            if position is None or total is None:
                in_file = files[row.file_path]
                position, total = in_file.index(cid) + 1, len(in_file)
            sections.append(
                Section(
                    chunk_id=cid,
                    file_path=row.file_path,
                    heading=row.heading,
                    breadcrumb=row.breadcrumb,
                    facets=dict(row.facets),
                    position=position,
                    total=total,
                    url=row.url,
                    **{field: values[i] for field, values in extra.items()},
                )
            )
        return sections

    def hit_row(self, cid: str) -> HitRow:
        """File and facet values of ``cid`` (what folding compares); a search's rows are remembered."""
        row = self._rows_of([cid])[cid]
        return HitRow(row.file_path, row.facets)

    def roles(self, ids: Iterable[str]) -> dict[str, Role]:
        """The ``kind`` facet and own names of each of ``ids`` the index holds, read together: its
        heading, and the heading above it when it sits below the page title (a subsection of an
        operation is named by its operation too)."""
        return {
            cid: Role(row.facets.get(KIND), (row.heading, *row.breadcrumb[1:][-1:]))
            for cid, row in self._rows_of(ids).items()
        }

    def ids_with(self, values: Mapping[str, Collection[str]]) -> list[str]:
        """Ids of the chunks holding any of ``values[facet]`` for any facet, files sorted, in file order."""
        clauses = [
            f"{self.facet_columns[name]} IN ({', '.join(map(sql_literal, sorted(wanted)))})"
            for name, wanted in values.items()
            if name in self.facet_columns and wanted
        ]
        if not clauses:
            return []
        read = self._query(" OR ".join(f"({clause})" for clause in clauses), ["id", "file_path", "ordinal"])
        ordered = sorted(zip(*(read[c].to_pylist() for c in ("file_path", "ordinal", "id")), strict=True))
        return [cid for _, _, cid in ordered]

    def window(self, chunk_id: str, context: int) -> tuple[list[str], dict[str, str]]:
        """``chunk_id`` and up to ``context`` neighbours each side in its file, in file order, and
        their markdown: one query on the file's place columns (two on an index without them)."""
        row = self._rows_of([chunk_id])[chunk_id]
        if row.position is None:
            in_file = self._file_ids([row.file_path])[row.file_path]
            position = in_file.index(chunk_id)
            ids = in_file[max(0, position - context) : position + context + 1]
            read = self._query(f"id IN ({', '.join(map(sql_literal, ids))})", ["id", "markdown"])
            return ids, dict(zip(read["id"].to_pylist(), read["markdown"].to_pylist(), strict=True))
        if row.row_id is not None and row.total is not None:
            found = self._taken(row, context)
            if found is not None:
                return found
        where = (
            f"file_path = {sql_literal(row.file_path)} AND {POSITION_COLUMN} >= {row.position - context} "
            f"AND {POSITION_COLUMN} <= {row.position + context}"
        )
        read = self._query(where, ["id", "markdown", *self.columns])
        self.remember(read)
        ordered = sorted(zip(read[POSITION_COLUMN].to_pylist(), read["id"].to_pylist(), strict=True))
        return [cid for _, cid in ordered], dict(
            zip(read["id"].to_pylist(), read["markdown"].to_pylist(), strict=True)
        )

    def _taken(self, row: _Row, context: int) -> tuple[list[str], dict[str, str]] | None:
        """The window around ``row`` taken by row id (a file's rows sit one after another, so its
        neighbours are the rows beside it): cheaper than a filtered query. None when the rows found
        are not exactly the file's places asked (a table whose layout differs): query instead."""
        assert row.position is not None and row.total is not None and row.row_id is not None
        low, high = max(1, row.position - context), min(row.total, row.position + context)
        wanted = [row.row_id + place - row.position for place in range(low, high + 1)]
        if min(wanted) < 0:
            return None
        try:
            read = self._table.take_row_ids(wanted).select(["id", "markdown", *self.columns]).to_arrow()
        except (OSError, RuntimeError, ValueError):  # a row id past the end of a fragment
            return None
        files, places = read["file_path"].to_pylist(), read[POSITION_COLUMN].to_pylist()
        if set(files) != {row.file_path} or sorted(places) != list(range(low, high + 1)):
            return None
        self.remember(read)
        ordered = sorted(zip(places, read["id"].to_pylist(), strict=True))
        markdown = dict(zip(read["id"].to_pylist(), read["markdown"].to_pylist(), strict=True))
        return [cid for _, cid in ordered], markdown

    def close_ids(self, chunk_id: str) -> list[str]:
        """Up to five ids that look like ``chunk_id`` (a typo, an old heading), for an error's hint.
        An error path: an unknown file reads the ``file_path`` column once."""
        file_part = chunk_id.split("#", 1)[0]
        candidates = self._file_ids([file_part]).get(file_part)
        if candidates is None:
            paths = self._table.search().select(["file_path"]).limit(None).to_arrow()["file_path"]
            files = difflib.get_close_matches(file_part, pc.unique(paths).to_pylist(), n=3, cutoff=0.6)
            candidates = [cid for ids in self._file_ids(files).values() for cid in ids]
        return difflib.get_close_matches(chunk_id, candidates, n=5, cutoff=0.5)

    def example(self) -> tuple[str, str]:
        """The heading and id of one section, the same for every open of one index
        (``store.index_manifest.pick_example``); empty strings for an empty index. Reads the id,
        heading and breadcrumb columns: for an index whose manifest carries no example."""
        read = self._table.search().select(["id", "heading", "breadcrumb"]).limit(None).to_arrow()
        columns = (read[c].to_pylist() for c in ("id", "heading", "breadcrumb"))
        picked = pick_example(zip(*columns, strict=True))
        return picked.get("query", ""), picked.get("chunk_id", "")

    def main_copies(self, ids: Sequence[str]) -> dict[str, str]:
        """The main copy of each of ``ids`` that has copies (``COPY_COLUMN``), read together; a
        search's rows are remembered, so its hits cost no read."""
        if not self.has_copies:
            return {}
        return {cid: row.copy_of for cid, row in self._rows_of(ids).items() if row.copy_of is not None}

    def texts(self, ids: Sequence[str]) -> dict[str, str]:
        """The ``text`` of each of ``ids`` (a page's hits whose leg did not read it, ``lance.text_leg``):
        one read by row id of the rows a search remembered, else one query on the btree-indexed id."""
        rows = self._rows_of(ids)
        row_ids = [row.row_id for cid in ids if (row := rows.get(cid)) is not None and row.row_id is not None]
        if len(row_ids) == len(ids):
            read = self._table.take_row_ids(row_ids).select(["id", TEXT_COLUMN]).to_arrow()
        else:
            read = self._query(f"id IN ({', '.join(map(sql_literal, ids))})", ["id", TEXT_COLUMN])
        return dict(zip(read["id"].to_pylist(), read[TEXT_COLUMN].to_pylist(), strict=True))

    def others(self) -> int:
        """How many rows lead no group of copies (``COPY_LEAD_COLUMN``; an index that has it): one
        count on its bitmap index."""
        return int(self._table.count_rows(f"NOT {COPY_LEAD_COLUMN}"))

    def copies_of(self, groups: Sequence[str], where: str | None) -> list[tuple[str, str]]:
        """The members of ``groups`` (main copies' ids) under the filter ``where``, as (main copy,
        id), in id order: one query on the btree-indexed ``COPY_COLUMN``."""
        found: list[tuple[str, str]] = []
        for start in range(0, len(groups), _IN_LIST_MAX):
            part = ", ".join(map(sql_literal, groups[start : start + _IN_LIST_MAX]))
            clause = f"{COPY_COLUMN} IN ({part})"
            read = self._query(f"({where}) AND {clause}" if where else clause, [COPY_COLUMN, "id"])
            found.extend(zip(read[COPY_COLUMN].to_pylist(), read["id"].to_pylist(), strict=True))
        return sorted(found, key=lambda member: member[1])

    def facet_values(self, ids: Sequence[str], name: str) -> set[str]:
        return {value for row in self._rows_of(ids).values() if (value := row.facets.get(name)) is not None}
