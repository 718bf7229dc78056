"""Tool schemas built from the index taxonomy: enums injected, nothing else accepted."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools import tool_schema as schema_module
from docs_mcp.server.tools.tool_schema import (
    CHUNK_FIELDS,
    HIT_FIELDS,
    OPTIONAL_FIELDS,
    SchemaExamples,
    get_input_schema,
    get_output_schema,
    search_input_schema,
    search_output_schema,
)


def test_each_facet_becomes_an_enum_property_with_its_sorted_values() -> None:
    schema = search_input_schema(
        {"language": ["typescript", "go"], "scope": ["sdk-specific", "global-guide"]}
    )
    assert schema["properties"]["language"]["enum"] == ["go", "typescript"]
    assert schema["properties"]["scope"]["enum"] == ["global-guide", "sdk-specific"]
    assert "required" not in schema  # a query, or a cursor alone:
    assert schema["anyOf"] == [{"required": ["query"]}, {"required": ["cursor"]}]
    assert schema["additionalProperties"] is False


def test_facet_descriptions_tell_the_agent_to_set_the_language() -> None:
    schema = search_input_schema({"language": ["go"], "product": ["a", "b"]})
    assert "Set it whenever the language is known" in schema["properties"]["language"]["description"]
    assert schema["properties"]["product"]["description"].endswith("One of: a, b.")


def test_facets_without_values_or_with_reserved_names_are_not_arguments() -> None:
    schema = search_input_schema({"empty": [], "limit": ["1"], "query": ["x"]})
    assert list(schema["properties"]) == ["query", "limit", "cursor", "max_tokens"]
    assert schema["properties"]["limit"]["type"] == "integer"


def test_every_schema_is_valid_json_schema() -> None:
    for schema in (
        search_input_schema({"language": ["go"]}),
        get_input_schema(),
        search_output_schema(),
        get_output_schema(),
        search_output_schema(strict=True),
        get_output_schema(strict=True),
    ):
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object"


def test_the_published_output_schemas_name_and_describe_every_field_of_a_hit_and_a_chunk() -> None:
    hit = search_output_schema()["properties"]["hits"]["items"]
    chunk = get_output_schema()["properties"]["chunks"]["items"]
    assert hit["required"] == [name for name in HIT_FIELDS if name not in OPTIONAL_FIELDS]
    assert "also_in" in HIT_FIELDS and "also_in" not in hit["required"]
    assert all(f"{name} (" in hit["description"] for name in HIT_FIELDS)
    assert "also_in (array of objects)" in hit["description"]
    assert all(f"{name} (" in chunk["description"] for name in CHUNK_FIELDS)
    assert "score (number)" in hit["description"]
    # The strict form (what tests check results against) types every field.
    assert set(search_output_schema(strict=True)["properties"]["hits"]["items"]["properties"]) == set(
        HIT_FIELDS
    )


def test_the_search_result_documents_inferred_filters() -> None:
    schema = search_output_schema()
    assert "inferred_filters" in schema["required"]
    assert "ranked first" in schema["properties"]["inferred_filters"]["description"]


def test_schema_examples_come_from_the_served_index_or_there_are_none(docs_index: DocsIndex) -> None:
    heading, chunk_id = docs_index.example_section()
    assert chunk_id in docs_index._catalog and heading
    examples = SchemaExamples(query=heading, chunk_id=chunk_id)
    query = search_input_schema({}, max_tokens=8_000, examples=examples)["properties"]["query"]["description"]
    assert repr(heading.lower()) in query
    assert repr(chunk_id) in get_input_schema(8_000, examples)["properties"]["chunk_id"]["description"]
    bare = json.dumps([search_input_schema({}), get_input_schema()])
    assert "e.g." not in bare, "no example at all rather than one from another corpus"
    source = (Path(schema_module.__file__)).read_text()
    assert "custom domain" not in source and "retries.md#" not in source
