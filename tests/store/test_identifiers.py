from __future__ import annotations

import pytest

from docs_mcp.store.identifiers import expand_query, identifier_parts, split_identifiers


@pytest.mark.parametrize(
    ("identifier", "parts"),
    [
        ("createLink", ["create", "link"]),
        ("CreateLinkRequest", ["create", "link", "request"]),
        ("create_link", ["create", "link"]),
        ("links.create", ["links", "create"]),
        ("HTTPClient", ["http", "client"]),
        ("link", ["link"]),
    ],
)
def test_identifier_parts_are_the_lower_case_words(identifier: str, parts: list[str]) -> None:
    assert identifier_parts(identifier) == parts


def test_only_camel_case_compounds_add_words_because_the_tokenizer_splits_punctuation() -> None:
    assert (
        split_identifiers("Call sdk.links.createLink with a CreateLinkRequest")
        == "create link create link request"
    )
    assert split_identifiers("plain prose, create_link and links.create") == ""


def test_a_query_keeps_its_words_and_gains_the_parts_of_its_identifiers() -> None:
    assert expand_query("createLink") == "createLink create link"
    assert expand_query("create link") == "create link"


def test_splitting_hostile_text_never_raises() -> None:
    assert split_identifiers("'; DROP TABLE chunks; -- \\ ünïcodeÜber") == ""
    assert split_identifiers("\x00\uffff") == ""
