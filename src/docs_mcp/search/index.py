"""The read side of an index: ``DocsIndex`` searches and fetches sections of a built ``OUT`` folder.

Imported by the server, so it stays free of build-time dependencies (markdown, yaml, openai).
One ``DocsIndex`` may be used from several threads at once: the LanceDB table is opened once and
only read; the row catalog reads what a request needs, behind bounded caches.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from docs_mcp.embedding.provider import EmbeddingProvider
from docs_mcp.errors import ChunkNotFound, IndexUnavailable, QueryError
from docs_mcp.search import lance
from docs_mcp.search.bounds import ScoreBounds
from docs_mcp.search.catalog import RowCatalog
from docs_mcp.search.config import SearchConfig, with_index_fusion
from docs_mcp.search.copies import CopyFolder
from docs_mcp.search.embedder import QueryEmbedder, resolve_query_provider
from docs_mcp.search.filters import build_where, validate_filters
from docs_mcp.search.folding import Folder, path_words
from docs_mcp.search.frequencies import WordFrequencies, terms_table
from docs_mcp.search.inference import Vocabulary
from docs_mcp.search.kind_prior import KIND
from docs_mcp.search.query import fulltext_clauses, fulltext_query
from docs_mcp.search.ranking import Ranker, Ranking
from docs_mcp.search.rescore import LibraryStatistics
from docs_mcp.search.snippets import make_snippet
from docs_mcp.search.types import (
    CONTEXT_MAX,
    UNFILTERED,
    SearchMode,
    SearchPage,
    SearchPlan,
    SearchRequest,
    Section,
    SectionWindow,
)
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME, VECTOR_COLUMN
from docs_mcp.store.index_manifest import IndexManifest, read_manifest

__all__ = ["DocsIndex", "lance_reads"]

log = logging.getLogger(__name__)

_SUGGEST_DEPTH = 200
_RUST_SOURCE = re.compile(r",? ?/(?:\S*\.cargo|rustc/)\S*")  # where in LanceDB's Rust code it failed
_MAX_CAUSE = 200


def _unreadable(folder: Path) -> str | None:
    """The first entry under ``folder`` this process may not read (a permission, not damage), if any.
    Walks only when a read has failed."""
    if not os.access(folder, os.R_OK | os.X_OK):
        return str(folder)
    for parent, folders, files in os.walk(folder, onerror=lambda _error: None):
        for name in folders:
            if not os.access(os.path.join(parent, name), os.R_OK | os.X_OK):
                return os.path.join(parent, name)
        for name in files:
            if not os.access(os.path.join(parent, name), os.R_OK):
                return os.path.join(parent, name)
    return None


@contextlib.contextmanager
def lance_reads(root: Path) -> Iterator[None]:
    """Reads of the LanceDB data under ``root``: a missing, truncated or unreadable data file (LanceDB
    raises ``OSError``, ``RuntimeError`` or ``ValueError`` with a Rust backtrace of 600 characters) is
    ``IndexUnavailable`` in one line, with what LanceDB said first."""
    try:
        yield
    except (OSError, RuntimeError, ValueError) as error:
        if not (root / LANCEDB_DIR).is_dir():  # removed under a server that had it open
            raise IndexUnavailable(
                f"the index at {str(root)!r} is gone: its folder was removed after it was opened; "
                "build it there again (docs-mcp build --docs-dir DOCS --out OUT; a server watching "
                "it serves the new one at its next request)"
            ) from error
        unreadable = _unreadable(root / LANCEDB_DIR)
        if unreadable is not None:
            raise IndexUnavailable(
                f"the index at {str(root)!r} cannot be read by this user ({unreadable}: permission "
                f"denied); give it read access (chmod -R a+rX {str(root)!r}) or serve as its owner"
            ) from error
        cause = _RUST_SOURCE.sub("", str(error).strip().splitlines()[0] if str(error).strip() else "")
        cause = cause if len(cause) <= _MAX_CAUSE else cause[:_MAX_CAUSE] + "..."
        raise IndexUnavailable(
            f"the index at {str(root)!r} is damaged: {type(error).__name__}: {cause}; "
            "rebuild it: docs-mcp build --docs-dir DOCS --out OUT"
        ) from error


class DocsIndex:
    """A built index, opened for reading. Create with ``DocsIndex.open(OUT)``."""

    def __init__(
        self,
        path: Path,
        manifest: IndexManifest,
        table: Any,
        embedder: QueryEmbedder | None,
        embedder_problem: str | None,
        config: SearchConfig,
    ) -> None:
        self.path = path
        self.manifest = manifest
        self.identity = manifest.identity
        self.facets: dict[str, list[str]] = {k: list(v) for k, v in manifest.facets.items()}
        config = with_index_fusion(config, manifest.fusion)  # calibrated at build, when it was
        self.config = config
        self._table = table
        self._embedder = embedder
        self._embedder_problem = embedder_problem
        self._catalog = RowCatalog(table, list(self.facets))
        taxonomy = manifest.taxonomy
        # Facets whose values hold one section several times (one per language): hits fold on them.
        self.collapse_facets = sorted(
            n for n, t in taxonomy.items() if t.vector_collapse and n in self.facets
        )
        # Facet values whose chunks are MCP resources.
        self.resource_values = {n: list(t.resources) for n, t in taxonomy.items() if t.resources}
        # ``kind`` values are ordinary words ("error handling", "a fine-tuned model"): the kind prior
        # reads what a question asks for, never a filter inferred from them.
        named = {name: values for name, values in self.facets.items() if name != KIND}
        self._vocabulary = Vocabulary(
            named, {n: t.aliases for n, t in taxonomy.items()}, config.facets.language
        )
        self._folder = Folder(path_words(self._vocabulary.spellings))
        # Indexes naming their facet values alike find the same values and words in a query (a hub's
        # merged search asks one of them for all: ``server.tools.hub_union``).
        self.vocabulary_key = json.dumps(
            [self._vocabulary.spellings, config.infer_filters, config.facets.language], sort_keys=True
        )
        self._resource_ids: list[str] | None = None
        indexed = any(VECTOR_COLUMN in index.columns for index in table.list_indices())
        self._ef = config.hnsw_ef if indexed else None
        self._async_table: Any = lance.run(lance.open_table(path))
        # The similarity a hit found by meaning alone must reach (calibrated per embedding model).
        self.vector_floor = (
            config.vector_floor(manifest.embedding.model) if manifest.embedding is not None else None
        )
        # Sections the build found to be copies of each other fold into one hit (search.copies).
        copies = CopyFolder()
        if config.fold and manifest.copy_groups and self._catalog.has_copies:
            members = self._catalog.copies_of if self._catalog.has_leads else None
            others = self._catalog.others() if members is not None else None
            copies = CopyFolder(self._catalog.main_copies, members, others)
        elif config.fold and manifest.copies:  # built before rows named their group: held whole
            copies = CopyFolder.of_groups(manifest.copies)
        self._copies = copies
        terms = terms_table(path)
        self._bounds = ScoreBounds(path)
        # A union of libraries keeps each one's BM25 statistics: its hits can be scored as theirs.
        statistics = LibraryStatistics(path) if manifest.embedding is None else None
        self.rescores = statistics is not None and statistics.available
        # The kind prior multiplies a score by up to its ceiling for a query (a bound must allow for it).
        self._prior = config.kind_prior if KIND in self.facets else None
        self._ranker = Ranker(
            self._async_table,
            config,
            self._ef,
            self._catalog,
            self._folder,
            self.facets,
            self.vector_floor,
            copies,
            WordFrequencies(self._async_table, terms),
            statistics if self.rescores else None,
        )

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

        Raises ``IndexUnavailable`` when it is missing or corrupt, ``IndexCompatibilityError`` when its
        format differs or ``query_embedder`` does not match the provider/model/dimensions it was built
        with. When the recorded provider cannot be created, searches fall back to full text (logged).
        """
        root = Path(path)
        manifest = read_manifest(root)
        provider, problem = resolve_query_provider(manifest.embedding, query_embedder)
        if problem:
            log.warning("vector search disabled, searching full text only: %s", problem)
        embedder = QueryEmbedder(provider, query_timeout) if provider is not None else None
        with lance_reads(root):  # opening reads the table's schema and its indices, no rows
            table = lance.connect(root).open_table(TABLE_NAME)
            rows = table.count_rows()
            if rows != manifest.chunk_count:  # an edited manifest, or a table from another build
                raise IndexUnavailable(
                    f"the index at {str(root)!r} is damaged: its manifest says {manifest.chunk_count} chunks "
                    f"and its table holds {rows}; rebuild it: docs-mcp build --docs-dir DOCS --out OUT"
                )
            return cls(root, manifest, table, embedder, problem, config or SearchConfig())

    def warm(self) -> None:
        """Load what the first request would otherwise wait for: the query embedder's model (with
        no deadline) and the table's indexes (one query)."""
        if self._embedder is not None:
            self._embedder.warm()
        self.search(SearchRequest(query="getting started", limit=1))

    # -- search ---------------------------------------------------------------------------------

    def search(
        self,
        request: SearchRequest,
        *,
        inferred: Mapping[str, str] | None = None,
        first: str | None = None,
        rescore: bool = False,
        own_terms: Callable[[str], str] | None = None,
    ) -> SearchPage:
        """One page of hits for ``request`` (see :meth:`_search`); a damaged data file is
        ``IndexUnavailable``, one line."""
        with lance_reads(self.path):
            return self._search(request, inferred, first, rescore, own_terms)

    def _search(
        self,
        request: SearchRequest,
        inferred: Mapping[str, str] | None = None,
        first: str | None = None,
        rescore: bool = False,
        own_terms: Callable[[str], str] | None = None,
    ) -> SearchPage:
        """One page of hits for ``request``, best first, ties broken by chunk id.

        Facet values the query names (and the request does not set) rank their hits first
        (``SearchPage.inferred_filters``); hits of one section in several values of a
        ``vector_collapse`` facet the request does not set fold into the best one (``Section.also_in``).

        ``inferred``: the facet values the query names, as :meth:`plan` found them (not inferred
        again). ``first``: an SQL condition whose hits rank first instead of the inferred values'
        (the union of several libraries: the libraries a query names, ``server.tools.hub_union``).
        ``rescore``: a union scores each full-text hit as its own library's index does
        (``search.rescore``; ignored by an index without the libraries' statistics); ``own_terms``:
        per library, the words its own index matches (:meth:`query_words`): the union's legs then
        match every word of the query, each hit scored on its library's words.

        Raises ``QueryError`` for an unknown facet or a value the index does not hold.
        """
        where = build_where(request.filters, self.facets, self.config.facets)
        if inferred is None:
            inferred = self._infer(request)
        preferred = (
            build_where({**request.filters, **inferred}, self.facets, self.config.facets)
            if inferred
            else None
        )
        if first is not None:
            preferred = f"({where}) AND ({first})" if where else first
        folding = [f for f in self.collapse_facets if f not in request.filters] if self.config.fold else []
        mode, fallback = self._choose_mode(request.mode or self.config.mode)
        vector: list[float] | None = None
        if mode != "fulltext":
            assert self._embedder is not None
            vector, problem = self._embedder.embed(request.query)
            if vector is None:
                mode, fallback = "fulltext", problem
        wanted = request.offset + request.limit + 1  # one more tells whether another page exists
        # The full-text leg matches the words that did not name an inferred filter value.
        terms = self._vocabulary.without_names(request.query, inferred) if inferred else request.query
        if rescore and own_terms is not None:
            terms = request.query  # each library's words are a part of it: the legs find all their hits
        ranking = Ranking(mode, terms, vector, preferred, where, tuple(folding), wanted, rescore, own_terms)
        hits, texts, matched = self._ranker.folded(ranking, folding, wanted)
        page = hits[request.offset : request.offset + request.limit]
        unread = [hit.chunk_id for hit in page if hit.chunk_id not in texts]  # a deep leg's (lance)
        if unread:
            texts.update(self._catalog.texts(unread))
        self._copies.listed(page, where)  # a page's copies, when the ranking held their leads only
        sections = self._catalog.sections(
            [hit.chunk_id for hit in page],
            snippet=[make_snippet(texts[hit.chunk_id], request.query) for hit in page],
            score=[round(hit.score, 6) for hit in page],
            also_in=[tuple(hit.also_in) for hit in page],
            matched=[matched.get(hit.chunk_id) for hit in page],
        )
        has_more = len(hits) > request.offset + request.limit
        return SearchPage(sections, request.offset, request.limit, has_more, mode, fallback, dict(inferred))

    def plan(self, request: SearchRequest) -> SearchPlan:
        """What :meth:`search` would do with ``request``, without searching: its mode, the facet values
        the query names, and for a full-text search the highest score a hit can have (``search.bounds``:
        the terms and clauses :meth:`_search` would match, before long-query trimming, which only drops
        words). A damaged data file is ``IndexUnavailable``."""
        inferred = self._infer(request)
        mode, fallback = self._choose_mode(request.mode or self.config.mode)
        bound = None
        if mode == "fulltext":
            terms = self._vocabulary.without_names(request.query, inferred) if inferred else request.query
            with lance_reads(self.path):
                factor = max(self._prior.ceiling(q) for q in (request.query, terms)) if self._prior else 1.0
                bound = self._bounds.bound(fulltext_clauses(terms, self.config), factor)
        return SearchPlan(mode, fallback, inferred, bound)

    def query_words(self, request: SearchRequest) -> tuple[dict[str, str], str]:
        """The facet values ``request``'s query names (and the request does not set), and the words a
        full-text search of it matches (the query without those names), as :meth:`search` finds them."""
        inferred = self._infer(request)
        return inferred, self._vocabulary.without_names(
            request.query, inferred
        ) if inferred else request.query

    def _infer(self, request: SearchRequest) -> dict[str, str]:
        """The facet values the query names and the request does not set (none when inference is off)."""
        return self._vocabulary.infer(request.query, request.filters) if self.config.infer_filters else {}

    def _choose_mode(self, asked: SearchMode | None) -> tuple[SearchMode, str | None]:
        if self.manifest.embedding is None:
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

    # -- zero-result hints ----------------------------------------------------------------------

    def suggest_filters(self, query: str, filters: Mapping[str, str]) -> dict[str, list[str]]:
        """:meth:`_suggest_filters`, a damaged data file being ``IndexUnavailable``."""
        with lance_reads(self.path):
            return self._suggest_filters(query, filters)

    def _suggest_filters(self, query: str, filters: Mapping[str, str]) -> dict[str, list[str]]:
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
        fts = fulltext_query(query, self.config)
        suggestions: dict[str, list[str]] = {}
        for name in sorted(self.facets):
            others = {k: v for k, v in valid.items() if k != name}
            where = build_where(others, self.facets, self.config.facets)
            found = lance.run(lance.text_leg(self._async_table, fts, where, _SUGGEST_DEPTH, None))
            values = sorted(self._catalog.facet_values([cid for cid, _ in found], name))
            if values:
                suggestions[name] = values
        if lance.run(lance.text_leg(self._async_table, fts, None, 1, None)):
            suggestions[UNFILTERED] = []
        return suggestions

    # -- listings -------------------------------------------------------------------------------

    def resource_ids(self) -> list[str]:
        """Ids of the chunks whose facet values the taxonomy marks ``mcp_resource``, files sorted,
        in file order; empty when no value is marked."""
        if self._resource_ids is None:  # the index never changes: list them once
            with lance_reads(self.path):
                self._resource_ids = self._catalog.ids_with(self.resource_values)
        return self._resource_ids

    def sections(self, ids: Sequence[str]) -> list[Section]:
        """The ``Section``s of ``ids`` (no text), in order. Raises ``ChunkNotFound`` for an unknown id."""
        with lance_reads(self.path):
            for chunk_id in ids:
                if chunk_id not in self._catalog:
                    raise ChunkNotFound(f"no chunk with id {chunk_id!r}", chunk_id, [])
            return self._catalog.sections(ids)

    def example_section(self) -> tuple[str, str]:
        """A real heading and chunk id of this index, for the tool schema's examples (see
        ``RowCatalog.example``); empty strings for an empty index."""
        examples = self.manifest.examples or {}
        if examples.get("chunk_id") and examples.get("query"):  # written by the build
            return examples["query"], examples["chunk_id"]
        with lance_reads(self.path):
            return self._catalog.example()

    # -- get ------------------------------------------------------------------------------------

    def get(self, chunk_id: str, context: int = 0) -> SectionWindow:
        """The section ``chunk_id`` with up to ``context`` neighbours each side, in file order.

        Raises ``ChunkNotFound`` (with close ids as suggestions) for an id the index does not hold and
        ``QueryError`` for a context outside 0..``CONTEXT_MAX``.
        """
        if isinstance(context, bool) or not isinstance(context, int) or not 0 <= context <= CONTEXT_MAX:
            raise QueryError(f"context must be an integer from 0 to {CONTEXT_MAX} (got {context!r})")
        with lance_reads(self.path):
            known = chunk_id in self._catalog
            close = [] if known else self._catalog.close_ids(chunk_id)
        if not known:
            hint = f"; did you mean: {', '.join(close)}" if close else "; search_docs returns valid ids"
            raise ChunkNotFound(f"no chunk with id {chunk_id!r}{hint}", chunk_id, close)
        with lance_reads(self.path):
            ids, markdown = self._catalog.window(chunk_id, context)
            sections = self._catalog.sections(ids, markdown=[markdown[cid] for cid in ids])
        return SectionWindow(chunk_id, sections)
