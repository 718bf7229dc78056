"""The read side of an index: ``DocsIndex`` searches and fetches chunks of a built ``OUT`` folder.

Imported by the server, so it stays free of build-time dependencies (markdown, yaml, openai).
One ``DocsIndex`` may be used from several threads at once: the LanceDB table is opened once and
only read; the id map is built at open and never changed.
"""

from __future__ import annotations

import asyncio
import difflib
import logging
from bisect import bisect_left
from collections.abc import Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import lancedb
import pyarrow as pa
from lancedb.background_loop import LOOP
from lancedb.query import BooleanQuery, FullTextQuery, MatchQuery, Occur, PhraseQuery

from docs_mcp.embedding.provider import EmbeddingProvider, create_provider
from docs_mcp.errors import ChunkNotFound, DocsMcpError, IndexCompatibilityError, IndexUnavailable, QueryError
from docs_mcp.search.filters import build_where, validate_filters
from docs_mcp.search.fusion import FusionConfig, fuse
from docs_mcp.search.snippets import make_snippet
from docs_mcp.search.types import (
    UNFILTERED,
    ChunkView,
    ChunkWindow,
    SearchHit,
    SearchMode,
    SearchPage,
    SearchRequest,
)
from docs_mcp.store.identifiers import expand_query, query_phrases
from docs_mcp.store.manifest import IndexManifest, read_manifest
from docs_mcp.store.schema import (
    FTS_BODY,
    FTS_COLUMNS,
    FTS_CRUMBS,
    LANCEDB_DIR,
    TABLE_NAME,
    TEXT_COLUMN,
    VECTOR_COLUMN,
    facet_column,
)

log = logging.getLogger(__name__)
_T = TypeVar("_T")

MAX_LIMIT = 100
_SUGGEST_DEPTH = 200
_HIT_COLUMNS = ("file_path", "heading", "breadcrumb")


@dataclass(frozen=True)
class SearchConfig:
    """Ranking knobs. Boosts multiply each full-text column's BM25 score; the scores are summed.

    Defaults measured on claude-docs (benchmarks/test_quality.py; the variants tried are in the eval
    report): crumbs 1.2 is the middle of a plateau (1.0-1.5 gave recall@3 0.723-0.728, MRR@3 0.867).

    Phrase bonus (the sequential dependence model, Metzler & Croft 2005): each pair of adjacent
    content words of the query is also searched as an exact phrase in every full-text column, and
    phrase matches add ``phrase_weight`` relative to the word matches (SDM's published weights,
    0.1 ordered pairs / 0.85 words, so 0.12). On claude-docs it lifted full text from 0.728 / 0.867
    to 0.746 / 0.877 and local hybrid from 0.780 / 0.913 to 0.783 / 0.920; 0.1-0.3 and phrases
    in the body column only gave MRR@3 0.863-0.877 (full table in the eval report). ``0`` turns it off.
    """

    boosts: Mapping[str, float] = field(default_factory=lambda: {FTS_BODY: 1.0, FTS_CRUMBS: 1.2})
    phrase_weight: float = 0.12
    # At most this many query word pairs become phrase clauses (each one costs query time); claude-docs
    # questions have up to 10, and 8 scored the same as no limit.
    max_phrases: int = 8
    fusion: FusionConfig = field(default_factory=FusionConfig)
    # Each hybrid leg fetches at least this many candidates (more when the page needs it), so the
    # fused order of the first pages does not depend on the page asked for.
    min_candidates: int = 50
    # HNSW candidate list of the vector leg when the table has a vector index; None keeps LanceDB's
    # default (1.5 x the limit). Raising it costs latency (measured in benchmarks/test_search.py).
    hnsw_ef: int | None = None


