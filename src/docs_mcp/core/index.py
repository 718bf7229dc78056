"""The read side of an index: ``DocsIndex`` searches and fetches chunks of a built ``OUT`` folder.

Imported by the server, so it stays free of build-time dependencies (markdown, yaml, openai).
One ``DocsIndex`` may be used from several threads at once: the LanceDB table is opened once and
only read; the id map is built at open and never changed.
"""

from __future__ import annotations

import difflib
import logging
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lancedb
from lancedb.query import BooleanQuery, FullTextQuery, MatchQuery, Occur

from docs_mcp.core.embedding.provider import EmbeddingProvider, create_provider
from docs_mcp.core.errors import ChunkNotFound, DocsMcpError, IndexCompatibilityError, IndexError_, QueryError
from docs_mcp.core.filters import build_where, sql_literal, validate_filters
from docs_mcp.core.fusion import FusionConfig, fuse
from docs_mcp.core.index_manifest import IndexManifest, read_manifest
from docs_mcp.core.index_schema import (
    FTS_COLUMNS,
    FTS_CRUMBS,
    FTS_HEADING,
    FTS_SPLIT,
    FTS_TEXT,
    LANCEDB_DIR,
    TABLE_NAME,
    VECTOR_COLUMN,
    facet_column,
)
from docs_mcp.core.search_types import (
    ChunkView,
    ChunkWindow,
    SearchHit,
    SearchMode,
    SearchPage,
    SearchRequest,
)
from docs_mcp.core.snippets import make_snippet
from docs_mcp.core.textsplit import expand_query

log = logging.getLogger(__name__)

UNFILTERED = "_unfiltered"
MAX_LIMIT = 100
_SUGGEST_DEPTH = 200


@dataclass(frozen=True)
class SearchConfig:
    """Ranking knobs. Boosts multiply each full-text column's BM25 score; the scores are summed.

    Defaults measured on claude-docs (see the eval report in the build issue).
    """

    boosts: Mapping[str, float] = field(
        default_factory=lambda: {FTS_TEXT: 1.0, FTS_SPLIT: 0.1, FTS_HEADING: 0.6, FTS_CRUMBS: 0.8}
    )
    fusion: FusionConfig = field(default_factory=FusionConfig)
    # Each hybrid leg fetches at least this many candidates (more when the page needs it), so the
    # fused order of the first pages does not depend on the page asked for.
    min_candidates: int = 50


