"""Manifest override globs, matched in time linear in the path whatever the pattern.

A glob translated into one backtracking regex takes time exponential in its stars: thirty ``*``
then ``x`` took 115 s against one 24-character path. So a glob is matched one path segment at a
time instead:

- ``{a,b}`` braces are expanded first (at most ``MAX_GLOB_ALTERNATIVES`` patterns);
- each pattern is split at ``/``; a segment that is exactly ``**`` matches zero or more folders
  (``**/x.md``, ``docs/**``); any other segment matches exactly one path segment, with ``*`` (any
  run, ``**`` included), ``?`` (one character) and ``[abc]``/``[!abc]`` classes, through
  ``fnmatch.translate``, whose stars are atomic (``(?>.*?x)``) and so never backtrack;
- the ``**`` segments split a pattern into groups of fixed length; the first and last groups are
  anchored at the ends of the path, and each group in between is matched at its leftmost place,
  which is always right (a later ``**`` absorbs whatever an earlier place leaves over).

A leading ``./`` or ``/`` is ignored: patterns are relative to the manifest's folder.

A match also yields what the pattern's whole-segment wildcards matched (:meth:`Glob.captures`): the
folders each ``**`` segment took and the segment each ``*`` segment took, in order, which
:func:`fill` puts into another path (a ``copy_of`` rule names a copy's original so).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from docs_mcp.limits import MAX_GLOB_ALTERNATIVES, MAX_GLOB_LENGTH

__all__ = ["Captures", "Glob", "GlobError", "compile_glob", "fill", "glob_matches", "template_problem"]

_GLOBSTAR = "**"
_MAGIC = re.compile(r"[*?\[]")
_TEMPLATE_MAGIC = re.compile(r"[*?\[\]{}]")
Segment = str | re.Pattern[str]  # a literal segment, or the regex of one with wildcards
_STAR = "*"
_STAR_REGEX = fnmatch.translate(_STAR)  # what a whole-segment ``*`` compiles to


@dataclass(frozen=True)
class Captures:
    """What a match's whole-segment wildcards took: each ``*`` segment's segment and each ``**``
    segment's folders ("/"-joined, "" for none), in pattern order."""

    stars: tuple[str, ...]
    globstars: tuple[str, ...]


class GlobError(ValueError):
    """A pattern that cannot be used: too long, too many alternatives, or a reversed ``[z-a]`` range."""


@dataclass(frozen=True)
class _Alternative:
    """One brace alternative: segment groups split at its ``**`` segments (one group when none)."""

    groups: tuple[tuple[Segment, ...], ...]

    def matches(self, parts: list[str]) -> bool:
        groups = self.groups
        if len(groups) == 1:  # no globstar: segment for segment
            return len(parts) == len(groups[0]) and _group_matches(groups[0], parts, 0)
        first, last = groups[0], groups[-1]
        end = len(parts) - len(last)
        if len(first) > end or not _group_matches(first, parts, 0) or not _group_matches(last, parts, end):
            return False
        return self._places(parts) is not None

    def _places(self, parts: list[str]) -> list[int] | None:
        """Where each group starts in ``parts`` (first and last anchored, the others leftmost), or
        None when they do not fit; the caller has checked the first and last groups."""
        groups = self.groups
        end = len(parts) - len(groups[-1])
        places = [0]
        position = len(groups[0])
        for group in groups[1:-1]:  # each at its leftmost place between the ends
            while position + len(group) <= end and not _group_matches(group, parts, position):
                position += 1
            if position + len(group) > end:
                return None
            places.append(position)
            position += len(group)
        return [*places, end]

    def captures(self, parts: list[str]) -> Captures | None:
        """What the whole-segment wildcards took when ``parts`` matches, else None."""
        if not self.matches(parts):
            return None
        places = self._places(parts) if len(self.groups) > 1 else [0]
        assert places is not None  # matches() placed them
        stars = tuple(
            parts[start + k]
            for group, start in zip(self.groups, places, strict=True)
            for k, segment in enumerate(group)
            if isinstance(segment, re.Pattern) and segment.pattern == _STAR_REGEX
        )
        globstars = tuple(
            "/".join(parts[start + len(group) : following])
            for group, start, following in zip(self.groups, places, places[1:], strict=False)
        )
        return Captures(stars, globstars)


@dataclass(frozen=True)
class Glob:
    """A compiled glob: one entry per brace alternative."""

    pattern: str
    alternatives: tuple[_Alternative, ...]

    def matches(self, path: str) -> bool:
        """True when the posix ``path`` (relative to the manifest's folder) matches the glob."""
        parts = path.split("/")
        return any(alternative.matches(parts) for alternative in self.alternatives)

    def captures(self, path: str) -> Captures | None:
        """What the whole-segment wildcards took in the first alternative ``path`` matches; None
        when it matches none."""
        parts = path.split("/")
        return next((found for alt in self.alternatives if (found := alt.captures(parts)) is not None), None)


def template_problem(template: str, pattern: str) -> str | None:
    """Why ``template`` cannot name a path for every match of ``pattern`` (None: it can): its
    segments must be literal, ``*`` or ``**``, and no more of each than every alternative of the
    pattern has. Raises ``GlobError`` for a pattern that cannot be compiled."""
    segments = template.removeprefix("./").lstrip("/").split("/")
    if any(part not in (_GLOBSTAR, _STAR) and _TEMPLATE_MAGIC.search(part) for part in segments):
        return "use plain folder and file names, and * or ** only as whole segments"
    if any(not part for part in segments):
        return "an empty path segment"
    glob = compile_glob(pattern)
    for alternative in glob.alternatives:
        stars = sum(
            isinstance(s, re.Pattern) and s.pattern == _STAR_REGEX for g in alternative.groups for s in g
        )
        if segments.count(_STAR) > stars or segments.count(_GLOBSTAR) > len(alternative.groups) - 1:
            return (
                f"it has more * or ** segments than the pattern {pattern!r} has whole-segment ones "
                "to fill them with"
            )
    return None


