"""The JSON Schemas of the two tools, built at start-up from the index's taxonomy.

Each facet of the index (``language``, ``scope``, ...) becomes an optional ``search_docs`` property
whose ``enum`` lists exactly the values present in the index, so an agent sees the taxonomy and
cannot invent a value. Descriptions are written for the agent reading the tool listing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docs_mcp.search.facets import SPEC_FACETS, FacetConventions
from docs_mcp.search.types import CONTEXT_MAX, LIMIT_DEFAULT, LIMIT_MAX, QUERY_MAX_LENGTH, SEARCH_MODES
from docs_mcp.server.tools.budget import BYTES_PER_TOKEN, MAX_TOKENS_DEFAULT, MAX_TOKENS_MAX, MAX_TOKENS_MIN
from docs_mcp.server.tools.cursor import CURSOR_MAX_LENGTH

JsonSchema = dict[str, Any]

SEARCH_TOOL = "search_docs"
GET_TOOL = "get_doc"
LIMIT_MIN = 1
CONTEXT_MIN, CONTEXT_DEFAULT = 0, 0
# Arguments of search_docs that are not facets; a facet of the same name could not be filtered on.
RESERVED_ARGUMENTS = ("query", "limit", "cursor", "max_tokens")


@dataclass(frozen=True)
class SchemaExamples:
    """Examples for the tool descriptions, taken from the served index (a real heading, a real chunk
    id); empty strings: no example."""

    query: str = ""
    chunk_id: str = ""


@dataclass(frozen=True)
class ToolSchemas:
    """The input schemas of one index's two tools and the facets they filter on: everything the
    listing needs, made from the index manifest alone (see :func:`tool_schemas`)."""

    facets: dict[str, list[str]]
    conventions: FacetConventions
    search: JsonSchema
    get: JsonSchema


def manifest_examples(examples: Mapping[str, str] | None) -> SchemaExamples:
    """The examples an index manifest carries (``IndexManifest.examples``); none for an older index."""
    given = examples or {}
    return SchemaExamples(query=given.get("query", ""), chunk_id=given.get("chunk_id", ""))


def tool_schemas(
    facets: Mapping[str, Sequence[str]],
    conventions: FacetConventions = SPEC_FACETS,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    examples: SchemaExamples = SchemaExamples(),
) -> ToolSchemas:
    """The schemas of an index with ``facets`` (the manifest's), answers of at most ``max_tokens``."""
    searchable = searchable_facets(facets)
    return ToolSchemas(
        searchable,
        conventions,
        search_input_schema(searchable, conventions, max_tokens, examples),
        get_input_schema(max_tokens, examples),
    )


def _max_tokens(default: int) -> JsonSchema:
    return {
        "type": "integer",
        "minimum": MAX_TOKENS_MIN,
        "maximum": MAX_TOKENS_MAX,
        "default": default,
        "description": (
            f"Largest answer to return, in tokens ({MAX_TOKENS_MIN}-{MAX_TOKENS_MAX}, default {default}), "
            f"counted as one token per {BYTES_PER_TOKEN} bytes of the whole result. Fewer hits, or a "
            "shorter window of a long section, come back with a `next_cursor` for the rest. A "
            "`next_cursor` keeps the budget it was made with: omit max_tokens with a cursor to keep it, "
            "or pass one to change it."
        ),
    }


def _facet_hints(conventions: FacetConventions) -> dict[str, str]:
    language, scope = conventions.language, conventions.scope
    sdk, guide = conventions.sdk_specific, conventions.global_guide
    return {
        language: (
            "Programming language of the SDK the user is working with. Set it whenever the language is "
            "known: the same operation is documented once per language, and without this filter you may "
            "get another language's snippet. Language-neutral guides are still included automatically."
        ),
        scope: (
            f"Kind of page: '{sdk}' for one SDK's reference pages, '{guide}' for "
            f"language-neutral guides. Usually leave unset: when `{language}` is set and `{scope}` is not, "
            "global guides are included automatically; set it only to restrict results to one kind."
        ),
    }


def searchable_facets(facets: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """The facets that become ``search_docs`` arguments: those with values and a non-reserved name."""
    return {
        name: sorted(values)
        for name, values in sorted(facets.items())
        if values and name not in RESERVED_ARGUMENTS
    }


def facet_description(name: str, values: Sequence[str], conventions: FacetConventions = SPEC_FACETS) -> str:
    """What a facet argument means, for the agent; lists the allowed values."""
    hint = _facet_hints(conventions).get(name, f"Only return documentation whose `{name}` is this value.")
    return f"{hint} One of: {', '.join(values)}."


def search_input_schema(
    facets: Mapping[str, Sequence[str]],
    conventions: FacetConventions = SPEC_FACETS,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    examples: SchemaExamples = SchemaExamples(),
) -> JsonSchema:
    """The ``search_docs`` input schema with one enum-constrained property per facet; the query's
    example is a heading of the served index (``examples``), or there is none."""
    example = f", e.g. {examples.query.lower()!r}" if examples.query else ""
    properties: dict[str, JsonSchema] = {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": QUERY_MAX_LENGTH,
            "description": (
                f"What you are looking for, in natural language or keywords{example}. Name the "
                "operation, option or error message. Required unless `cursor` is given."
            ),
        },
        "limit": {
            "type": "integer",
            "minimum": LIMIT_MIN,
            "maximum": LIMIT_MAX,
            "default": LIMIT_DEFAULT,
            "description": f"Maximum number of results on this page ({LIMIT_MIN}-{LIMIT_MAX}).",
        },
        "cursor": {
            "type": "string",
            "minLength": 1,
            "maxLength": CURSOR_MAX_LENGTH,
            "description": (
                "The `next_cursor` of a previous search_docs result, to fetch the next page. Pass it back "
                "unchanged; on its own it continues that search (same query, filters, limit and "
                "max_tokens). If you also pass the query or filters, they must be the same as before; a "
                "max_tokens passed with it wins."
            ),
        },
        "max_tokens": _max_tokens(max_tokens),
    }
    for name, values in searchable_facets(facets).items():
        properties[name] = {
            "type": "string",
            "enum": list(values),
            "description": facet_description(name, values, conventions),
        }
    return {
        "type": "object",
        "properties": properties,
        "anyOf": [{"required": ["query"]}, {"required": ["cursor"]}],  # a cursor alone continues its search
        "additionalProperties": False,
    }


def get_input_schema(
    max_tokens: int = MAX_TOKENS_DEFAULT, examples: SchemaExamples = SchemaExamples()
) -> JsonSchema:
    """The ``get_doc`` input schema; the chunk id's example is one of the served index, or none."""
    example = f", e.g. {examples.chunk_id!r}" if examples.chunk_id else ""
    return {
        "type": "object",
        "properties": {
            "chunk_id": {
                "type": "string",
                "minLength": 1,
                "description": (
                    f"A chunk_id exactly as returned by search_docs{example}. Required unless `cursor` "
                    "is given."
                ),
            },
            "context": {
                "type": "integer",
                "minimum": CONTEXT_MIN,
                "maximum": CONTEXT_MAX,
                "default": CONTEXT_DEFAULT,
                "description": (
                    f"How many neighbouring chunks of the same file to include before and after "
                    f"({CONTEXT_MIN}-{CONTEXT_MAX}). Use 1-2 when the chunk refers to surrounding text. "
                    "Neighbours that do not fit `max_tokens` are left out, the farthest first."
                ),
            },
            "cursor": {
                "type": "string",
                "minLength": 1,
                "maxLength": CURSOR_MAX_LENGTH,
                "description": (
                    "The `next_cursor` of a previous get_doc answer whose section was too long for "
                    "`max_tokens`: pass it back unchanged (alone) to read the next window of that section, "
                    "at the same max_tokens (a max_tokens passed with it wins)."
                ),
            },
            "max_tokens": _max_tokens(max_tokens),
        },
        "anyOf": [{"required": ["chunk_id"]}, {"required": ["cursor"]}],
        "additionalProperties": False,
    }


_STRING_MAP: JsonSchema = {"type": "object", "additionalProperties": {"type": "string"}}
_BREADCRUMB: JsonSchema = {"type": "array", "items": {"type": "string"}}
_STRING: JsonSchema = {"type": "string"}
_ALSO_IN: JsonSchema = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"facet": _STRING, "value": _STRING, "chunk_id": _STRING},
        "required": ["facet", "value", "chunk_id"],
    },
}

