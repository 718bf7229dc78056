"""``search_docs`` and ``get_doc`` over the served libraries: one library's index, or all of them merged.

One index served alone (an unnamed view, :attr:`HubView.unnamed`) is answered as one library, in the
shape of a single index: no ``library`` argument or field, the index's own schemas, hint and text.

With ``library`` a search runs on that library's index exactly as a single-index server runs it (same
hits, same folding, same hint), each hit tagged with its library. Without it, every library's latest
index that holds the given facet values and whose score bound can reach the page is searched, and
the lists are merged into one ranking (see ``hub_merge``). A cursor carries the library (and version)
it continues, signed; it is bound to that index's identity, or for a merged search to every default
index, so a swapped index makes exactly its own cursors stale.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from docs_mcp.errors import ChunkNotFound, CursorError, QueryError
from docs_mcp.search.reader import IndexReader
from docs_mcp.search.types import UNFILTERED, SearchRequest, Section
from docs_mcp.server.hub.libraries import HubView, Served
from docs_mcp.server.hub.union import union_mode
from docs_mcp.server.tools.arguments import ArgumentValidator
from docs_mcp.server.tools.budget import MAX_TOKENS_DEFAULT, answer_budget
from docs_mcp.server.tools.hub_merge import FUSION, Fusion, asked, merge, named_libraries, own, ranked_first
from docs_mcp.server.tools.hub_schema import LIBRARY, VERSION, hub_get_schema, hub_search_schema
from docs_mcp.server.tools.hub_text import render_hub_get, render_hub_search
from docs_mcp.server.tools.hub_union import (
    UnionPage,
    own_words,
    ranked,
    rescored_page,
    routed,
    union_for,
    union_page,
)
from docs_mcp.server.tools.shapes import (
    Answer,
    continued,
    fitted_page,
    fitted_window,
    hit_data,
    not_found_message,
    one_index_hint,
    search_result,
)
from docs_mcp.server.tools.text_content import render_get, render_search
from docs_mcp.server.tools.tool_schema import GET_TOOL, RESERVED_ARGUMENTS, SEARCH_TOOL


def _hit_dict(served: Served, section: Section) -> dict[str, Any]:
    data = {**hit_data(section), LIBRARY: served.name}
    if served.version is not None:
        data[VERSION] = served.version
    return data


def _peek(cursor: object) -> dict[str, Any]:
    """The unverified payload of a cursor, to choose the codec that verifies it ({} when unreadable:
    the codec then reports it malformed)."""
    if not isinstance(cursor, str):
        return {}
    encoded = cursor.partition(".")[0]
    try:
        data = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except (ValueError, TypeError):
        return {}
    return data if isinstance(data, dict) else {}


class HubTools:
    """The two tools over one :class:`HubView` (rebuilt by the hub when an index swaps); one unnamed
    library's are those of a single index."""

    def __init__(
        self,
        view: HubView,
        fusion: Fusion = FUSION,
        *,
        named_first: bool = True,
        max_tokens: int = MAX_TOKENS_DEFAULT,
        cutoff: bool = True,
    ) -> None:
        """``cutoff``: a merged search skips the libraries whose bound cannot reach its page (off: asks
        every library, as before bounds; the answers are the same, see :meth:`_asked`)."""
        self._view = view
        self._cutoff = cutoff
        self._fusion = fusion
        self._named_first = named_first
        self.max_tokens = max_tokens
        if view.unnamed:
            self.search_schema, self.get_schema = view.sole.schemas.search, view.sole.schemas.get
        else:
            self.search_schema = hub_search_schema(view, max_tokens)
            self.get_schema = hub_get_schema(view, max_tokens)
        self._facet_names = [
            n for n in self.search_schema["properties"] if n not in (*RESERVED_ARGUMENTS, LIBRARY, VERSION)
        ]
        self._render_search, self._render_get = (
            (render_search, render_get) if view.unnamed else (render_hub_search, render_hub_get)
        )
        self._search_arguments = ArgumentValidator(SEARCH_TOOL, self.search_schema)
        self._get_arguments = ArgumentValidator(GET_TOOL, self.get_schema)

    @property
    def view(self) -> HubView:
        """The libraries these tools answer from."""
        return self._view

    # -- search -------------------------------------------------------------------------------

    def search_docs(self, arguments: Mapping[str, Any] | None) -> Answer:
        """Run ``search_docs`` on one library or all, within ``max_tokens``. Raises ``InvalidArguments``,
        ``LibraryNotServed``, ``CursorError``, ``QueryError`` or ``BudgetTooSmall`` ."""
        values = self._search_arguments.validate(arguments)
        given = {name: str(values[name]) for name in self._facet_names if name in values}
        query = str(values["query"]).strip() if "query" in values else None
        cursor = values.get("cursor")
        served = self._target(values, SEARCH_TOOL)
        codec = self._view.codec(served)
        carried = codec.decode(str(cursor)) if cursor is not None else None
        if carried is None:
            assert query is not None  # the schema requires one of them
            request = SearchRequest(query=query, filters=given, limit=int(values["limit"]))
        else:
            limit = int(values["limit"]) if arguments and "limit" in arguments else None
            request = continued(carried, query, given, limit)
        budget = answer_budget(arguments, values, carried.max_tokens if carried else None)
        result = self._one(served, request) if served is not None else self._merged(request)
        has_more, hits = result.pop("_has_more"), result["hits"]
        where = self._where(served)

        def next_cursor(count: int) -> str:
            return codec.encode(
                offset=request.offset + count,
                limit=request.limit,
                query=request.query,
                filters=request.filters,
                mode=request.mode,
                where=where,
                max_tokens=budget,
            )

        result.update(hits=[], held_back=0, next_cursor=None)  # set by fitted_page, in this order
        return fitted_page(result, hits, has_more, next_cursor, self._render_search, budget)

    def _target(self, values: Mapping[str, Any], tool: str | None) -> Served | None:
        """The library version a call reads: the one ``library`` (and ``version``) names, or the one
        its cursor carries (checked against ``library`` when both are given); None: every library.

        Raises ``QueryError`` (a version without a library), ``CursorError`` (a cursor of another
        library) or ``LibraryNotServed``. An unnamed view's one library is every call's."""
        if self._view.unnamed:
            return self._view.sole
        name, version = values.get(LIBRARY), values.get(VERSION)
        if version is not None and name is None:
            raise QueryError(
                f"`{VERSION}` needs `{LIBRARY}`: say which library's version {version!r} to read."
            )
        cursor = values.get("cursor")
        if cursor is not None:
            payload = _peek(cursor)
            carried = payload.get("b"), payload.get("w")
            if not all(part is None or isinstance(part, str) for part in carried):
                carried = (None, None)  # not a cursor of ours: the codec reports it
            if name is not None and (name, version or carried[1]) != carried:
                again = "with the chunk_id and " if tool == GET_TOOL else ""
                raise CursorError(
                    f"The cursor belongs to another library or version: pass only the cursor, or call {tool} "
                    f"{again}without `cursor` to start again."
                )
            name, version = carried
        return self._view.resolve(str(name), version) if name is not None else None

    def _one(self, served: Served, request: SearchRequest) -> dict[str, Any]:
        _check_facets(served, request.filters, self._view)
        index = served.state.index
        page = index.search(request)
        if self._view.unnamed:  # a single index's answer: its fields, its hint
            hint = (
                one_index_hint(index, request.query, request.filters)
                if not page.hits and not request.offset
                else None
            )
            result = search_result(request, page, hint)
            return {**result, "hits": [hit_data(hit) for hit in page.hits], "_has_more": page.has_more}
        hint = None
        if not page.hits and request.offset == 0:
            hint = self._hint(request.query, request.filters, [served])
        return {
            "query": request.query,
            "filters": dict(request.filters),
            LIBRARY: served.name,
            "inferred_filters": dict(page.inferred_filters),
            "hits": [_hit_dict(served, hit) for hit in page.hits],
            "offset": request.offset,
            "mode": page.mode,
            "fallback_reason": page.fallback_reason,
            "hint": hint,
            "_has_more": page.has_more,
        }

    def _merged(self, request: SearchRequest) -> dict[str, Any]:
        targets = [s for s in self._view.defaults() if _holds(s, request.filters)]
        union = union_for(self._view, request, exact_only=self._fusion != "score" or not self._cutoff)
        using = union_mode()
        if union is not None and using == "rescore" and union.rescores:
            return self._rescored(union, targets, request)
        if union is not None and using == "rank":
            return self._from_union(union, targets, request)
        if union is not None:  # "route" (or a union without the libraries' statistics) chooses them
            targets = routed(
                union, request, targets, named_libraries(request.query, [s.name for s in targets])
            )
        wanted = request.offset + request.limit + 1
        plans = {served.name: served.state.index.plan(own(served, request, wanted)) for served in targets}
        inferred: dict[str, str] = {}
        for served in targets:
            inferred.update(plans[served.name].inferred_filters)
        values_named = {name: plan.inferred_filters for name, plan in plans.items()}
        named = ranked_first(request.query, targets, values_named)
        first = named if self._named_first else []
        found = asked(targets, plans, request, wanted, first, self._fusion, self._cutoff)
        lists = [(served, found[served.name].hits) for served in targets if served.name in found]
        merged = merge(lists, self._fusion, first)
        if named and self._named_first:
            inferred[LIBRARY] = ", ".join(named)
        page = merged[request.offset : request.offset + request.limit]
        hint = None
        if not page and request.offset == 0:
            hint = self._hint(request.query, request.filters, targets)
        # One mode when every library ran the same; hybrid when any did (the others say why not). A
        # library not asked would have searched full text (only those have a bound), as its plan says.
        ran = {name: (f.mode, f.fallback_reason) for name, f in found.items()}
        outcomes = [ran.get(s.name, (plans[s.name].mode, plans[s.name].fallback_reason)) for s in targets]
        modes = {mode for mode, _ in outcomes}
        mode = (
            modes.pop() if len(modes) == 1 else ("hybrid" if "hybrid" in modes or not modes else "fulltext")
        )
        fallbacks = [f"{s.name}: {why}" for s, (_, why) in zip(targets, outcomes, strict=True) if why]
        return {
            "query": request.query,
            "filters": dict(request.filters),
            LIBRARY: None,
            "inferred_filters": inferred,
            "hits": [_hit_dict(hit.served, hit.section) for hit in page],
            "offset": request.offset,
            "mode": mode,
            "fallback_reason": "; ".join(fallbacks) or None,
            "hint": hint,
            "_has_more": len(merged) > request.offset + request.limit,
        }

    def _from_union(
        self, union: IndexReader, targets: list[Served], request: SearchRequest
    ) -> dict[str, Any]:
        """:meth:`_merged` answered by one search of the libraries' union (``hub_union.ranked``)."""
        names = [served.name for served in targets]
        named = named_libraries(request.query, names) if self._named_first else []
        found = union_page(union, self._view, request, named)
        return self._union_answer(request, targets, found, named)

    def _rescored(self, union: IndexReader, targets: list[Served], request: SearchRequest) -> dict[str, Any]:
        """:meth:`_merged` answered by one search of the libraries' union, each hit scored as its own
        library's index scores it, the libraries ranked first as :meth:`_merged` ranks them
        (``hub_union.rescored_page``)."""
        words = own_words(targets, request)
        named = ranked_first(request.query, targets, words.values_named) if self._named_first else []
        found = rescored_page(union, self._view, request, named, words)
        return self._union_answer(request, targets, found, named)

    def _union_answer(
        self, request: SearchRequest, targets: list[Served], found: UnionPage, named: list[str]
    ) -> dict[str, Any]:
        empty = not found.hits and request.offset == 0
        hint = self._hint(request.query, request.filters, targets) if empty else None
        hits = [_hit_dict(served, section) for served, section in found.hits]
        return ranked(request, found, named, hits, hint)

    def _hint(self, query: str, filters: Mapping[str, str], searched: list[Served]) -> dict[str, Any]:
        """Where the query does match: other filter values of the searched libraries, and the libraries
        (every served version) holding matches at all."""
        suggested: dict[str, list[str]] = {}
        unfiltered = False
        matching: list[dict[str, str | None]] = []
        for served in self._view.everything():
            own = {k: v for k, v in filters.items() if k in served.facets}
            suggestions = served.state.index.suggest_filters(query, own)
            if UNFILTERED in suggestions:
                matching.append({LIBRARY: served.name, VERSION: served.version})
            if served in searched:
                unfiltered = unfiltered or UNFILTERED in suggestions
                for facet, found in suggestions.items():
                    if facet != UNFILTERED and found and facet in filters:
                        suggested[facet] = sorted({*suggested.get(facet, []), *found})
        applied = ", ".join(f"{k}={v}" for k, v in filters.items())
        where = ", ".join(f"{m[LIBRARY]}@{m[VERSION]}" if m[VERSION] else str(m[LIBRARY]) for m in matching)
        if suggested:
            options = "; ".join(f"{k}: {', '.join(v)}" for k, v in suggested.items())
            message = (
                f"No results with {applied}, but the query matches with other filter values ({options})."
            )
        elif unfiltered:
            message = f"No results with {applied}, but the query matches without filters: retry without them."
        elif matching:
            message = f"Nothing matches here, but the query matches in: {where}. Retry with that `{LIBRARY}`"
            message += f" (and `{VERSION}`)." if any(m[VERSION] for m in matching) else "."
        else:
            message = (
                "Nothing matches this query in any library. Broaden it: use fewer or more general words, "
                "synonyms, the feature's or operation's name, or an exact error message."
            )
        if matching and (suggested or unfiltered):
            message += f" Libraries with matches: {where}."
        return {
            "message": message,
            "suggested_filters": suggested,
            "matches_without_filters": unfiltered,
            "libraries": matching,
        }

    # -- get ----------------------------------------------------------------------------------

    def get_doc(self, arguments: Mapping[str, Any] | None) -> Answer:
        """Run ``get_doc`` on the library named, the one library holding the chunk id, or the one a
        window cursor carries, within ``max_tokens`` .

        Raises ``InvalidArguments``, ``LibraryNotServed``, ``ChunkNotFound``, ``CursorError`` or
        ``BudgetTooSmall``."""
        values = self._get_arguments.validate(arguments)
        named = values.get(LIBRARY) is not None
        if "cursor" in values:
            served = self._target(values, GET_TOOL)
            # A cursor without a library is none of ours: the every-library codec reports it.
            codec = self._view.codec(served)
            chunk_id, start, length = codec.decode_window(str(values["cursor"]))
            carried = codec.window_budget(str(values["cursor"]))
            if "chunk_id" in values and values["chunk_id"] != chunk_id:
                raise CursorError(
                    f"The cursor continues {chunk_id!r}, not {values['chunk_id']!r}: pass only the cursor."
                )
            assert served is not None  # only a library's codec signs window cursors
        else:
            chunk_id, start, length, carried = str(values["chunk_id"]), 0, 0, None
            served = self._holder(chunk_id, self._target(values, GET_TOOL))
        where = self._where(served)
        budget = answer_budget(arguments, values, carried)
        codec = self._view.codec(served)
        shown = {LIBRARY: served.name, **({VERSION: served.version} if served.version is not None else {})}
        try:
            return fitted_window(
                served.state.index,
                chunk_id,
                int(values["context"]),
                (start, length),
                lambda end, whole: codec.encode_window(chunk_id, end, whole, where, max_tokens=budget),
                self._render_get,
                budget,
                None if self._view.unnamed else shown,
            )
        except ChunkNotFound as error:
            if self._view.unnamed:
                message = not_found_message(chunk_id, error.close_ids)
                raise ChunkNotFound(message, chunk_id, error.close_ids) from error
            place = f"library {served.name!r}" if named else "any library"
            close = f" Similar ids: {', '.join(error.close_ids[:5])}." if error.close_ids else ""
            raise ChunkNotFound(
                f"No section of {place} has chunk_id {chunk_id!r}. Chunk ids come from {SEARCH_TOOL} hits: "
                f"pass the hit's `{LIBRARY}` and chunk_id exactly.{close}",
                chunk_id,
                error.close_ids,
            ) from error

    def _where(self, served: Served | None) -> dict[str, str | None]:
        """The fields a cursor carries to say which library version it continues ({}: every library,
        or the one index of an unnamed view)."""
        return (
            {"b": served.name, "w": served.version} if served is not None and not self._view.unnamed else {}
        )

    def _holder(self, chunk_id: str, named: Served | None) -> Served:
        """The library to read ``chunk_id`` from: the one named, else the one library holding it (the
        first when none does: its not-found message suggests close ids). Raises ``QueryError`` when
        several hold it."""
        if named is not None:
            return named
        candidates = [s for s in self._view.defaults() if _has_chunk(s, chunk_id)]
        if len(candidates) > 1:
            names = ", ".join(s.name for s in candidates)
            raise QueryError(
                f"chunk_id {chunk_id!r} is in several libraries ({names}): "
                f"pass `{LIBRARY}` as the search hit gave it."
            )
        return (candidates or self._view.defaults())[0]


def _has_chunk(served: Served, chunk_id: str) -> bool:
    try:
        served.state.index.sections([chunk_id])
    except ChunkNotFound:
        return False
    return True


def _holds(served: Served, filters: Mapping[str, str]) -> bool:
    return all(value in served.facets.get(name, ()) for name, value in filters.items())


def _check_facets(served: Served, filters: Mapping[str, str], view: HubView) -> None:
    for name, value in filters.items():
        if value not in served.facets.get(name, ()):
            holders = [s.name for s in view.defaults() if value in s.facets.get(name, ())]
            own = served.facets.get(name)
            raise QueryError(
                f"library {served.name!r} has no {name}={value}"
                + (f" (its values: {', '.join(own)})" if own else f" (it has no facet {name!r})")
                + (f"; libraries with it: {', '.join(holders)}." if holders else ".")
            )
