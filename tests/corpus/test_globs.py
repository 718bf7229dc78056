"""Manifest globs: shell rules with ``**`` for folders, matched segment by segment in linear time."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.corpus.globs import GlobError, compile_glob, fill, glob_matches, template_problem
from docs_mcp.limits import MAX_GLOB_ALTERNATIVES

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**", "a/b/c.md", True),
        ("docs/**/*.md", "docs/a.md", True),
        ("docs/**/*.md", "docs/x/y/a.md", True),
        ("docs/**/*.md", "other/a.md", False),
        ("**/sdk/**/*.md", "a/sdk/b/c.md", True),
        ("**/sdk/**/*.md", "sdk/c.md", True),
        ("**/sdk/**/*.md", "a/b/c.md", False),
        ("**/a/b/**/x.md", "a/a/b/b/x.md", True),
        ("**.md", "a.md", True),  # ** inside a segment is a * (as in gitignore and minimatch)
        ("**.md", "x/a.md", False),
        ("{guides,sdk/python}/*.md", "sdk/python/a.md", True),
        ("{a,{b,c}}.md", "c.md", True),
        ("{a,b", "{a,b", True),  # a brace never closed is literal
        ("[^ab].md", "c.md", True),
        ("[^ab].md", "a.md", False),
        ("*" * 30 + "x", "a" * 22 + ".md", False),
        ("*a" * 20, "a" * 40, True),
        ("**/*.md", "a.md", True),
        ("**/*.md", "x/y/a.md", True),
        ("*.md", "x/a.md", False),
        ("./*.md", "a.md", True),
        ("models/*.md", "models/a b.md", True),
        ("models/*.md", "models/deep/a.md", False),
        ("models/**", "models/deep/a.md", True),
        ("sdks/*/README.md", "sdks/go/README.md", True),
        ("{guides,tutorials}/*.md", "tutorials/x.md", True),
        ("{guides,tutorials}/*.md", "reference/x.md", False),
        ("file?.md", "file1.md", True),
        ("[ab].md", "b.md", True),
        ("[!ab].md", "b.md", False),
        ("a+b (1).md", "a+b (1).md", True),
    ],
)
def test_globs_follow_shell_rules_matching_segment_by_segment(pattern: str, path: str, matches: bool) -> None:
    assert glob_matches(pattern, path) is matches


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("[z-a].md", "range z-a in [z-a] is backwards; write a-z"),
        ("x" * 300, "at most 256 (MAX_GLOB_LENGTH)"),
        ("{a,b}" * 7, f"more than {MAX_GLOB_ALTERNATIVES} patterns"),
    ],
)
def test_globs_that_cannot_be_used_raise_a_glob_error_naming_the_problem(pattern: str, problem: str) -> None:
    with pytest.raises(GlobError, match=re.escape(problem)):
        compile_glob(pattern)
    assert glob_matches(pattern, "a.md") is False


def test_matching_time_grows_linearly_with_the_path_for_the_worst_patterns() -> None:
    """Not a speed assertion: the old regex took 115 s on one 24-character path; each of these is
    thousands of paths of thousands of characters and must finish within the test's timeout."""
    started = time.perf_counter()
    for pattern in ("*" * 30 + "x", "*a" * 40 + "b", "**/" * 30 + "x.md", "**/a/" * 20 + "x.md"):
        for length in (100, 1000, 4000):
            assert not glob_matches(pattern, "a" * length)
            assert not glob_matches(pattern, "/".join(["a"] * length))
    assert time.perf_counter() - started < 30


def _reference_regex(pattern: str) -> str:
    """The backtracking translation the matcher replaced, kept as the reference for short inputs."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out.append("(?:" + "|".join(_reference_regex(o) for o in pattern[i + 1 : end].split(",")) + ")")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)


# Segments without "**" mixed into other characters (the one place the two differ on purpose).
_SEGMENT = st.one_of(
    st.just("**"),
    st.lists(st.sampled_from(["a", "b", "*", "?", "{a,b}", "{b,ab}"]), min_size=1, max_size=4)
    .map("".join)
    .filter(lambda s: "**" not in s),
)


@settings(max_examples=300)
@given(
    segments=st.lists(_SEGMENT, min_size=1, max_size=4),
    path=st.lists(st.sampled_from(["a", "b", "ab", "ba", "aab"]), min_size=1, max_size=5).map("/".join),
)
def test_the_segment_matcher_agrees_with_the_regex_it_replaced(segments: list[str], path: str) -> None:
    pattern = "/".join(segments)
    if pattern.endswith("/**"):  # the regex needed a trailing "/"; the matcher also matches the folder
        return
    expected = re.fullmatch(_reference_regex(pattern), path) is not None
    assert glob_matches(pattern, path) is expected, (pattern, path)


@pytest.mark.parametrize(
    ("pattern", "path", "template", "filled"),
    [
        ("README-PYPI.md", "README-PYPI.md", "README.md", "README.md"),
        ("packages/*/docs/**", "packages/azure/docs/models/link.md", "docs/**", "docs/models/link.md"),
        ("packages/*/**", "packages/gcp/README.md", "**", "README.md"),
        ("*/README-PYPI.md", "python/README-PYPI.md", "*/README.md", "python/README.md"),
        ("packages/{azure,gcp}/docs/**", "packages/gcp/docs/a.md", "docs/**", "docs/a.md"),
        ("a/**/b/**/c.md", "a/x/y/b/c.md", "q/**/r/**/c.md", "q/x/y/r/c.md"),  # an empty ** leaves no segment
        ("pkg/*/*.md", "pkg/one/two.md", "main/*/index.md", "main/one/index.md"),  # *.md takes nothing
    ],
)
def test_a_template_is_filled_with_what_the_patterns_whole_wildcards_took(
    pattern: str, path: str, template: str, filled: str
) -> None:
    captures = compile_glob(pattern).captures(path)
    assert captures is not None and template_problem(template, pattern) is None
    assert fill(template, captures) == filled


def test_a_path_the_pattern_does_not_match_has_no_captures() -> None:
    assert compile_glob("packages/*/docs/**").captures("docs/a.md") is None


@pytest.mark.parametrize(
    ("template", "pattern", "problem"),
    [
        ("docs/*.md", "docs/**", "whole segments"),
        ("docs/[ab]/x.md", "docs/**", "whole segments"),
        ("*/x.md", "docs/**", "more * or **"),
        ("**/**", "docs/**", "more * or **"),
        ("docs//x.md", "x.md", "empty path segment"),
    ],
)
def test_a_template_that_cannot_be_filled_says_why(template: str, pattern: str, problem: str) -> None:
    assert problem in (template_problem(template, pattern) or "")