def fill(template: str, captures: Captures) -> str:
    """``template`` with its ``*`` and ``**`` segments replaced, in order, by what the pattern's took
    (``template_problem`` says it has no more of them); a ``**`` that took nothing leaves no segment."""
    stars, globstars = iter(captures.stars), iter(captures.globstars)
    parts = []
    for part in template.removeprefix("./").lstrip("/").split("/"):
        if part == _GLOBSTAR:
            parts.append(next(globstars, ""))
        elif part == _STAR:
            parts.append(next(stars, ""))
        else:
            parts.append(part)
    return "/".join(part for part in parts if part)


def glob_matches(pattern: str, path: str) -> bool:
    """True when ``path`` matches ``pattern``; a pattern that cannot be compiled matches nothing."""
    try:
        return compile_glob(pattern).matches(path)
    except GlobError:
        return False


@cache
def compile_glob(pattern: str) -> Glob:
    """Compile a manifest glob.

    Raises:
        GlobError: longer than ``MAX_GLOB_LENGTH``, more than ``MAX_GLOB_ALTERNATIVES`` patterns once
            its braces are expanded, or a class with a reversed range such as ``[z-a]``.
    """
    if len(pattern) > MAX_GLOB_LENGTH:
        raise GlobError(f"pattern has {len(pattern)} characters; at most {MAX_GLOB_LENGTH} (MAX_GLOB_LENGTH)")
    _check_ranges(pattern)
    relative = pattern.removeprefix("./").lstrip("/")
    alternatives = dict.fromkeys(_compile_segments(p) for p in _expand_braces(relative))
    return Glob(pattern, tuple(_Alternative(_groups(segments)) for segments in alternatives))


def _groups(segments: tuple[Segment, ...]) -> tuple[tuple[Segment, ...], ...]:
    groups: list[list[Segment]] = [[]]
    for segment in segments:
        if segment == _GLOBSTAR:
            groups.append([])
        else:
            groups[-1].append(segment)
    return tuple(tuple(group) for group in groups)


def _compile_segments(pattern: str) -> tuple[Segment, ...]:
    segments: list[Segment] = []
    for part in pattern.split("/"):
        if part == _GLOBSTAR:
            if segments and segments[-1] == _GLOBSTAR:
                continue  # **/** is **
            segments.append(_GLOBSTAR)
        elif _MAGIC.search(part):
            # fnmatch negates with [!...]; manifests may also write the regex spelling [^...].
            segments.append(re.compile(fnmatch.translate(part.replace("[^", "[!"))))
        else:
            segments.append(part)
    return tuple(segments)


def _segment_matches(segment: Segment, part: str) -> bool:
    if isinstance(segment, str):
        return segment == part
    return segment.match(part) is not None


def _group_matches(group: Sequence[Segment], parts: Sequence[str], start: int) -> bool:
    return all(_segment_matches(segment, parts[start + k]) for k, segment in enumerate(group))


def _expand_braces(pattern: str) -> list[str]:
    """Every pattern ``{a,b}`` braces stand for (nested braces too); a ``{`` never closed is literal.

    Raises:
        GlobError: more than ``MAX_GLOB_ALTERNATIVES`` patterns.
    """
    start = pattern.find("{")
    while start >= 0:
        end = _closing_brace(pattern, start)
        if end > 0:
            break
        start = pattern.find("{", start + 1)
    if start < 0:
        return [pattern]
    options = [o for option in _split_options(pattern[start + 1 : end]) for o in _expand_braces(option)]
    rests = _expand_braces(pattern[end + 1 :])
    if len(options) * len(rests) > MAX_GLOB_ALTERNATIVES:
        raise GlobError(
            f"braces expand to more than {MAX_GLOB_ALTERNATIVES} patterns (MAX_GLOB_ALTERNATIVES); "
            "use fewer {a,b} groups"
        )
    prefix = pattern[:start]
    return [prefix + option + rest for option in options for rest in rests]


def _closing_brace(pattern: str, start: int) -> int:
    depth = 0
    for index in range(start, len(pattern)):
        if pattern[index] == "{":
            depth += 1
        elif pattern[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _split_options(body: str) -> list[str]:
    """``a,{b,c},d`` -> ``["a", "{b,c}", "d"]``: split at the commas outside nested braces."""
    options: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        if char == "," and depth == 0:
            options.append("".join(current))
            current = []
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current.append(char)
    options.append("".join(current))
    return options


_CLASS = re.compile(r"\[[!^]?\]?[^\]]*\]")


def _check_ranges(pattern: str) -> None:
    """Raise ``GlobError`` for a class range written backwards (``[z-a]``), which matches nothing."""
    for match in _CLASS.finditer(pattern):
        body = match.group()[1:-1].lstrip("!^")
        for index in range(len(body) - 2):
            low, dash, high = body[index], body[index + 1], body[index + 2]
            if dash == "-" and low > high:
                raise GlobError(f"range {low}-{high} in {match.group()} is backwards; write {high}-{low}")
