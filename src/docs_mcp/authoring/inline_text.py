"""Plain text and HTML comments of raw inline markdown, without markdown-it's inline parser.

The chunker parses block structure only (inline parsing was a third of chunking time) and needs the
inline source of paragraphs, list items and table cells only as full-text-search material: the
words a reader sees. :func:`inline_plain_text` approximates markdown-it's inline output with one
regular expression pass: links and images keep their text (link URLs are dropped, autolinks keep
the address a reader sees), code spans keep their content, emphasis and strikethrough markers, HTML
tags and comments go, backslash escapes and entities are decoded. Heading texts, which make chunk
ids, are not made here: they still go through markdown-it's inline parser (see ``markdown.py``).

Measured against markdown-it-py 4.3.0's inline parser in the same run
(``benchmarks/test_replacements.py::test_inline_text_against_markdown_its_inline_parser``, the 5,041
inline sources of a quarter of the SDK corpora): 533 ms through markdown-it, 91 ms here (5.8x). Its
output equals markdown-it's on the real corpora (``tests/authoring/test_inline_text.py``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Container
from functools import partial

from markdown_it.common.html_re import cdata, close_tag, declaration, open_tag, processing
from markdown_it.common.utils import normalizeReference

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"markdown-it-py": "4.3"}

_BRACKETED = r"\[(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*\]"
_LABEL = rf"(?:[^\[\]\\]|\\.|{_BRACKETED})*"  # link text: two levels of nested brackets
_DESTINATION = r"\((?:[^()\\]|\\.|\([^()]*\))*\)"  # (url "title"): one level of nested parens
_INLINE = re.compile(
    r"(?P<escape>\\[!-/:-@\[-`{-~])"
    r"|(?P<hardbreak>\\(?=\n))"
    r"|(?<!`)(?P<ticks>`+)(?!`)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)"
    r"|(?P<comment><!---?>|<!--.*?-->)"
    rf"|!\[(?P<alt>{_LABEL})\]{_DESTINATION}"
    rf"|\[(?P<label>{_LABEL})\]{_DESTINATION}"
    rf"|\[(?P<reflabel>{_LABEL})\]\[(?P<ref>[^\[\]]*)\](?!\()"
    r"|<(?P<autolink>[A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\s]*|[\w.!#$%&'*+/=?^`{|}~-]+@[\w-]+(?:\.[\w-]+)*)>"
    # markdown-it's own inline HTML patterns: what it does not take for a tag stays text.
    rf"|(?P<tag>{open_tag}|{close_tag}|{processing}|{declaration}|{cdata})"
    r"|(?P<entity>&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    # Emphasis and strikethrough only where markers pair up; a lone * or _ stays, as in markdown-it.
    r"|(?<!\*)(?P<stars>\*{1,3})(?=[^\s*])(?P<starred>.*?[^\s*\\])(?P=stars)(?!\*)"
    r"|(?<!\w)(?P<unders>_{1,3})(?=[^\s_])(?P<underlined>.*?[^\s_\\])(?P=unders)(?!\w)"
    r"|(?<!~)~~(?=[^\s~])(?P<struck>.*?[^\s~\\])~~(?!~)",
    re.DOTALL,
)
# What hides a comment from markdown-it's inline parser: an escape or a code span around it.
_COMMENT_SCAN = re.compile(
    r"\\[!-/:-@\[-`{-~]|(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)|(?P<comment><!---?>|<!--(?P<body>.*?)-->)",
    re.DOTALL,
)
_SYNTAX_CHARS = frozenset("\\`<[!&*_~")


def inline_plain_text(source: str, references: Container[str] = ()) -> str:
    """The words of inline markdown ``source`` (as markdown-it's block parser hands it over: the
    first line already trimmed), one output line per source line, trailing spaces of lines left to
    the caller. ``references``: normalised labels of link reference definitions. Raises nothing."""
    if "\n" in source:
        # markdown-it drops the indentation of continuation lines, before any tag is removed.
        source = "\n".join(line.lstrip(" \t") for line in source.split("\n"))
    if _SYNTAX_CHARS.isdisjoint(source):
        return source
    return _INLINE.sub(partial(_replace, references), source)


def _replace(references: Container[str], match: re.Match[str]) -> str:
    kind = match.lastgroup
    if kind == "escape":
        return match.group()[1]
    if kind == "code":
        return _code_span(match.group("code"))
    if kind in ("alt", "label", "starred", "underlined", "struck"):
        return inline_plain_text(match.group(kind), references)
    if kind == "ref":
        label, ref = match.group("reflabel"), match.group("ref")
        if normalizeReference(ref or label) in references:
            return inline_plain_text(label, references)
        # Not a defined reference: markdown-it shows the brackets as they are.
        return f"[{inline_plain_text(label, references)}][{ref}]"
    if kind == "autolink":
        return match.group(kind)
    if kind == "entity":
        return html.unescape(match.group())
    return ""  # hardbreak, comment, tag


def _code_span(content: str) -> str:
    # CommonMark: line endings become spaces; one space is stripped from each side if both exist.
    content = content.replace("\n", " ")
    if len(content) > 2 and content[0] == " " and content[-1] == " " and content.strip(" "):
        return content[1:-1]
    return content


def inline_comments(source: str) -> list[tuple[int, str]]:
    """``(line offset, body)`` of every HTML comment in inline ``source`` outside code spans."""
    if "<!--" not in source:
        return []
    found: list[tuple[int, str]] = []
    for match in _COMMENT_SCAN.finditer(source):
        body = match.group("body")
        if body is not None:  # ``<!-->`` and ``<!--->`` are comments without a body
            found.append((source.count("\n", 0, match.start()), body))
    return found
