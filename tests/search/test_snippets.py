from __future__ import annotations

from docs_mcp.search.snippets import DEFAULT_WIDTH, make_snippet


def test_a_short_text_comes_back_whole_with_whitespace_collapsed() -> None:
    assert make_snippet("  Create   a\nlink.  ", "link") == "Create a link."


def test_the_window_centres_on_the_query_terms_and_marks_both_cuts() -> None:
    text = (
        "filler words here. " * 40
        + "Call createLink with a RetryConfig to retry. "
        + "more filler text. " * 40
    )
    snippet = make_snippet(text, "create link retry")
    assert "createLink" in snippet and "RetryConfig" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) <= DEFAULT_WIDTH + 2


def test_without_a_match_the_snippet_is_the_start_of_the_text() -> None:
    text = "First words of the chunk. " + "other " * 100
    snippet = make_snippet(text, "nothing matches")
    assert snippet.startswith("First words of the chunk.") and snippet.endswith("…")


def test_the_densest_cluster_wins_over_a_lone_early_hit() -> None:
    text = "timeout once. " + "x " * 300 + "retry after a timeout, retry again. " + "y " * 300
    assert "retry after a timeout" in make_snippet(text, "retry timeout")


def test_a_huge_text_is_only_scanned_so_far() -> None:
    text = "a " * 50_000 + "needle"
    snippet = make_snippet(text, "needle")
    assert "needle" not in snippet and snippet.endswith("…")
