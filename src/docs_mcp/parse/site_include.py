"""Includes in a site generator's pages: which lines include a file, and which of its lines they take.

``--8<-- "file"`` (pymdownx snippets, also inside code blocks), ``{* file *}`` and ``{! file !}``
(mdx_include / FastAPI's docs), with ``file:3:10`` sections and ``ln[3:10,12]`` ranges. MyST's
``{include}`` / ``{literalinclude}`` directives and MDX partials are recognised by the walk in
``site_syntax.py``, which expands every include. A generator brings its own include syntaxes as
``IncludeRule`` functions (mdBook's ``{{#include}}``, VitePress' ``<<<``), each giving an ``Include``;
``anchor`` takes the lines between a file's ``ANCHOR: name`` / ``ANCHOR_END: name`` (mdBook) or
``#region name`` / ``#endregion`` (VitePress) markers, every marker line left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = [
    "MAX_INCLUDED_BYTES",
    "MAX_INCLUDE_DEPTH",
    "Include",
    "IncludeReader",
    "IncludeRule",
    "code_language",
    "included_lines",
    "parse_include",
]

# (text, None) when read; (None, why) when not: missing, outside the repository folder, ...
IncludeReader = Callable[[str, str], tuple[str | None, str | None]]
# Includes inside included files, this deep at most (a file that includes itself is refused at once).
MAX_INCLUDE_DEPTH = 4
# What all the includes of one page may add together: bounded in total, not only in depth.
MAX_INCLUDED_BYTES = 2 * 1024 * 1024
_LINE_DIGITS = 12  # a line number longer than this is past the end of any file

_SNIPPET = re.compile(r"""^(\s*)-{1,2}8<-{1,2}\s+(?:"([^"]+)"|'([^']+)'|(\S+))\s*$""")
_SOURCE_INCLUDE = re.compile(r"^(\s*)\{([*!])\s*(\S+)([^*!]*)[*!]\}$")
_LINE_RANGE = re.compile(r"ln\[([0-9:,\s]+)\]")  # ASCII digits: int() refuses "²", which isdigit() takes
_ANCHOR_MARKER = re.compile(r"\bANCHOR(?:_END)?:\s*[\w-]+|#(?:end)?region\b")
_LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".sh": "bash", ".md": "markdown"}


@dataclass(frozen=True)
class Include:
    """One include: the file and how its text goes in."""

    target: str  # the file as written, with any ``:start:end`` section
    indent: str = ""  # the include line's indentation, given to every included line
    code: bool = False  # shown as a code block (``{* file *}``, ``{literalinclude}``)
    verbatim: bool = False  # inside a code block: the raw lines
    line_ranges: str | None = None  # ``ln[...]``'s ranges
    anchor: str | None = None  # a named region of the file (``ANCHOR: name``, ``#region name``)
    language: str | None = None  # the code fence's language when ``code`` (else from the suffix)
    strip_markers: bool = False  # leave out every region marker line (mdBook does, anchor or not)

    @property
    def path(self) -> str:
        """The file without its ``:start:end`` section (a URL stays whole)."""
        if self.target.startswith(("http:", "https:")):
            return self.target
        return self.target.partition(":")[0]


# A generator's include syntax: the include a line (inside a code block if the flag) is, or None.
IncludeRule = Callable[[str, bool], "Include | None"]


def parse_include(content: str, in_code: bool) -> Include | None:
    """The include ``content`` (one line, inside a code block if ``in_code``) is, or None."""
    snippet = _SNIPPET.match(content)
    if snippet is not None:
        target = next(group for group in snippet.groups()[1:] if group)
        return Include(target, indent=snippet.group(1), verbatim=in_code)
    source = _SOURCE_INCLUDE.match(content) if not in_code else None
    if source is None:
        return None
    ranges = _LINE_RANGE.search(source.group(4))
    return Include(
        source.group(3),
        indent=source.group(1),
        code=source.group(2) == "*",
        line_ranges=ranges.group(1) if ranges is not None else None,
    )


def included_lines(text: str, include: Include) -> list[str]:
    """The lines of ``text`` (the included file) that ``include`` takes."""
    lines = text.split("\n")
    section = "" if include.target == include.path else include.target.partition(":")[2]
    if include.anchor is not None:
        lines = _anchored(lines, include.anchor)
    elif include.line_ranges is not None:
        lines = _pick_ranges(lines, include.line_ranges)
    elif section and _is_number(section.replace(":", "")):
        first, _, last = section.partition(":")
        lines = lines[_line(first or "1") - 1 : _line(last) if last else None]
    if text.endswith("\n") and lines and not lines[-1]:
        lines = lines[:-1]
    if include.anchor is not None or include.strip_markers:
        lines = [line for line in lines if not _ANCHOR_MARKER.search(line)]
    return lines


def _anchored(lines: list[str], name: str) -> list[str]:
    """The lines between the ``name`` region's start and end markers (all of them when not found)."""
    start = re.compile(rf"(?:\bANCHOR:\s*|#region\s+){re.escape(name)}\b")
    end = re.compile(rf"\bANCHOR_END:\s*{re.escape(name)}\b|#endregion\b")
    for index, line in enumerate(lines):
        if start.search(line):
            for stop in range(index + 1, len(lines)):
                if end.search(lines[stop]):
                    return lines[index + 1 : stop]
            return lines[index + 1 :]
    return lines


def code_language(path: str, include: Include | None = None) -> str:
    """The code fence's language for an included source file: the include's, else from its suffix."""
    if include is not None and include.language:
        return include.language
    suffix = PurePosixPath(path).suffix
    return _LANGUAGES.get(suffix, suffix.lstrip("."))


def _pick_ranges(lines: list[str], spec: str) -> list[str]:
    picked: list[str] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition(":")
        if _is_number(first):
            picked.extend(lines[_line(first) - 1 : _line(last) if _is_number(last) else _line(first)])
    return picked


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _line(digits: str) -> int:
    """A line number as written (ASCII digits): one past any file's lines when it has more digits than
    int() converts (4,300), so the range is simply empty."""
    return int(digits) if len(digits) <= _LINE_DIGITS else 10**_LINE_DIGITS
