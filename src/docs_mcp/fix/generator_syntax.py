"""Generator syntax in a page: the marks of a site generator's markdown dialect (admonitions,
containers, shortcodes, includes, MDX imports and components, directives), found outside code."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["syntax_sign"]

# Generator syntax outside code: the first match in a page is its sign. Block-level markers are
# matched at a line start; include markers (mdBook, pymdownx snippets) anywhere, code fences included.
_BLOCK_SYNTAX = re.compile(
    r"^[ ]{0,3}(?:"
    r"(?:!!!|\?\?\?\+?)[ \t]+\w"  # mkdocs admonitions
    r"|:{3,}[ \t]*[\w{]"  # Docusaurus / VitePress containers, mkdocstrings `::: pkg.mod`
    r"|\{\{[<%]"  # Hugo shortcodes
    r"|\{%-?[ \t]*\w"  # GitBook / Jinja tags
    r"|<<<[ \t]+\S"  # VitePress code imports
    r"|<!--[ \t]*@include:"  # VitePress markdown includes
    r"|<[A-Z][\w.]*[\s/>]"  # JSX components
    r"|\.\.[ \t]+[\w:-]+::"  # reStructuredText directives
    r"|(?:`{3,}|~{3,})[ \t]*\{[\w-]+\}"  # MyST directives
    r")",
    re.MULTILINE,
)
# MDX imports and exports, looked for above the page's first heading (where MDX pages keep them; an
# unfenced code listing further down is not one).
_MDX_HEADER = re.compile(
    r"^(?:import[ \t]+[\w{*][^\n]*[ \t]from[ \t]+['\"]|export[ \t]+(?:const|default|function)\b)",
    re.MULTILINE,
)
_FIRST_HEADING = re.compile(r"^#{1,6}[ \t]", re.MULTILINE)
_INCLUDE_SYNTAX = re.compile(r"\{\{#(?:include|rustdoc_include|playground)\b|--8<--|\{\*\s*\S+\s*\*\}")


def syntax_sign(text: str, code: Iterable[tuple[int, int]]) -> str:
    """The first generator syntax in a page's ``text`` (LF line ends; 1-based ``code`` line ranges
    are code, where only include markers count), as ``line N: text``; "" when none."""
    ranges = list(code)
    heading = _FIRST_HEADING.search(text)
    found = [
        start
        for start in (
            _first_outside(_BLOCK_SYNTAX, text, ranges, len(text)),
            _first_outside(_MDX_HEADER, text, ranges, heading.start() if heading else len(text)),
            _first_outside(_INCLUDE_SYNTAX, text, [], len(text)),
        )
        if start is not None
    ]
    if not found:
        return ""
    start = min(found)
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : line_end if line_end >= 0 else None].strip()
    return f"line {text.count(chr(10), 0, start) + 1}: {line[:60]}"


def _first_outside(
    pattern: re.Pattern[str], text: str, ranges: list[tuple[int, int]], stop: int
) -> int | None:
    """Where ``pattern`` first matches ``text[:stop]`` on a line outside the ``ranges``."""
    for match in pattern.finditer(text, 0, stop):
        line = text.count("\n", 0, match.start()) + 1
        if not any(first <= line <= last for first, last in ranges):
            return match.start()
    return None
