"""Strict argument validation against the published schemas, with messages an agent can act on."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from docs_mcp.server.tools.arguments import ArgumentValidator, InvalidArguments
from docs_mcp.server.tools.tool_schema import get_input_schema, search_input_schema

FACETS = {"language": ["go", "python", "typescript"], "scope": ["global-guide", "sdk-specific"]}


@pytest.fixture
def search() -> ArgumentValidator:
    return ArgumentValidator("search_docs", search_input_schema(FACETS))


def test_defaults_are_filled_in(search: ArgumentValidator) -> None:
    assert search.validate({"query": "retries"}) == {"query": "retries", "limit": 10, "max_tokens": 8000}
    assert ArgumentValidator("get_doc", get_input_schema()).validate({"chunk_id": "a.md"})["context"] == 0


def test_an_unknown_argument_is_named_with_the_allowed_ones(search: ArgumentValidator) -> None:
    with pytest.raises(InvalidArguments) as caught:
        search.validate({"query": "retries", "lang": "go"})
    assert caught.value.field == "lang"
    assert "unknown argument 'lang'" in str(caught.value)
    assert "query, limit, cursor, max_tokens, language, scope" in str(caught.value)


def test_an_out_of_enum_facet_value_lists_the_allowed_values(search: ArgumentValidator) -> None:
    with pytest.raises(InvalidArguments) as caught:
        search.validate({"query": "retries", "language": "rust"})
    assert caught.value.field == "language"
    assert "language='rust' is not allowed; use one of: go, python, typescript" in str(caught.value)


@pytest.mark.parametrize("limit", [0, 51, -1])
def test_a_limit_out_of_range_names_the_range(search: ArgumentValidator, limit: int) -> None:
    with pytest.raises(InvalidArguments, match=r"limit=.* is out of range; use an integer from 1 to 50"):
        search.validate({"query": "retries", "limit": limit})


@pytest.mark.parametrize("limit", ["10", 2.5, True, None])
def test_a_limit_of_the_wrong_type_is_rejected(search: ArgumentValidator, limit: Any) -> None:
    with pytest.raises(InvalidArguments, match=r"limit=.* must be of type integer"):
        search.validate({"query": "retries", "limit": limit})


def test_a_missing_query_is_reported_before_anything_else(search: ArgumentValidator) -> None:
    with pytest.raises(InvalidArguments, match="missing required argument 'query'") as caught:
        search.validate({"limit": 500})
    assert caught.value.field == "query"


def test_no_arguments_at_all_is_a_missing_query(search: ArgumentValidator) -> None:
    with pytest.raises(InvalidArguments, match="missing required argument 'query'"):
        search.validate(None)


def test_get_doc_context_is_bounded_to_five() -> None:
    validator = ArgumentValidator("get_doc", get_input_schema())
    with pytest.raises(InvalidArguments, match="context=6 is out of range; use an integer from 0 to 5"):
        validator.validate({"chunk_id": "a.md", "context": 6})


_VALUES = st.one_of(
    st.text(max_size=3),
    st.sampled_from(["go", "python", "global-guide", "x" * 1001, "", "a.md"]),
    st.integers(min_value=-3, max_value=60),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.none(),
    st.lists(st.integers(), max_size=2),
)
_NAMES = st.sampled_from(["query", "limit", "cursor", "language", "scope", "lang", "chunk_id", "context"])


@settings(max_examples=400, deadline=None)
@given(arguments=st.dictionaries(_NAMES, _VALUES, max_size=4))
def test_validation_accepts_and_rejects_exactly_what_json_schema_does(arguments: dict[str, Any]) -> None:
    for tool, schema in (("search_docs", search_input_schema(FACETS)), ("get_doc", get_input_schema())):
        expected_valid = Draft202012Validator(schema).is_valid(arguments)
        try:
            ArgumentValidator(tool, schema).validate(arguments)
        except InvalidArguments:
            assert not expected_valid, (tool, arguments)
        else:
            assert expected_valid, (tool, arguments)
