"""The hash provider: deterministic bag-of-words vectors for tests and offline builds."""

from __future__ import annotations

import math

from docs_mcp.embedding.hash import DEFAULT_DIMENSIONS, HashProvider


def dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_the_same_text_gets_the_same_vector_in_every_instance() -> None:
    assert (
        HashProvider().embed_query("retry with backoff")
        == HashProvider().embed_documents(["retry with backoff"])[0]
    )


def test_vectors_have_the_configured_dimensions_and_unit_length() -> None:
    provider = HashProvider(dimensions=32)

    vector = provider.embed_query("some words here")

    assert (len(vector), provider.dimensions, len(HashProvider().embed_query("a"))) == (
        32,
        32,
        DEFAULT_DIMENSIONS,
    )
    assert math.isclose(math.sqrt(dot(vector, vector)), 1.0)


def test_texts_sharing_words_are_closer_than_texts_that_share_none() -> None:
    provider = HashProvider()
    query = provider.embed_query("configure retry backoff")
    near, far = provider.embed_documents(["how to configure retry backoff", "pricing tiers and invoices"])

    assert dot(query, near) > dot(query, far)


def test_an_empty_text_embeds_without_error() -> None:
    assert HashProvider(dimensions=8).embed_query("") == [0.0] * 8