_PART: JsonSchema = {
    "type": "object",
    "properties": {
        "start": {"type": "integer", "minimum": 0},
        "end": {"type": "integer", "minimum": 1},
        "length": {"type": "integer", "minimum": 1},
    },
    "required": ["start", "end", "length"],
}

# The fields of a section as the tools return it: (JSON Schema, what it is for the agent). A search
# hit has the common fields and HIT_ONLY; a get_doc chunk the common fields and CHUNK_ONLY.
COMMON_FIELDS: dict[str, tuple[JsonSchema, str]] = {
    "chunk_id": (_STRING, "pass it to get_doc to read the section"),
    "heading": (_STRING, "the section's own heading"),
    "breadcrumb": (_BREADCRUMB, "the headings above it, from the page title down"),
    "file": (_STRING, "path of the source file"),
    "facets": (_STRING_MAP, "only when the section has any: its facet values, e.g. language"),
    "url": (_STRING, "only when the site is known: the page URL with the section's anchor, to cite or link"),
}
HIT_ONLY: dict[str, tuple[JsonSchema, str]] = {
    "score": ({"type": "number"}, "relevance, higher is better, 3 decimals"),
    "matched": (
        {"type": "string", "enum": ["text", "meaning", "both"]},
        "how it matched: its words (text), its meaning (vector similarity) or both",
    ),
    "snippet": (_STRING, "the passage that matched"),
    "also_in": (
        _ALSO_IN,
        "only when present: the same section under other values of a facet (other languages), and its "
        "copies in other files (facet `copy`, value: the file), folded into this hit; pass a chunk_id to "
        "get_doc to read that variant",
    ),
}
CHUNK_ONLY: dict[str, tuple[JsonSchema, str]] = {
    "position": ({"type": "integer", "minimum": 1}, "1-based position of the section in its file"),
    "total": ({"type": "integer", "minimum": 1}, "number of sections in the file"),
    "markdown": (_STRING, "the section's markdown (a window of it when `part` is present)"),
    "part": (
        _PART,
        "only when the section was cut to fit max_tokens: the characters start..end of its markdown "
        "of length; the answer's next_cursor reads on",
    ),
}
# Fields a section has only sometimes (left out of ``required``).
OPTIONAL_FIELDS = ("facets", "url", "matched", "also_in", "part")
HIT_FIELDS = {**COMMON_FIELDS, **HIT_ONLY}
CHUNK_FIELDS = {**COMMON_FIELDS, **CHUNK_ONLY}


