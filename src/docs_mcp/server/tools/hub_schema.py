"""Schemas and prose of a server with several libraries: the single-index ones plus ``library``/``version``.

The facets of every served index are offered together: each facet's enum is the union of its values,
and its description says which library holds which values. ``library`` is an enum of the served
names, each described (in the tool description and the argument's) by its index's description and
size; ``version`` exists only when some library is served in several versions.

Everything here is read from the libraries' manifests, so the listing is the same before and after
they are open (:mod:`docs_mcp.server.hub.libraries`).
"""

from __future__ import annotations

import copy

from docs_mcp.search.facets import SPEC_FACETS
from docs_mcp.search.types import CONTEXT_MAX, LIMIT_MAX
from docs_mcp.server.hub.libraries import HubView, Served
from docs_mcp.server.tools.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.tools.tool_schema import (
    GET_TOOL,
    SEARCH_TOOL,
    JsonSchema,
    facet_description,
    get_input_schema,
    get_output_schema,
    search_input_schema,
    search_output_schema,
)

LIBRARY, VERSION = "library", "version"
_DEFAULT_DESCRIPTION = "documentation"


def _about(served: Served) -> str:
    manifest = served.manifest
    text = (manifest.description or "").strip().rstrip(".") or _DEFAULT_DESCRIPTION
    return f"{text} ({manifest.chunk_count} sections)"


def library_lines(view: HubView) -> list[str]:
    """One line per library: its name, what it holds, and its versions."""
    lines = []
    for served in view.defaults():
        versions = view.versions(served.name)
        shown = f"; versions {', '.join(versions)}, latest {served.version}" if len(versions) > 1 else ""
        shown = shown or (f"; version {served.version}" if served.version else "")
        lines.append(f"- {served.name}: {_about(served)}{shown}")
    return lines


def facet_holders(view: HubView) -> dict[str, dict[str, list[str]]]:
    """facet -> library label -> its values, over every served library version."""
    holders: dict[str, dict[str, list[str]]] = {}
    for served in view.everything():
        label = f"{served.name}@{served.version}" if served.version else served.name
        for name, values in served.facets.items():
            holders.setdefault(name, {})[label] = list(values)
    return holders


def _has_versions(view: HubView) -> bool:
    return any(version is not None for (_name, version) in view.served)


def hub_search_schema(view: HubView, max_tokens: int = MAX_TOKENS_DEFAULT) -> JsonSchema:
    """``search_docs`` with ``library`` (and ``version``) and the union of every library's facets."""
    holders = facet_holders(view)
    union = {name: sorted({v for values in by.values() for v in values}) for name, by in holders.items()}
    conventions = SPEC_FACETS  # as every library is opened (DocsIndex.open's default configuration)
    schema = search_input_schema(union, conventions, max_tokens)
    properties: dict[str, JsonSchema] = schema["properties"]
    for name, by in holders.items():
        if name in properties:
            held = "; ".join(f"{label}: {', '.join(values)}" for label, values in by.items())
            properties[name]["description"] = (
                f"{facet_description(name, union[name], conventions)} Values per library: {held}. Without "
                f"`{LIBRARY}`, only libraries holding the value are searched."
            )
    properties[LIBRARY] = {
        "type": "string",
        "enum": view.names,
        "description": (
            "The library to search; omit it to search every library at once (one merged ranking). "
            "Libraries:\n" + "\n".join(library_lines(view))
        ),
    }
    if _has_versions(view):
        properties[VERSION] = _version_property(view)
    return schema


def _version_property(view: HubView) -> JsonSchema:
    versions = sorted({v for (_n, v) in view.served if v is not None})
    by_library = "; ".join(
        f"{name}: {', '.join(view.versions(name))} (latest {view.latest[name]})"
        for name in view.names
        if view.versions(name)
    )
    return {
        "type": "string",
        "enum": versions,
        "description": (
            f"The version of `{LIBRARY}` to read; omit it for the library's latest. Needs `{LIBRARY}`. "
            f"Served: {by_library}."
        ),
    }