class DocsIndex:
    """A built index, opened for reading. Create with ``DocsIndex.open(OUT)``."""

    def __init__(
        self,
        path: Path,
        manifest: IndexManifest,
        table: Any,
        embedder: EmbeddingProvider | None,
        embedder_problem: str | None,
        query_timeout: float,
        config: SearchConfig,
    ) -> None:
        self.path = path
        self.manifest = manifest
        self.identity = manifest.identity
        self.facets: dict[str, list[str]] = {k: list(v) for k, v in manifest.facets.items()}
        self.config = config
        self._table = table
        self._embedder = embedder
        self._embedder_problem = embedder_problem
        self._query_timeout = query_timeout
        self._pool = (
            ThreadPoolExecutor(max_workers=4, thread_name_prefix="docs-mcp-embed") if embedder else None
        )
        self._has_vectors = manifest.embedding is not None
        self._fts_columns = [c for c in FTS_COLUMNS if config.boosts.get(c, 0) > 0]
        self._fts_boosts = [float(config.boosts[c]) for c in self._fts_columns]
        self._display = ["id", "file_path", "heading", "breadcrumb", FTS_TEXT] + [
            facet_column(name) for name in sorted(self.facets)
        ]
        ids = table.search().select(["id", "file_path", "ordinal"]).limit(None).to_arrow().to_pydict()
        self._files: dict[str, list[tuple[int, str]]] = {}
        self._where: dict[str, tuple[str, int]] = {}
        for cid, file_path, ordinal in zip(ids["id"], ids["file_path"], ids["ordinal"], strict=True):
            self._where[cid] = (file_path, ordinal)
            self._files.setdefault(file_path, []).append((ordinal, cid))
        for entries in self._files.values():
            entries.sort()

    @classmethod
    def open(
        cls,
        path: Path | str,
        *,
        query_embedder: EmbeddingProvider | None = None,
        query_timeout: float = 5.0,
        config: SearchConfig | None = None,
    ) -> DocsIndex:
        """Open the index ``docs-mcp build`` wrote into ``path``.

        Raises ``IndexError_`` when it is missing or corrupt, ``IndexCompatibilityError`` when its format
        differs or ``query_embedder`` does not match the provider/model/dimensions it was built with.
        When the recorded provider cannot be created, searches fall back to full text (logged).
        """
        root = Path(path)
        manifest = read_manifest(root)
        try:
            table = lancedb.connect(str(root / LANCEDB_DIR)).open_table(TABLE_NAME)
        except Exception as error:  # LanceDB raises assorted errors for a missing/damaged table
            raise IndexError_(
                f"the index at {str(root)!r} is damaged ({error}); "
                "rebuild it: docs-mcp build --docs-dir DOCS --out OUT"
            ) from error
        embedder, problem = _query_embedder(manifest, query_embedder)
        if problem:
            log.warning("vector search disabled, searching full text only: %s", problem)
        return cls(root, manifest, table, embedder, problem, query_timeout, config or SearchConfig())

    # -- search ---------------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchPage:
        """One page of hits for ``request``, best first, ties broken by chunk id.

        Raises ``QueryError`` for an unknown facet, a value the index does not hold, or a bad page.
        """
        if request.limit < 1 or request.limit > MAX_LIMIT or request.offset < 0:
            raise QueryError(
                f"limit must be 1..{MAX_LIMIT} and offset >= 0 (got {request.limit}, {request.offset})"
            )
        where = build_where(request.filters, self.facets)
        mode, fallback = self._choose_mode(request.mode)
        wanted = request.offset + request.limit + 1  # one more tells whether another page exists
        vector: list[float] | None = None
        if mode != "fulltext":
            vector, problem = self._embed_query(request.query)
            if vector is None:
                mode, fallback = "fulltext", problem
        rows: dict[str, dict[str, Any]] = {}
        if mode == "fulltext":
            ranked = self._text_leg(request.query, where, wanted, rows)
        elif mode == "vector":
            ranked = self._vector_leg(vector or [], where, wanted, rows)
        else:
            depth = max(wanted, self.config.min_candidates)
            ranked = fuse(
                self._text_leg(request.query, where, depth, rows),
                self._vector_leg(vector or [], where, depth, rows),
                self.config.fusion,
            )
        page = ranked[request.offset : request.offset + request.limit]
        hits = [self._hit(rows[cid], score, request.query) for cid, score in page]
        has_more = len(ranked) > request.offset + request.limit
        return SearchPage(hits, request.offset, request.limit, has_more, mode, fallback)

    def _choose_mode(self, asked: SearchMode | None) -> tuple[SearchMode, str | None]:
        if not self._has_vectors:
            reason = (
                None
                if asked in (None, "fulltext")
                else "the index has no vectors (built with --embedding-provider none)"
            )
            return "fulltext", reason
        if self._embedder is None:
            reason = None if asked == "fulltext" else f"query embedder unavailable: {self._embedder_problem}"
            return "fulltext", reason
        return asked or "hybrid", None

    def _embed_query(self, query: str) -> tuple[list[float] | None, str | None]:
        assert self._embedder is not None and self._pool is not None
        future = self._pool.submit(self._embedder.embed_query, query)
        try:
            return list(future.result(timeout=self._query_timeout)), None
        except FutureTimeout:
            problem = f"query embedding took longer than {self._query_timeout:g} s"
        except DocsMcpError as error:
            problem = f"query embedding failed: {error}"
        except Exception as error:  # a provider bug must not take search down with it
            problem = f"query embedding failed: {type(error).__name__}: {error}"
        log.warning("searching full text only: %s", problem)
        return None, problem

    def _text_leg(
        self, query: str, where: str | None, depth: int, rows: dict[str, dict[str, Any]]
    ) -> list[tuple[str, float]]:
        if not query.strip():
            return []
        # SHOULD clauses sum the columns' BM25 scores (MultiMatchQuery would take only the best one).
        terms = expand_query(query)
        match: Any = MatchQuery  # pydantic dataclass: mypy sees its defaulted fields as required
        clauses: list[tuple[Occur, FullTextQuery]] = [
            (Occur.SHOULD, match(terms, column, boost=boost))
            for column, boost in zip(self._fts_columns, self._fts_boosts, strict=True)
        ]
        builder = self._table.search(BooleanQuery(clauses), query_type="fts")
        if where:
            builder = builder.where(where, prefilter=True)
        found = builder.select([*self._display, "_score"]).limit(depth).to_arrow().to_pylist()
        for row in found:
            rows.setdefault(row["id"], row)
        return sorted(
            ((row["id"], float(row["_score"])) for row in found), key=lambda item: (-item[1], item[0])
        )

    def _vector_leg(
        self, vector: Sequence[float], where: str | None, depth: int, rows: dict[str, dict[str, Any]]
    ) -> list[tuple[str, float]]:
        builder = self._table.search(
            vector, query_type="vector", vector_column_name=VECTOR_COLUMN
        ).distance_type("cosine")
        if where:
            builder = builder.where(where, prefilter=True)
        found = builder.select([*self._display, "_distance"]).limit(depth).to_arrow().to_pylist()
        for row in found:
            rows.setdefault(row["id"], row)
        # Cosine similarity, so that higher is better like BM25.
        return sorted(
            ((row["id"], 1.0 - float(row["_distance"])) for row in found),
            key=lambda item: (-item[1], item[0]),
        )

    def _hit(self, row: Mapping[str, Any], score: float, query: str) -> SearchHit:
        return SearchHit(
            chunk_id=row["id"],
            file_path=row["file_path"],
            heading=row["heading"],
            breadcrumb=tuple(row["breadcrumb"]),
            snippet=make_snippet(row[FTS_TEXT], query),
            facets=self._row_facets(row),
            score=round(score, 6),
        )

    def _row_facets(self, row: Mapping[str, Any]) -> dict[str, str]:
        return {
            name: row[facet_column(name)]
            for name in sorted(self.facets)
            if row.get(facet_column(name)) is not None
        }

    # -- zero-result hints ----------------------------------------------------------------------

    def suggest_filters(self, query: str, filters: Mapping[str, str]) -> dict[str, list[str]]:
        """Where ``query`` does match, for an empty result's hint.

        For each facet: the sorted values under which the query has full-text matches when that
        facet's own filter is dropped and the other given filters are kept. The key ``_unfiltered``
        (value ``[]``) is present when the query matches anything with no filter at all. Invalid
        filters are ignored here (``search`` reports them). Never raises ``QueryError``.
        """
        valid: dict[str, str] = {}
        for name, value in filters.items():
            try:
                valid.update(validate_filters({name: value}, self.facets))
            except QueryError:
                continue
        suggestions: dict[str, list[str]] = {}
        for name in sorted(self.facets):
            others = {k: v for k, v in valid.items() if k != name}
            found: dict[str, dict[str, Any]] = {}
            self._text_leg(query, build_where(others, self.facets), _SUGGEST_DEPTH, found)
            values = sorted({row[facet_column(name)] for row in found.values()} - {None})
            if values:
                suggestions[name] = values
        if self._text_leg(query, None, 1, {}):
            suggestions[UNFILTERED] = []
        return suggestions

    # -- get ------------------------------------------------------------------------------------

    def get(self, chunk_id: str, context: int = 0) -> ChunkWindow:
        """The chunk ``chunk_id`` with up to ``context`` neighbours each side, in file order.

        Raises ``ChunkNotFound`` (with close ids as suggestions) for an id the index does not hold and
        ``QueryError`` for a negative context.
        """
        if context < 0:
            raise QueryError(f"context must be >= 0 (got {context})")
        located = self._where.get(chunk_id)
        if located is None:
            close = self._close_ids(chunk_id)
            hint = f"; did you mean: {', '.join(close)}" if close else "; search_docs returns valid ids"
            raise ChunkNotFound(f"no chunk with id {chunk_id!r}{hint}", chunk_id, close)
        file_path, ordinal = located
        entries = self._files[file_path]
        position = bisect_left(entries, (ordinal, chunk_id))
        window = entries[max(0, position - context) : position + context + 1]
        ids = [cid for _, cid in window]
        where = "id IN (" + ", ".join(sql_literal(cid) for cid in ids) + ")"
        columns = ["id", "file_path", "heading", "breadcrumb", "markdown"] + [
            facet_column(n) for n in sorted(self.facets)
        ]
        found = {
            row["id"]: row
            for row in self._table.search()
            .where(where)
            .select(columns)
            .limit(len(ids))
            .to_arrow()
            .to_pylist()
        }
        first = max(0, position - context)
        views = [
            ChunkView(
                chunk_id=cid,
                file_path=found[cid]["file_path"],
                heading=found[cid]["heading"],
                breadcrumb=tuple(found[cid]["breadcrumb"]),
                markdown=found[cid]["markdown"],
                facets=self._row_facets(found[cid]),
                position=first + offset + 1,
                total=len(entries),
            )
            for offset, cid in enumerate(ids)
        ]
        return ChunkWindow(chunk_id, views)

    def _close_ids(self, chunk_id: str) -> list[str]:
        file_part = chunk_id.split("#", 1)[0]
        if file_part in self._files:
            candidates = [cid for _, cid in self._files[file_part]]
        else:
            files = difflib.get_close_matches(file_part, list(self._files), n=3, cutoff=0.6)
            candidates = [cid for f in files for _, cid in self._files[f]]
        return difflib.get_close_matches(chunk_id, candidates, n=5, cutoff=0.5)


def _query_embedder(
    manifest: IndexManifest, given: EmbeddingProvider | None
) -> tuple[EmbeddingProvider | None, str | None]:
    """The embedder for queries and, when there is none, why."""
    recorded = manifest.embedding
    if recorded is None:
        return None, None
    if given is not None:
        if (given.model, int(given.dimensions)) != (recorded.model, recorded.dimensions):
            raise IndexCompatibilityError(
                f"the index was built with {recorded.provider} model {recorded.model!r} "
                f"({recorded.dimensions} dimensions) but the query embedder is {given.name} model "
                f"{given.model!r} ({given.dimensions} dimensions); use the same model or rebuild the index"
            )
        return given, None
    try:
        created = create_provider(recorded.provider, model=recorded.model, dimensions=recorded.dimensions)
    except DocsMcpError as error:
        return None, str(error)
    if created is None or int(created.dimensions) != recorded.dimensions:
        return (
            None,
            f"provider {recorded.provider!r} does not produce {recorded.dimensions}-dimension vectors",
        )
    return created, None
