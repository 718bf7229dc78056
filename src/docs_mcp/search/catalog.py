"""What an index holds per row, read once at open: ids, files, positions, display fields and facets.

A search reads only ids, scores and the text of its page from LanceDB; everything a result shows about
a section (file, heading, breadcrumb, facets, its position in its file) comes from here, taken for the
whole page with one Arrow ``take`` per column. Built at open and never changed, so it is safe to read
from many threads.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from docs_mcp.search.folding import HitRow
from docs_mcp.search.types import Section
from docs_mcp.store.columns import URL_COLUMN, facet_column
from docs_mcp.store.index_manifest import pick_example

_DISPLAY_COLUMNS = ("file_path", "heading", "breadcrumb")


class RowCatalog:
    """Row metadata of one table; ``facets`` names the facet columns to read."""

    def __init__(self, table: Any, facets: Sequence[str]) -> None:
        self.facet_columns = {name: facet_column(name) for name in sorted(facets)}
        # Page URLs: only in indexes of a site with a known base URL.
        self.has_urls = URL_COLUMN in table.schema.names
        urls = [URL_COLUMN] if self.has_urls else []
        meta = (
            table.search()
            .select(
                ["id", "file_path", "ordinal", *_DISPLAY_COLUMNS[1:], *urls, *self.facet_columns.values()]
            )
            .with_row_id(True)
            .limit(None)
            .to_arrow()
        )
        self._meta: dict[str, pa.ChunkedArray] = {name: meta[name] for name in meta.column_names}
        self.row_ids: list[int] = meta["_rowid"].to_pylist()
        ids, files, ordinals = (meta[c].to_pylist() for c in ("id", "file_path", "ordinal"))
        self._row: dict[str, int] = {cid: number for number, cid in enumerate(ids)}
        # Per file, its chunks in file order; per chunk, where it sits in that list.
        self._files: dict[str, list[tuple[int, str]]] = {}
        for cid, file_path, ordinal in zip(ids, files, ordinals, strict=True):
            self._files.setdefault(file_path, []).append((ordinal, cid))
        self._where: dict[str, tuple[str, int]] = {}
        for file_path, entries in self._files.items():
            entries.sort()
            for position, (_, cid) in enumerate(entries, start=1):
                self._where[cid] = (file_path, position)
        # Per facet, its values and each row's index into them (None: no value): what folding reads
        # of every ranked hit, without an Arrow take per search (2 bytes a row, not a string).
        self._facet_codes: dict[str, tuple[list[str], list[int | None]]] = {}
        for name, column in self.facet_columns.items():
            encoded = pc.dictionary_encode(meta[column].combine_chunks())
            self._facet_codes[name] = (encoded.dictionary.to_pylist(), encoded.indices.to_pylist())

    def __contains__(self, chunk_id: object) -> bool:
        return chunk_id in self._where

    def sections(self, ids: Sequence[str], **extra: Sequence[Any]) -> list[Section]:
        """``Section``s of ``ids`` in order; ``extra`` gives per-id values of the optional fields
        (``snippet``, ``score``, ``markdown``)."""
        numbers = pa.array([self._row[cid] for cid in ids], type=pa.int64())
        files, headings, crumbs = (self._meta[c].take(numbers).to_pylist() for c in _DISPLAY_COLUMNS)
        facets = {
            name: self._meta[column].take(numbers).to_pylist() for name, column in self.facet_columns.items()
        }
        urls = self._meta[URL_COLUMN].take(numbers).to_pylist() if self.has_urls else [None] * len(ids)
        return [
            Section(
                chunk_id=cid,
                file_path=files[i],
                heading=headings[i],
                breadcrumb=tuple(crumbs[i]),
                facets={name: values[i] for name, values in facets.items() if values[i] is not None},
                position=self._where[cid][1],
                total=len(self._files[files[i]]),
                url=urls[i],
                **{field: values[i] for field, values in extra.items()},
            )
            for i, cid in enumerate(ids)
        ]

    def hit_row(self, cid: str) -> HitRow:
        """File and facet values of ``cid`` (what folding compares)."""
        number = self._row[cid]
        facets: dict[str, str] = {}
        for name, (values, codes) in self._facet_codes.items():
            code = codes[number]
            if code is not None:
                facets[name] = values[code]
        return HitRow(self._where[cid][0], facets)

    def ids_with(self, values: Mapping[str, Collection[str]]) -> list[str]:
        """Ids of the chunks holding any of ``values[facet]`` for any facet, files sorted, in file order."""
        matched: set[str] = set()
        for name, wanted in values.items():
            if name in self.facet_columns and wanted:
                mask = pc.is_in(self._meta[self.facet_columns[name]], value_set=pa.array(sorted(wanted)))
                matched.update(self._meta["id"].filter(pc.fill_null(mask, False)).to_pylist())
        return sorted(matched, key=self._where.__getitem__)

    def window(self, chunk_id: str, context: int) -> list[str]:
        """``chunk_id`` and up to ``context`` neighbours each side in its file, in file order."""
        file_path, position = self._where[chunk_id]
        entries = self._files[file_path][max(0, position - 1 - context) : position + context]
        return [cid for _, cid in entries]

    def row_ids_of(self, ids: Sequence[str]) -> list[int]:
        return [self.row_ids[self._row[cid]] for cid in ids]

    def close_ids(self, chunk_id: str) -> list[str]:
        """Up to five ids that look like ``chunk_id`` (a typo, an old heading), for an error's hint."""
        file_part = chunk_id.split("#", 1)[0]
        if file_part in self._files:
            candidates = [cid for _, cid in self._files[file_part]]
        else:
            files = difflib.get_close_matches(file_part, list(self._files), n=3, cutoff=0.6)
            candidates = [cid for f in files for _, cid in self._files[f]]
        return difflib.get_close_matches(chunk_id, candidates, n=5, cutoff=0.5)

    def example(self) -> tuple[str, str]:
        """The heading and id of one section, the same for every open of one index
        (``store.index_manifest.pick_example``); empty strings for an empty index."""
        ids, headings, crumbs = (self._meta[c].to_pylist() for c in ("id", "heading", "breadcrumb"))
        picked = pick_example(zip(ids, headings, crumbs, strict=True))
        return picked.get("query", ""), picked.get("chunk_id", "")

    def facet_values(self, ids: Sequence[str], name: str) -> set[str]:
        column = self._meta[self.facet_columns[name]]
        return {column[self._row[cid]].as_py() for cid in ids} - {None}
