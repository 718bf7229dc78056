"""The tool listing and ``initialize`` instructions of one index, made from its manifest alone.

Imports no part of the index stack (LanceDB, pyarrow, the embedder), so a server can publish them
while that stack still loads (:mod:`docs_mcp.server.hub.deferred`).
"""

from __future__ import annotations

from dataclasses import dataclass

import mcp_types as types

from docs_mcp.search.facets import SPEC_FACETS, FacetConventions
from docs_mcp.server.tools.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.tools.feedback import (
    FEEDBACK_DESCRIPTION,
    FEEDBACK_TOOL,
    feedback_input_schema,
    feedback_output_schema,
)
from docs_mcp.server.tools.instructions import get_description, search_description, server_instructions
from docs_mcp.server.tools.prompts import DocsPrompts
from docs_mcp.server.tools.tool_schema import (
    GET_TOOL,
    SEARCH_TOOL,
    JsonSchema,
    ToolSchemas,
    get_output_schema,
    manifest_examples,
    search_output_schema,
    tool_schemas,
)
from docs_mcp.store.index_manifest import IndexManifest

__all__ = [
    "Front",
    "ToolShape",
    "feedback_tool",
    "instructions_of",
    "listed_tools",
    "manifest_front",
    "manifest_schemas",
    "search_and_get",
]

_READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


# A tool as listed: its description, input schema and output schema.
ToolShape = tuple[str, JsonSchema, JsonSchema]


def search_and_get(*, search: ToolShape, get: ToolShape) -> tuple[types.Tool, types.Tool]:
    """``search_docs`` and ``get_doc`` as listed, read-only (a single index's and the hub's)."""
    return (
        types.Tool(
            name=SEARCH_TOOL,
            title="Search the documentation",
            description=search[0],
            input_schema=search[1],
            output_schema=search[2],
            annotations=_READ_ONLY,
        ),
        types.Tool(
            name=GET_TOOL,
            title="Read a documentation section",
            description=get[0],
            input_schema=get[1],
            output_schema=get[2],
            annotations=_READ_ONLY,
        ),
    )


def listed_tools(schemas: ToolSchemas, description: str | None, feedback: bool) -> dict[str, types.Tool]:
    """The tools as listed, keyed by name; ``docs_feedback`` only with ``feedback``."""
    search, get = search_and_get(
        search=(
            search_description(description, schemas.facets, schemas.conventions),
            schemas.search,
            search_output_schema(),
        ),
        get=(get_description(), schemas.get, get_output_schema()),
    )
    tools = {SEARCH_TOOL: search, GET_TOOL: get}
    if feedback:
        tools[FEEDBACK_TOOL] = feedback_tool()
    return tools


def feedback_tool() -> types.Tool:
    """The ``docs_feedback`` tool as listed (a single index's and the hub's)."""
    return types.Tool(
        name=FEEDBACK_TOOL,
        title="Report whether the docs answered",
        description=FEEDBACK_DESCRIPTION,
        input_schema=feedback_input_schema(),
        output_schema=feedback_output_schema(),
        annotations=types.ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
        ),
    )


def instructions_of(manifest: IndexManifest, schemas: ToolSchemas) -> str:
    """The ``initialize`` instructions of the index ``manifest`` describes."""
    return server_instructions(
        manifest.description,
        manifest.instructions,
        schemas.facets,
        chunk_count=manifest.chunk_count,
        conventions=schemas.conventions,
    )


def manifest_schemas(
    manifest: IndexManifest, max_tokens: int = MAX_TOKENS_DEFAULT, conventions: FacetConventions = SPEC_FACETS
) -> ToolSchemas:
    """The tool schemas of the index ``manifest`` describes, with the manifest's examples (none in an
    index built before they were recorded)."""
    return tool_schemas(manifest.facets, conventions, max_tokens, manifest_examples(manifest.examples))


@dataclass(frozen=True)
class Front:
    """What the server publishes before (and independently of) the opened index."""

    listing: types.ListToolsResult
    tools: dict[str, types.Tool]
    instructions: str
    resources: bool  # the taxonomy marks chunks as MCP resources
    prompts: DocsPrompts  # the docs' prompt templates (from the manifest too)


def manifest_front(
    manifest: IndexManifest, max_tokens: int = MAX_TOKENS_DEFAULT, feedback: bool = False
) -> Front:
    """What a server of the index ``manifest`` describes publishes before the index is open."""
    schemas = manifest_schemas(manifest, max_tokens)
    tools = listed_tools(schemas, manifest.description, feedback)
    resources = any(entry.resources for entry in manifest.taxonomy.values())  # as DocsResources
    return Front(
        types.ListToolsResult(tools=list(tools.values())),
        tools,
        instructions_of(manifest, schemas),
        resources,
        DocsPrompts.of(manifest.prompts, max_tokens),
    )
