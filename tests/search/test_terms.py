"""Query words: phrase pairs and stop words."""

from __future__ import annotations

from docs_mcp.search.terms import query_phrases


def test_query_phrases_pair_adjacent_content_words_only() -> None:
    assert query_phrases("How do I set the system prompt for Claude?", 8) == ["system prompt"]
    # A stop word between two words breaks the pair; repeated pairs are given once, in order.
    assert query_phrases("retry timeout or retry timeout for a page token", 8) == [
        "retry timeout",
        "page token",
    ]
    assert query_phrases("content_block_delta event", 2) == ["content block", "block delta"]
    assert query_phrases("what is it", 8) == []