def hub_get_schema(view: HubView, max_tokens: int = MAX_TOKENS_DEFAULT) -> JsonSchema:
    """``get_doc`` with ``library`` (and ``version``): chunk ids are per library; a window cursor
    carries its library."""
    schema = get_input_schema(max_tokens)
    schema["properties"][LIBRARY] = {
        "type": "string",
        "enum": view.names,
        "description": (
            f"The `library` of the {SEARCH_TOOL} hit the chunk_id came from. May be omitted when only one "
            "library holds that chunk_id, or with `cursor` (it carries its library)."
        ),
    }
    if _has_versions(view):
        schema["properties"][VERSION] = _version_property(view)
    return schema


def _with_library(item: JsonSchema) -> None:
    item["required"] = [*item["required"], LIBRARY]
    item["description"] = item["description"].rstrip(".") + (
        "; library (string): the library it comes from (pass it to get_doc); version (string): only when "
        "the library is served in versions."
    )
    if "properties" in item:
        item["properties"][LIBRARY] = {"type": "string"}
        item["properties"][VERSION] = {"type": "string"}


def hub_search_output_schema(*, strict: bool = False) -> JsonSchema:
    """The single-index result, each hit carrying ``library`` (and ``version``)."""
    schema = copy.deepcopy(search_output_schema(strict=strict))
    _with_library(schema["properties"]["hits"]["items"])
    schema["properties"][LIBRARY] = {"type": ["string", "null"]}
    return schema


def hub_get_output_schema(*, strict: bool = False) -> JsonSchema:
    """The single-index result plus the ``library`` (and ``version``) read."""
    schema = copy.deepcopy(get_output_schema(strict=strict))
    schema["properties"][LIBRARY] = {"type": "string"}
    schema["required"] = [*schema["required"], LIBRARY]
    return schema


def hub_search_description(view: HubView) -> str:
    """The ``search_docs`` description: the libraries, then how to search them."""
    return (
        f"Search the documentation of {len(view.names)} libraries (hybrid keyword and semantic search). "
        f"Set `{LIBRARY}` when you know which one the question is about; omit it to search all of them in "
        "one ranking. Libraries:\n" + "\n".join(library_lines(view)) + "\n"
        f"Returns up to {LIMIT_MAX} ranked sections per page, each with its library, chunk_id, file, "
        f"heading breadcrumb, a snippet, its facet values and a score. Use {GET_TOOL} with the hit's "
        f"`{LIBRARY}` and chunk_id for the full section. When nothing matches, the hint names the "
        "libraries (and versions) and filter values that do match."
    )


def hub_get_description() -> str:
    return (
        f"Read one section in full, by the `{LIBRARY}` and chunk_id a {SEARCH_TOOL} hit gave. "
        f"`context` (0-{CONTEXT_MAX}) adds that many neighbouring sections of the same file before and "
        "after it, in file order. A section longer than `max_tokens` comes in windows: pass the answer's "
        "`next_cursor` as `cursor` (alone) for the next one."
    )


def hub_instructions(view: HubView) -> str:
    """The ``initialize`` instructions of a server with several libraries."""
    lines = [f"This server answers questions from the documentation of {len(view.names)} libraries:"]
    lines += library_lines(view)
    for served in view.defaults():
        author = served.manifest.instructions
        if author and author.strip():
            lines += ["", f"About {served.name}: {author.strip()}"]
    lines += [
        "",
        f"Workflow: call {SEARCH_TOOL} with a specific query and, when you know it, `{LIBRARY}` (omit it to "
        f"search every library); call {GET_TOOL} with a hit's `{LIBRARY}` and chunk_id to read it in full. "
        "For more results pass next_cursor as `cursor` (alone is enough). An empty result carries a hint "
        "naming the libraries and filters that do match.",
    ]
    return "\n".join(lines)
