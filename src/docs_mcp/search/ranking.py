"""How one search ranks: the full-text and vector legs on LanceDB, their fusion, the hits of the
values a query names first, then folding (the variants of one section in several languages become one
hit). ``Ranker`` runs it for ``DocsIndex.search``, which decides what to rank and pages the result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from docs_mcp.search import lance
from docs_mcp.search.catalog import RowCatalog
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.copies import CopyFolder
from docs_mcp.search.filters import sql_literal
from docs_mcp.search.folding import FoldedHit, Folder
from docs_mcp.search.frequencies import WordFrequencies
from docs_mcp.search.fusion import fuse
from docs_mcp.search.kind_prior import KIND
from docs_mcp.search.leads import FEW_OTHERS, OtherCopies
from docs_mcp.search.query import Clause, fulltext_clauses, fulltext_query, is_long
from docs_mcp.search.rescore import LibraryStatistics, Rescoring, library_of
from docs_mcp.search.types import LIMIT_MAX, OFFSET_MAX, Ranked, SearchMode
from docs_mcp.store.columns import COPY_COLUMN, COPY_LEAD_COLUMN, facet_column

__all__ = ["Ranker", "Ranking"]

# Folding needs more ranked hits than a page shows: a first ranking fetches at least
# ``SearchConfig.min_candidates`` (full text and vector: up to this many per hit wanted, fewer when the
# folding facets have fewer values), then twice as many while too few hits are left after folding,
# never more than ``_DEPTH_MAX``. A variant ranked below the candidates of a page is not listed in its
# hit's ``also_in`` (nor shown as a hit on a later page: it folds into that hit there too).
_FOLD_FACTOR = 4
_DEPTH_MAX = 4 * (OFFSET_MAX + LIMIT_MAX + 1)
TEXT, MEANING, BOTH = "text", "meaning", "both"  # how a hit matched
# The full-text leg's kind-prior check covers the first 1/_SETTLED of its depth (``Ranker._text_leg``).
_SETTLED = 4


@dataclass(frozen=True)
class Ranking:
    """What one search ranks: mode, query, query vector, and the filters (``preferred``: the
    filters with the inferred values, whose hits come first); what its page takes of the ranking:
    the facets it folds and how many hits it wants after folding (0: not said; see
    ``Ranker._page_settled``)."""

    mode: SearchMode
    query: str
    vector: Sequence[float] | None
    preferred: str | None
    where: str | None
    folding: tuple[str, ...] = ()
    wanted: int = 0
    # A union's search scoring each hit as its own library does (``search.rescore``): asked with
    # ``rescore``, set by ``Ranker.folded`` (None: scores as the union's index gives them).
    rescore: bool = False
    # Per library of a union, the words its own index matches (its facet values named taken out, as
    # that index takes them out); None: the ranking's ``query`` for every library.
    own_terms: Callable[[str], str] | None = None
    rescoring: Rescoring | None = None


# Each row's group of copies (``COPY_COLUMN``), by chunk id.
_Groups = dict[str, str | None]


class Ranker:
    """Ranks searches of one opened index (its async LanceDB table, row catalog and folder)."""

    def __init__(
        self,
        table: Any,
        config: SearchConfig,
        ef: int | None,
        catalog: RowCatalog,
        folder: Folder,
        facets: Mapping[str, Sequence[str]],
        floor: float | None = None,
        copies: CopyFolder | None = None,
        frequencies: WordFrequencies | None = None,
        statistics: LibraryStatistics | None = None,
    ) -> None:
        """``statistics``: a union's per-library statistics (``search.rescore``), None for a library."""
        self._statistics = statistics
        self._floor = floor
        self._copies = copies or CopyFolder()
        self._table = table
        self._config = config
        self._ef = ef
        self._catalog = catalog
        self._folder = folder
        self._facets = facets
        self._frequencies = frequencies or WordFrequencies(table)
        # The kind prior applies to indexes whose sections carry a ``kind`` (generated SDK docs).
        self._prior = config.kind_prior if KIND in facets else None

    def folded(
        self, ranking: Ranking, folding: list[str], wanted: int
    ) -> tuple[list[FoldedHit], dict[str, str], dict[str, str]]:
        """The ranking with folding applied, ``wanted`` hits long when the index has that many; the
        row texts and how each hit matched (``text``, ``meaning`` or ``both``) by chunk id."""
        if ranking.mode != "vector" and is_long(ranking.query):
            # Loaded here: the legs below run on LanceDB's loop, which cannot wait on itself.
            self._frequencies.load(ranking.query)
        if ranking.rescore and self._statistics is not None and ranking.mode == "fulltext":
            ranking = replace(ranking, rescoring=self._rescoring(ranking))
        combinations = 1
        for facet in folding:
            combinations *= max(1, len(self._facets[facet]))
        depth = wanted if self._prior is None else max(wanted, self._config.min_candidates)
        if folding or self._copies:
            # At least the hybrid candidate depth, so a first page's hits list their variants ranked
            # among the top candidates whatever the page size. A hybrid ranking starts at exactly
            # that depth: its fused order depends on the depth (each leg is normalised over what it
            # fetched), and the first pages must share one order, as they do without folding.
            depth = max(wanted, self._config.min_candidates)
            if ranking.mode != "hybrid":
                depth = max(depth, wanted * min(combinations, _FOLD_FACTOR))
        while True:
            texts: dict[str, str] = {}
            matched: dict[str, str] = {}
            rows = lance.Rows(self._catalog.columns)
            ranked, complete = lance.run(self._ranked(ranking, depth, texts, matched, rows))
            for read in rows.read:  # what the page and folding show of each hit: no second read
                self._catalog.remember(read)
            if not folding and not self._copies:
                return [FoldedHit(cid, score) for cid, score in ranked], texts, matched
            hits = (
                self._folder.fold(ranked, self._catalog.hit_row, folding)
                if folding
                else [FoldedHit(cid, score) for cid, score in ranked]
            )
            hits = self._copies.fold(hits)
            if len(hits) >= wanted or complete or depth >= _DEPTH_MAX:
                return hits, texts, matched
            depth = min(_DEPTH_MAX, 2 * depth)

    def _rescoring(self, ranking: Ranking) -> Rescoring:
        """What the legs of ``ranking`` need to score each hit as its library does: each library's
        clauses (of the words ``ranking.own_terms`` says it matches; the ranking's own words when
        not given), the frequencies of every token of the query in each library."""
        assert self._statistics is not None
        loaded = self._frequencies.loaded
        clauses = fulltext_clauses(ranking.query, self._config, loaded)
        own_terms = ranking.own_terms
        if own_terms is None:
            return Rescoring(self._statistics, lambda _library: clauses, self._statistics.load(clauses))
        made: dict[str, tuple[Clause, ...]] = {}

        def clauses_of(library: str) -> tuple[Clause, ...]:
            if library not in made:
                made[library] = fulltext_clauses(own_terms(library), self._config, loaded)
            return made[library]

        return Rescoring(self._statistics, clauses_of, self._statistics.load(clauses))

    async def _ranked(
        self,
        ranking: Ranking,
        depth: int,
        texts: dict[str, str],
        matched: dict[str, str],
        rows: lance.Rows,
    ) -> tuple[Ranked, bool]:
        """The ranking at ``depth`` and whether it holds every hit; the preferred filter's hits first
        when there is one (the rest only once those are complete, so every page is a prefix of the
        same order). Row texts go into ``texts``."""
        if ranking.preferred is None:
            return await self._leg_ranking(ranking, ranking.where, depth, texts, matched, rows)
        first, complete = await self._leg_ranking(ranking, ranking.preferred, depth, texts, matched, rows)
        if not complete:
            return first, False
        rest, complete = await self._leg_ranking(ranking, ranking.where, depth, texts, matched, rows)
        seen = {cid for cid, _ in first}
        return first + [(cid, score) for cid, score in rest if cid not in seen], complete

    async def _leg_ranking(
        self,
        ranking: Ranking,
        where: str | None,
        depth: int,
        texts: dict[str, str],
        matched: dict[str, str],
        rows: lance.Rows,
    ) -> tuple[Ranked, bool]:
        """:meth:`_legs`, with the kind prior applied when the index has kinds. Where the index says
        which copy leads its group, the legs rank the leads only (``search.copies``), with the copies
        that stand out (:meth:`_standouts`)."""
        others = None
        split = None
        if ranking.mode == "fulltext" and self._copies.ranks_leads:
            few = self._copies.other_count
            if few is not None and few <= FEW_OTHERS:  # read with the leads (``search.leads``)
                split = OtherCopies(few, self._config.min_candidates)
            else:
                # The copies' leg needs nothing of the leads' leg: both run at once on LanceDB's loop
                # (a merged search's union spent a fifth of its time waiting on it, docs/scaling.md).
                others = asyncio.ensure_future(self._other_copies(ranking, where))
        try:
            legs_where = where if split is not None else self._copies.ranked(where)
            ranked, complete = await self._legs(ranking, legs_where, depth, texts, matched, rows, split)
        except BaseException:
            if others is not None:
                others.cancel()
            raise
        if others is not None:
            ranked = await self._standouts(ranked, complete, texts, rows, await others)
        elif split is not None:
            found = (split.found, split.groups)
            ranked = await self._standouts(ranked, complete, texts, rows, found, with_leads=True)
        if others is not None or split is not None:
            matched.update((cid, TEXT) for cid, _ in ranked)
        if self._prior is None:
            return ranked, complete
        return self._weighed(ranking, ranked, rows), complete

    async def _other_copies(self, ranking: Ranking, where: str | None) -> tuple[Ranked, _Groups]:
        """The best ``min_candidates`` copies under ``where`` that lead no group, each with its group
        (what :meth:`_standouts` compares with the leads)."""
        query = fulltext_query(ranking.query, self._config, self._frequencies.loaded)
        groups = lance.Rows([COPY_COLUMN])
        depth = self._config.min_candidates
        found, _ = await self._text(ranking, query, self._copies.others(where), depth, None, groups)
        return found, {cid: group for read in groups.read for cid, group in _column_pairs(read)}

    async def _standouts(
        self,
        leads: Ranked,
        complete: bool,
        texts: dict[str, str],
        rows: lance.Rows,
        others: tuple[Ranked, _Groups],
        with_leads: bool = False,
    ) -> Ranked:
        """``leads`` with the copies that are no lead but score above their group's lead, as ranking
        every copy would place them: a copy's path or title may hold a query word its lead's lacks (a
        package's README for "azure"). The best ``min_candidates`` copies are read, whatever the
        depth, and kept only above the last lead when more leads match, so the order down to that
        lead is the same at every depth and pages stay prefixes of one order. Identical copies score
        as their lead and are read no further (nor those read ``with_leads``, ``search.leads``: the
        page reads their text). Full text only: a fused score depends on the whole leg it was
        normalised over."""
        found, group_of = others
        read_groups: dict[str, str | None] = {}
        for read in rows.read:  # the leads' rows, remembered: their groups cost no query
            read_groups.update((cid, row.copy_of) for cid, row in self._catalog.remember(read).items())
        rows.read.clear()
        scores, best = dict(leads), dict[str, float]()
        unread = [cid for cid in scores if cid not in read_groups]  # remembered by the kind prior's check
        lead_groups = {**read_groups, **(self._catalog.main_copies(unread) if unread else {})}
        for cid, score in scores.items():
            if (group := lead_groups.get(cid)) is not None:
                best[group] = max(best.get(group, float("-inf")), score)
        floor = leads[-1][1] if leads and not complete else float("-inf")
        kept = [
            (cid, score)
            for cid, score in found
            if score > floor and score > best.get(group_of.get(cid) or "", float("-inf"))
        ]
        if not kept:
            return leads
        if not with_leads:
            await lance.read_ids(self._table, [cid for cid, _ in kept], texts, rows)
        return sorted([*leads, *kept], key=lambda hit: (-hit[1], hit[0]))

    def _weighed(self, ranking: Ranking, ranked: Ranked, rows: lance.Rows) -> Ranked:
        """``ranked`` with the kind prior applied. It reads every candidate's kind: from the rows the
        legs just read (remembered now, not after the search), any others in one batched read,
        never one query per candidate. A union's hits scored as their libraries' are weighed on the
        words their own library matches (the prior reads a question's first word)."""
        assert self._prior is not None
        for read in rows.read:
            self._catalog.remember(read)
        rows.read.clear()
        roles = self._catalog.roles([cid for cid, _ in ranked])
        rescoring = ranking.rescoring
        if rescoring is None or ranking.own_terms is None:
            return self._prior.apply(ranked, ranking.query, roles.get)
        by_words: dict[str, Ranked] = {}
        for hit in ranked:
            by_words.setdefault(ranking.own_terms(library_of(hit[0])), []).append(hit)
        weighed = [
            hit for words, hits in by_words.items() for hit in self._prior.apply(hits, words, roles.get)
        ]
        return sorted(weighed, key=lambda hit: (-hit[1], hit[0]))

    async def _text_leg(
        self,
        ranking: Ranking,
        where: str | None,
        depth: int,
        texts: dict[str, str],
        rows: lance.Rows,
        others: OtherCopies | None = None,
    ) -> tuple[Ranked, bool]:
        """The full-text leg at ``depth`` and whether it holds every match. When the kind prior lowers
        some kinds and an unfetched hit of the others could still reach the first quarter of the
        depth (the last score fetched, times the prior's largest factor, beats that quarter's last
        after the prior; a share of the depth, not of the page, so every page that ranks at one
        depth takes the same decision and pages stay prefixes of one order),
        those other kinds are also ranked alone, as deep, and both are taken: the top of a generated
        SDK reference is often all type pages, with the operation asked for just below the depth.
        Nor are they ranked when no such hit could change the page (``_page_settled``): one full-text
        query less, most of what the other kinds' leg costs (LanceDB's cost per query)."""
        query = fulltext_query(ranking.query, self._config, self._frequencies.loaded)
        found, complete = await self._text(ranking, query, where, depth, texts, rows, others)
        lowered = self._prior.lowered(ranking.query) if self._prior is not None else frozenset()
        if complete or not lowered or self._prior is None:
            return found, complete
        weighed = self._weighed(ranking, found, rows)
        bound = self._prior.ceiling(ranking.query) * max(found[-1][1], 0.0)
        need = max(1, depth // _SETTLED)
        if len(weighed) >= need and weighed[need - 1][1] >= bound:
            return found, complete
        # The page is taken from this ranking alone only in full text, and when it is the first
        # filter's (after the preferred hits, folding into them could take more of the rest).
        # Nor when copies that lead nothing may join it after (``_standouts``).
        first = where == (ranking.where if ranking.preferred is None else ranking.preferred)
        first = first and not self._copies.ranks_leads
        if ranking.mode == "fulltext" and first and self._page_settled(ranking, weighed, bound):
            return found, complete
        kept = ", ".join(map(sql_literal, sorted(lowered)))
        others_kinds = f"({facet_column(KIND)} IS NULL OR {facet_column(KIND)} NOT IN ({kept}))"
        kinds = f"({where}) AND {others_kinds}" if where else others_kinds
        more, _ = await self._text(ranking, query, kinds, depth, texts, rows, others and others.leads_only())
        seen = {cid for cid, _ in found}
        merged = sorted([*found, *(hit for hit in more if hit[0] not in seen)], key=lambda h: (-h[1], h[0]))
        return merged, complete

    async def _text(
        self,
        ranking: Ranking,
        query: Any,
        where: str | None,
        depth: int,
        texts: dict[str, str] | None,
        rows: lance.Rows | None,
        others: OtherCopies | None = None,
    ) -> tuple[Ranked, bool]:
        """One full-text leg (``lance.text_leg``), rescored when the ranking says so, and whether it
        holds every match. With ``others``, ``where`` holds the copies that lead nothing too: the
        leg ranks the leads, and hands the others over (``search.leads``)."""
        if ranking.rescoring is not None:
            return await ranking.rescoring.text_leg(self._table, query, where, depth, texts, rows, others)
        if others is None:
            found = await lance.text_leg(self._table, query, where, depth, texts, rows)
            return found, len(found) < depth
        wanted = [*(rows.columns if rows else []), COPY_COLUMN, COPY_LEAD_COLUMN]
        read = lance.Rows(list(dict.fromkeys(wanted)))
        found = others.split(
            await lance.text_leg(self._table, query, where, depth + others.count, texts, read), read.read[0]
        )
        if rows is not None:
            rows.read.extend(read.read)
        others.found = others.found[: others.depth]
        return found[:depth], len(found) < depth

    def _page_settled(self, ranking: Ranking, weighed: Ranked, bound: float) -> bool:
        """Whether the page of ``ranking`` is the same whatever hits scoring at most ``bound`` (after
        the prior) join ``weighed``: its ``wanted`` hits after folding (languages, then copies, as
        ``folded`` folds them) all score above it. Folding keeps each hit or folds it into a better
        one, so hits ranked below the page's last neither move nor fold its hits; they can only be
        listed in their ``also_in``. Exact for every page, so pages stay prefixes of one order."""
        wanted = ranking.wanted
        if not wanted or len(weighed) < wanted or weighed[wanted - 1][1] <= bound:
            return False  # the page's last hit is at or below the wanted-th: not above the bound
        hits = (
            self._folder.fold(weighed, self._catalog.hit_row, list(ranking.folding))
            if ranking.folding
            else [FoldedHit(cid, score) for cid, score in weighed]
        )
        hits = self._copies.fold(hits)
        return len(hits) >= wanted and hits[wanted - 1].score > bound

    async def _legs(
        self,
        ranking: Ranking,
        where: str | None,
        wanted: int,
        texts: dict[str, str],
        matched: dict[str, str],
        rows: lance.Rows,
        others: OtherCopies | None = None,
    ) -> tuple[Ranked, bool]:
        """The ranking (id, score) under ``where`` and whether it holds every match, read in one go
        on the event loop; row texts go into ``texts``, how each hit matched into ``matched``
        (``others``: full text only, see :meth:`_text`)."""
        mode, vector = ranking.mode, ranking.vector
        if mode == "fulltext":
            found, complete = await self._text_leg(ranking, where, wanted, texts, rows, others)
            matched.update((cid, TEXT) for cid, _ in found)
            return found, complete
        depth = wanted if mode == "vector" else max(wanted, self._config.min_candidates)
        by_vector = lance.vector_leg(self._table, vector or [], where, depth, self._ef, texts, rows)
        if mode == "vector":
            found = await by_vector
            matched.update((cid, MEANING) for cid, _ in found)
            return found, len(found) < depth
        by_text = self._text_leg(ranking, where, depth, texts, rows)
        (text, text_complete), vectors = await asyncio.gather(by_text, by_vector)
        kept = earned(text, vectors, fuse(text, vectors, self._config.fusion), self._floor, matched)
        weak_tail = self._floor is not None and bool(vectors) and vectors[-1][1] < self._floor
        return kept, text_complete and (len(vectors) < depth or weak_tail)


def _column_pairs(read: Any) -> zip[tuple[str, str | None]]:
    """(id, main copy) of each row of a leg's read (an Arrow table with ``COPY_COLUMN``)."""
    return zip(read["id"].to_pylist(), read[COPY_COLUMN].to_pylist(), strict=True)


def earned(
    text: Ranked, vectors: Ranked, fused: Ranked, floor: float | None, matched: dict[str, str]
) -> Ranked:
    """The fused hits that earned their place: every hit of the full-text leg, and a hit found by
    meaning only when its similarity reaches ``floor`` (None: every hit). How each kept hit matched
    goes into ``matched``. Fusion ran on both whole legs first, so the kept hits keep their order."""
    lexical = {cid for cid, _ in text}
    similarity = dict(vectors)
    kept = [
        (cid, score)
        for cid, score in fused
        if cid in lexical or floor is None or similarity.get(cid, 0.0) >= floor
    ]
    for cid, _ in kept:
        matched[cid] = BOTH if cid in lexical and cid in similarity else TEXT if cid in lexical else MEANING
    return kept