def _type_name(schema: JsonSchema) -> str:
    if schema.get("type") == "array":
        return "array of strings" if schema["items"].get("type") == "string" else "array of objects"
    if "additionalProperties" in schema:
        return "object of strings"
    return str(schema["type"])


def _item_schema(
    what: str, fields: Mapping[str, tuple[JsonSchema, str]], required: Sequence[str], *, strict: bool
) -> JsonSchema:
    """One array item: its fields named in ``required`` and described in prose; typed per field
    only when ``strict``.

    Clients re-validate every result against the output schema (the mcp client does, with
    jsonschema); per-field types of every item of a 10-hit page cost it ~1 ms a call (measured:
    1.23 ms against 0.19 ms for this form). The prose keeps the structure documented, and the tests
    check real results against the ``strict`` form.
    """
    listed = "; ".join(f"{name} ({_type_name(schema)}): {text}" for name, (schema, text) in fields.items())
    item: JsonSchema = {
        "type": "object",
        "description": f"{what}. Fields: {listed}.",
        "required": list(required),
    }
    if strict:
        item["properties"] = {name: schema for name, (schema, _text) in fields.items()}
    return item


# Every field of a search_docs result (always present).
_RESULT_FIELDS = [
    "query",
    "filters",
    "inferred_filters",
    "hits",
    "offset",
    "held_back",
    "next_cursor",
    "mode",
    "fallback_reason",
    "hint",
]


def search_output_schema(*, strict: bool = False) -> JsonSchema:
    """The ``search_docs`` structured result: a page of hits, the next cursor, and a hint when empty.

    ``strict`` adds a typed schema per hit field (for tests; see :func:`_item_schema`).
    """
    required = [name for name in HIT_FIELDS if name not in OPTIONAL_FIELDS]
    hit = _item_schema("One ranked section", HIT_FIELDS, required, strict=strict)
    hint: JsonSchema = {
        "type": "object",
        "properties": {
            "message": {"type": "string"},
            "suggested_filters": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": {"type": "string"}},
            },
            "matches_without_filters": {"type": "boolean"},
        },
        "required": ["message", "suggested_filters", "matches_without_filters"],
    }
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "filters": _STRING_MAP,
            "inferred_filters": {
                **_STRING_MAP,
                "description": (
                    "facet values the query names that were not passed as arguments (e.g. "
                    "{'language': 'python'} for '... in python'): their hits are ranked first, the rest "
                    "follow. Pass them as arguments to get only those."
                ),
            },
            "hits": {"type": "array", "items": hit},
            "offset": {"type": "integer", "minimum": 0},
            "held_back": {
                "type": "integer",
                "minimum": 0,
                "description": "hits of this page left out to fit max_tokens: next_cursor starts with them",
            },
            "next_cursor": {"type": ["string", "null"]},
            "mode": {"type": "string", "enum": list(SEARCH_MODES)},
            "fallback_reason": {"type": ["string", "null"]},
            "hint": {"anyOf": [hint, {"type": "null"}]},
        },
        "required": [*_RESULT_FIELDS],
    }


def get_output_schema(*, strict: bool = False) -> JsonSchema:
    """The ``get_doc`` structured result: the chunk and its neighbours in file order.

    ``strict`` adds a typed schema per chunk field (for tests; see :func:`_item_schema`).
    """
    required = [name for name in CHUNK_FIELDS if name not in OPTIONAL_FIELDS]
    chunk = _item_schema("One section, in file order", CHUNK_FIELDS, required, strict=strict)
    return {
        "type": "object",
        "properties": {
            "chunk_id": {"type": "string"},
            "chunks": {"type": "array", "items": chunk},
            "next_cursor": {
                "type": ["string", "null"],
                "description": "set when the section was cut to fit max_tokens: pass it as `cursor`",
            },
        },
        "required": ["chunk_id", "chunks", "next_cursor"],
    }
