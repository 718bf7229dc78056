from __future__ import annotations

import pytest

from docs_mcp.limits import MAX_IDENTIFIER_LENGTH
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


def test_splitting_is_linear_in_the_length_of_a_run_of_letters_and_digits() -> None:
    """190 KB of hex words took 34 s to index (the pattern backtracked over every run); runs over
    MAX_IDENTIFIER_LENGTH are data, not names, and add nothing."""
    hex_words = " ".join(("0123456789abcdef" * 1200)[:19_000] for _ in range(10))
    assert split_identifiers(hex_words) == ""
    humps = "aB" * 100_000
    assert split_identifiers(humps) == ""
    assert split_identifiers("x" * (MAX_IDENTIFIER_LENGTH - 6) + "Suffix") == f"{'x' * 250} suffix"


def test_generated_sdk_type_names_are_still_split() -> None:
    name = "CreatePartnerFieldsPartnersResponse201ApplicationJSONResponseBodyReferralFormData8TypePhone"
    assert split_identifiers(name).startswith("create partner fields partners response 201 application json")
