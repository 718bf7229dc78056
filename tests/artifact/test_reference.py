"""References are parsed once, strictly, with messages that show the expected shape."""

from __future__ import annotations

import pytest

from docs_mcp.artifact.reference import Reference, is_oci_reference, parse_reference
from docs_mcp.errors import ConfigError

DIGEST = "sha256:" + "ab" * 32


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ghcr.io/acme/docs-index:idx-1a2b3c4", Reference("ghcr.io", "acme/docs-index", "idx-1a2b3c4")),
        ("oci://ghcr.io/acme/docs-index:v1", Reference("ghcr.io", "acme/docs-index", "v1")),
        ("127.0.0.1:5000/docs", Reference("127.0.0.1:5000", "docs", "latest")),
        ("localhost/a/b/c:t", Reference("localhost", "a/b/c", "t")),
        (f"ghcr.io/acme/docs@{DIGEST}", Reference("ghcr.io", "acme/docs", None, DIGEST)),
        (f"ghcr.io/acme/docs:v1@{DIGEST}", Reference("ghcr.io", "acme/docs", "v1", DIGEST)),
    ],
)
def test_a_reference_parses_into_registry_repository_tag_and_digest(text: str, expected: Reference) -> None:
    assert parse_reference(text) == expected


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("acme/docs-index:v1", "does not name a registry host"),
        ("docs-index", "does not name a registry host"),
        ("ghcr.io/Acme/Docs:v1", "lower-case"),
        ("ghcr.io/acme/docs:-bad", "not a valid tag"),
        ("ghcr.io/acme/docs@sha256:1234", "64 lower-case hex"),
        ("ghcr.io/", "does not name a registry host"),
    ],
)
def test_a_malformed_reference_is_refused_with_what_to_write(text: str, complaint: str) -> None:
    with pytest.raises(ConfigError, match=complaint):
        parse_reference(text)


def test_a_pinned_reference_keeps_its_tag_and_prints_as_ref_at_digest() -> None:
    pinned = parse_reference("ghcr.io/acme/docs:v1").pinned(DIGEST)
    assert str(pinned) == f"ghcr.io/acme/docs:v1@{DIGEST}"
    assert pinned.target == DIGEST


def test_only_loopback_registries_default_to_plain_http() -> None:
    assert parse_reference("127.0.0.1:5000/docs").is_loopback
    assert parse_reference("localhost:5000/docs").is_loopback
    assert not parse_reference("ghcr.io/acme/docs").is_loopback
    assert not parse_reference("127.0.0.1.example.com/docs").is_loopback


def test_oci_references_are_told_apart_from_folders() -> None:
    assert is_oci_reference("oci://ghcr.io/acme/docs:v1")
    assert not is_oci_reference("./index")