class DocsIndex:
    """A built index, opened for reading. Create with ``DocsIndex.open(OUT)``.

    Every search is one coroutine on LanceDB's background event loop: the query objects are built,
    run (both legs of a hybrid search concurrently) and read there, in a single hand-off from the
    calling thread. Per-row display fields (file, heading, breadcrumb, facets) are read once at open
    and kept as Arrow columns, so a search reads only ids, scores and the text of its page.
    """

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
        self._facet_columns = {name: facet_column(name) for name in sorted(self.facets)}
        meta = (
            table.search()
            .select(["id", "file_path", "ordinal", "heading", "breadcrumb", *self._facet_columns.values()])
            .with_row_id(True)
            .limit(None)
            .to_arrow()
        )
        self._meta: dict[str, pa.ChunkedArray] = {name: meta[name] for name in meta.column_names}
        self._row_ids: list[int] = meta["_rowid"].to_pylist()
        self._vector_indexed = any(VECTOR_COLUMN in config_.columns for config_ in table.list_indices())
        self._async_table: Any = _run(_open_async(path))
        ids, files, ordinals = (meta[c].to_pylist() for c in ("id", "file_path", "ordinal"))
        self._row: dict[str, int] = {cid: number for number, cid in enumerate(ids)}
        self._files: dict[str, list[tuple[int, str]]] = {}
        self._where: dict[str, tuple[str, int]] = {}
        for cid, file_path, ordinal in zip(ids, files, ordinals, strict=True):
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

        Raises ``IndexUnavailable`` when it is missing or corrupt, ``IndexCompatibilityError`` when its format
        differs or ``query_embedder`` does not match the provider/model/dimensions it was built with.
        When the recorded provider cannot be created, searches fall back to full text (logged).
        """
        root = Path(path)
        manifest = read_manifest(root)
        try:
            table = lancedb.connect(str(root / LANCEDB_DIR)).open_table(TABLE_NAME)
        except Exception as error:  # LanceDB raises assorted errors for a missing/damaged table
            raise IndexUnavailable(
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
        ranked, texts = _run(self._ranked(mode, request, vector, where, wanted))
        page = ranked[request.offset : request.offset + request.limit]
        hits = self._hits(page, texts, request.query)
        has_more = len(ranked) > request.offset + request.limit
        return SearchPage(hits, request.offset, request.limit, has_more, mode, fallback)

    async def _ranked(
        self,
        mode: SearchMode,
        request: SearchRequest,
        vector: Sequence[float] | None,
        where: str | None,
        wanted: int,
    ) -> tuple[list[tuple[str, float]], dict[str, str]]:
        """The ranking (id, score) and the text of every ranked row, read in one go on the event loop."""
        # Each leg reads the text of its rows with the ranking (measured: +0.4 ms on a 50-row vector
        # leg, against ~2 ms for reading the page's text in a second query afterwards).
        texts: dict[str, str] = {}
        if mode == "fulltext":
            ranked = await self._text_leg(request.query, where, wanted, texts)
        else:
            depth = wanted if mode == "vector" else max(wanted, self.config.min_candidates)
            vector_leg = self._vector_leg(vector or [], where, depth, texts)
            if mode == "vector":
                ranked = await vector_leg
            else:
                text, by_vector = await asyncio.gather(
                    self._text_leg(request.query, where, depth, texts), vector_leg
                )
                ranked = fuse(text, by_vector, self.config.fusion)
        return ranked, texts

    def _fts_query(self, query: str) -> FullTextQuery:
        # SHOULD clauses sum the columns' BM25 scores (MultiMatchQuery would take only the best one).
        terms = expand_query(query)
        phrases = query_phrases(query, self.config.max_phrases) if self.config.phrase_weight > 0 else []
        # A phrase clause has no boost of its own, so the word clauses are scaled up instead: only the
        # ratio matters to the ranking (and to the min-max normalised hybrid fusion).
        scale = 1.0 / self.config.phrase_weight if phrases else 1.0
        # pydantic dataclasses: mypy sees their defaulted fields as required
        match: Any = MatchQuery
        phrase_query: Any = PhraseQuery
        clauses: list[tuple[Occur, FullTextQuery]] = [
            (Occur.SHOULD, match(terms, column, boost=boost * scale))
            for column, boost in zip(self._fts_columns, self._fts_boosts, strict=True)
        ]
        clauses.extend(
            (Occur.SHOULD, phrase_query(phrase, column)) for column in self._fts_columns for phrase in phrases
        )
        return BooleanQuery(clauses)

    async def _text_leg(
        self, query: str, where: str | None, depth: int, texts: dict[str, str] | None
    ) -> list[tuple[str, float]]:
        """(id, BM25 score) best first, ties by id; the rows' text goes into ``texts`` when given."""
        if not query.strip():
            return []
        builder = self._async_table.query().nearest_to_text(self._fts_query(query))
        if where:
            builder = builder.where(where)  # a prefilter: async queries filter before ranking
        columns = ["id", "_score"] if texts is None else ["id", TEXT_COLUMN, "_score"]
        found = (await builder.select(columns).limit(depth).to_arrow()).to_pydict()
        if texts is not None:
            texts.update(zip(found["id"], found[TEXT_COLUMN], strict=True))
        return sorted(
            zip(found["id"], (float(s) for s in found["_score"]), strict=True),
            key=lambda item: (-item[1], item[0]),
        )

    async def _vector_leg(
        self, vector: Sequence[float], where: str | None, depth: int, texts: dict[str, str]
    ) -> list[tuple[str, float]]:
        builder = (
            self._async_table.query().nearest_to(list(vector)).column(VECTOR_COLUMN).distance_type("cosine")
        )
        if self._vector_indexed and self.config.hnsw_ef is not None:
            builder = builder.ef(max(self.config.hnsw_ef, depth))
        if where:
            builder = builder.where(where)
        found = (await builder.select(["id", TEXT_COLUMN, "_distance"]).limit(depth).to_arrow()).to_pydict()
        texts.update(zip(found["id"], found[TEXT_COLUMN], strict=True))
        # Cosine similarity, so that higher is better like BM25.
        return sorted(
            ((cid, 1.0 - float(d)) for cid, d in zip(found["id"], found["_distance"], strict=True)),
            key=lambda item: (-item[1], item[0]),
        )

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

    def _hits(
        self, page: Sequence[tuple[str, float]], texts: Mapping[str, str], query: str
    ) -> list[SearchHit]:
        # One Arrow take per column for the whole page: cheaper than a scalar conversion per field.
        numbers = pa.array([self._row[cid] for cid, _ in page], type=pa.int64())
        files, headings, crumbs = (self._meta[c].take(numbers).to_pylist() for c in _HIT_COLUMNS)
        facets = {
            name: self._meta[column].take(numbers).to_pylist() for name, column in self._facet_columns.items()
        }
        return [
            SearchHit(
                chunk_id=cid,
                file_path=files[i],
                heading=headings[i],
                breadcrumb=tuple(crumbs[i]),
                snippet=make_snippet(texts[cid], query),
                facets={name: values[i] for name, values in facets.items() if values[i] is not None},
                score=round(score, 6),
            )
            for i, (cid, score) in enumerate(page)
        ]

    def _facets_of(self, number: int) -> dict[str, str]:
        values = ((name, self._meta[column][number].as_py()) for name, column in self._facet_columns.items())
        return {name: value for name, value in values if value is not None}

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
            found = _run(self._text_leg(query, build_where(others, self.facets), _SUGGEST_DEPTH, None))
            column = self._meta[self._facet_columns[name]]
            values = sorted({column[self._row[cid]].as_py() for cid, _ in found} - {None})
            if values:
                suggestions[name] = values
        if _run(self._text_leg(query, None, 1, None)):
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
        taken = self._table.take_row_ids([self._row_ids[self._row[cid]] for cid in ids])
        markdown = dict(zip(*taken.select(["id", "markdown"]).to_arrow().to_pydict().values(), strict=True))
        first = max(0, position - context)
        views = [
            ChunkView(
                chunk_id=cid,
                file_path=self._meta["file_path"][self._row[cid]].as_py(),
                heading=self._meta["heading"][self._row[cid]].as_py(),
                breadcrumb=tuple(self._meta["breadcrumb"][self._row[cid]].as_py()),
                markdown=markdown[cid],
                facets=self._facets_of(self._row[cid]),
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


async def _open_async(root: Path) -> Any:
    """The table as an ``AsyncTable``, opened on (and for) LanceDB's background event loop."""
    db = await lancedb.connect_async(str(root / LANCEDB_DIR))
    return await db.open_table(TABLE_NAME)


def _run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coroutine`` on LanceDB's background event loop (the one its async tables live on)."""
    return cast(_T, LOOP.run(coroutine))  # type: ignore[no-untyped-call]
