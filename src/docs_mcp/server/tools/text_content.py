"""Readable text for tool results, rendered from the same dict that is sent as ``structuredContent``.

The text is the compact form a model reads when its client hands it the text content (see
docs/answers.md for which clients do): each hit's own heading and where it sits, its chunk id, its
facets when the corpus has any, how it matched, a short snippet and its URL when known; the cursor
and the hint. Nothing is said twice: the file is the first part of the chunk id, a position is
said once.
"""

from __future__ import annotations

import json
from typing import Any


def _facets(facets: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(facets.items()))


def _place(item: dict[str, Any]) -> str:
    """The heading, then the headings above it."""
    above = " > ".join(item["breadcrumb"])
    heading = str(item["heading"])
    return heading + (f" (in {above})" if above and above != heading else "")


def render_search(result: dict[str, Any]) -> str:
    """Markdown-ish text of a ``search_docs`` result."""
    hits: list[dict[str, Any]] = result["hits"]
    filters = _facets(result["filters"])
    head = "search_docs" + (f" [{filters}]" if filters else "")  # the caller knows its query
    mode = result["mode"] + (f" (fallback: {result['fallback_reason']})" if result["fallback_reason"] else "")
    lines = [f"{head}: {len(hits)} hit(s) from #{result['offset'] + 1}, {mode}"]
    inferred = _facets(result["inferred_filters"])
    if inferred:
        lines.append(
            f"The query names {inferred}: those hits come first, the others follow. "
            f"Pass {inferred} as arguments to get only those."
        )
    for rank, hit in enumerate(hits, start=result["offset"] + 1):
        about = [hit["chunk_id"]]
        if hit.get("facets"):
            about.append(_facets(hit["facets"]))
        about.append(f"score {hit['score']}" + (f", {hit['matched']}" if hit.get("matched") else ""))
        lines += ["", f"{rank}. {_place(hit)}", "   " + " | ".join(about)]
        if hit.get("url"):
            lines.append(f"   url: {hit['url']}")
        if hit.get("also_in"):
            variants = ", ".join(f"{v['facet']}={v['value']}: {v['chunk_id']}" for v in hit["also_in"])
            lines.append(f"   also in {variants}")
        lines.append("   " + hit["snippet"].replace("\n", "\n   "))
    hint = result["hint"]
    if hint is not None:
        lines += ["", f"Hint: {hint['message']}"]
        if hint["suggested_filters"]:
            lines.append("suggested_filters: " + json.dumps(hint["suggested_filters"], ensure_ascii=False))
    if result["next_cursor"]:
        held = result["held_back"]
        why = f" ({held} more hit(s) of this page held back to stay within max_tokens)" if held else ""
        lines += ["", f"next_cursor{why}: {result['next_cursor']}"]
    return "\n".join(lines)


def render_get(result: dict[str, Any]) -> str:
    """The chunks of a ``get_doc`` result in file order, each under a header with its id and place."""
    parts = []
    for chunk in result["chunks"]:
        marker = " (requested)" if chunk["chunk_id"] == result["chunk_id"] else ""
        where = f"{chunk['position']} of {chunk['total']} in {chunk['file']}"
        part = chunk.get("part")
        if part is not None:
            where += f"; characters {part['start']}-{part['end']} of {part['length']}"
        url = f"\nurl: {chunk['url']}" if chunk.get("url") else ""
        parts.append(f"--- {chunk['chunk_id']} ({where}){marker}{url}\n{chunk['markdown']}")
    text = "\n\n".join(parts)
    if result.get("next_cursor"):
        text += f"\n\n--- the section goes on: call get_doc with cursor {result['next_cursor']}"
    return text
