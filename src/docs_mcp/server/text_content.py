"""Readable text for tool results, rendered from the same dict that is sent as ``structuredContent``.

Clients that show only text content (or models that read only text) get every field the structured
result has: ids, positions, the cursor and the hint.
"""

from __future__ import annotations

import json
from typing import Any


def _facets(facets: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(facets.items()))


def render_search(result: dict[str, Any]) -> str:
    """Markdown-ish text of a ``search_docs`` result."""
    hits: list[dict[str, Any]] = result["hits"]
    filters = _facets(result["filters"])
    head = f"search_docs {json.dumps(result['query'], ensure_ascii=False)}" + (
        f" [{filters}]" if filters else ""
    )
    mode = result["mode"] + (f" (fallback: {result['fallback_reason']})" if result["fallback_reason"] else "")
    lines = [f"{head}: {len(hits)} result(s) from #{result['offset'] + 1}, mode {mode}"]
    inferred = _facets(result["inferred_filters"])
    if inferred:
        lines.append(
            f"The query names {inferred}: those results come first, the others follow. "
            f"Pass {inferred} as arguments to get only those."
        )
    for rank, hit in enumerate(hits, start=result["offset"] + 1):
        breadcrumb = " > ".join(hit["breadcrumb"]) or hit["heading"]
        lines += [
            "",
            f"{rank}. {breadcrumb}",
            f"   chunk_id: {hit['chunk_id']}",
            f"   file: {hit['file']}  facets: {_facets(hit['facets']) or '-'}  score: {hit['score']:.4f}",
        ]
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
    lines += ["", f"next_cursor: {result['next_cursor'] or 'null (no more results)'}"]
    return "\n".join(lines)


def render_get(result: dict[str, Any]) -> str:
    """The chunks of a ``get_doc`` result in file order, each under a header with its id and position."""
    parts = []
    for chunk in result["chunks"]:
        marker = " (requested)" if chunk["chunk_id"] == result["chunk_id"] else ""
        parts.append(
            f"--- {chunk['chunk_id']} ({chunk['position_label']} in {chunk['file']}){marker}\n"
            + (f"url: {chunk['url']}\n" if chunk.get("url") else "")
            + f"{chunk['markdown'].rstrip()}"
        )
    return "\n\n".join(parts)
