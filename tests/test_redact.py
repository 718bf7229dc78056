"""``redact``, the one function that keeps credentials out of messages: every reference and URL shape
(issue 19 found 5 of 8 printed a password), and nothing that only looks like one."""

from __future__ import annotations

import pytest

from docs_mcp.artifact.reference import parse_reference
from docs_mcp.errors import ConfigError
from docs_mcp.redact import redact

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("http://user:KEY@host/v1", "http://***@host/v1"),
        ("https://KEY@host", "https://***@host"),
        ("oci://user:KEY@ghcr.io/acme/docs:v1", "oci://***@ghcr.io/acme/docs:v1"),
        ("user:KEY@ghcr.io/acme/docs:v1", "***@ghcr.io/acme/docs:v1"),
        (
            "error: 'user:KEY@127.0.0.1:5000/docs:v1' not found",
            "error: '***@127.0.0.1:5000/docs:v1' not found",
        ),
        ("no index at 'https:/user:KEY@host/x'", "no index at 'https:/***@host/x'"),  # a URL taken as a path
        (f"user:KEY@host/docs@{DIGEST}", f"***@host/docs@{DIGEST}"),
    ],
)
def test_every_shape_of_credentials_is_redacted(text: str, shown: str) -> None:
    assert redact(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        f"127.0.0.1:5000/docs:v1@{DIGEST}",
        f"docs:v1@{DIGEST}",
        "write to bob@example.com",
        "ghcr.io/acme/docs:v1",
    ],
)
def test_text_without_credentials_is_unchanged(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text", ["user:KEY@ghcr.io/acme/docs:v1", "oci://user:KEY@ghcr.io/acme/docs", "KEY@h.io/r"]
)
def test_a_reference_with_credentials_is_refused_without_quoting_them(text: str) -> None:
    with pytest.raises(ConfigError, match="holds no credentials") as refused:
        parse_reference(text)
    assert "KEY" not in str(refused.value)
