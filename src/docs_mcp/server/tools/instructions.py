"""The prose an agent reads: initialize instructions and tool descriptions, from corpus and taxonomy.

Pure functions of the index's description, its author-written instructions and its facets, so the
text is deterministic for an index build and can be asserted exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from docs_mcp.search.facets import SPEC_FACETS, FacetConventions
from docs_mcp.search.types import CONTEXT_MAX, LIMIT_MAX
from docs_mcp.server.tools.tool_schema import GET_TOOL, SEARCH_TOOL, searchable_facets

_DEFAULT_DESCRIPTION = "a documentation corpus"


def _corpus(description: str | None) -> str:
    return (description or "").strip().rstrip(".") or _DEFAULT_DESCRIPTION


def _taxonomy_lines(facets: Mapping[str, Sequence[str]]) -> list[str]:
    return [f"- {name}: {', '.join(values)}" for name, values in searchable_facets(facets).items()]


def server_instructions(
    description: str | None,
    author_instructions: str | None,
    facets: Mapping[str, Sequence[str]],
    *,
    chunk_count: int | None = None,
    conventions: FacetConventions = SPEC_FACETS,
) -> str:
    """The MCP ``initialize`` instructions: what the corpus is, its taxonomy, and how to use the tools."""
    size = f" ({chunk_count} sections)" if chunk_count else ""
    lines = [f"This server answers questions from {_corpus(description)}{size}."]
    if author_instructions and author_instructions.strip():
        lines += ["", author_instructions.strip()]
    taxonomy = _taxonomy_lines(facets)
    if taxonomy:
        lines += ["", f"Results can be filtered by these facets ({SEARCH_TOOL} arguments):", *taxonomy]
    language = conventions.language
    lines += [
        "",
        f"Workflow: call {SEARCH_TOOL} with a specific query"
        + (
            f" and, when you know it, the user's `{language}`"
            if language in searchable_facets(facets)
            else ""
        )
        + f"; read the snippets; call {GET_TOOL} with a chunk_id to read that section in full "
        f"(context 1-{CONTEXT_MAX} adds neighbouring sections). For more results pass next_cursor as "
        "`cursor` (alone is enough). "
        "An empty result carries a hint with filters that do match.",
    ]
    return "\n".join(lines)


def search_description(
    description: str | None, facets: Mapping[str, Sequence[str]], conventions: FacetConventions = SPEC_FACETS
) -> str:
    """The ``search_docs`` tool description."""
    available = searchable_facets(facets)
    language = conventions.language
    text = (
        f"Search {_corpus(description)} (hybrid keyword and semantic search). Returns up to {LIMIT_MAX} "
        "ranked sections per page, each with a chunk_id, file, heading breadcrumb, a snippet, its facet "
        f"values and a score. Use {GET_TOOL} with a chunk_id for the full section."
    )
    if language in available:
        text += (
            f" Always set `{language}` when you know the user's programming language: the same "
            "operation is documented for every language, and the filter guarantees the right one. "
            "Without it, a hit lists the same section in other languages under `also_in`, and a "
            "language named in the query ranks first (`inferred_filters`)."
        )
    if available:
        text += " Filters: " + "; ".join(f"{n} ({', '.join(v)})" for n, v in available.items()) + "."
    text += " When nothing matches, the result's hint suggests filter values that do match."
    return text


def get_description() -> str:
    """The ``get_doc`` tool description."""
    return (
        f"Read one section of the documentation in full, by the chunk_id a {SEARCH_TOOL} result gave. "
        f"`context` (0-{CONTEXT_MAX}) adds that many neighbouring sections of the same file before and "
        "after it, in file order; each section comes with its position in the file (e.g. '3 of 12')."
    )
