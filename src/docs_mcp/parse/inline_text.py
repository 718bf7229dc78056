"""Plain text and HTML comments of raw inline markdown, without markdown-it's inline parser.

The chunker parses block structure only (inline parsing was a third of chunking time) and needs the
inline source of paragraphs, list items and table cells only as full-text-search material: the
words a reader sees. :func:`inline_plain_text` approximates markdown-it's inline output with one
regular expression pass: links and images keep their text (link URLs are dropped, autolinks keep
the address a reader sees), code spans keep their content, emphasis and strikethrough markers, HTML
tags and comments go, backslash escapes and entities are decoded. Heading texts, which make chunk
ids, are not made here: they still go through markdown-it's inline parser (see ``markdown.py``).

Measured against markdown-it-py's inline parser in the same run
(``benchmarks/test_replacements.py::test_inline_text_against_markdown_its_inline_parser``; the
speed-up is gated in ``benchmarks/thresholds.toml``). Its output equals markdown-it's on the real
corpora (``tests/parse/test_inline_text.py``).
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Container, Iterable
from functools import cache, partial

from markdown_it import MarkdownIt
from markdown_it.common.html_re import cdata, close_tag, declaration, open_tag, processing
from markdown_it.common.utils import normalizeReference
from markdown_it.token import Token

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

# The lazy ``.*?`` of code spans, comments, processing instructions, declarations, CDATA, emphasis and
# strikethrough scans to the end of the text for an opener that is never closed: once per such
# opener, so time quadratic in a long paragraph of them ("_a_b " repeated 16,000 times took 26 s).
# Where the scans would cost more than ``_SCAN_BUDGET`` times the text, markdown-it's own inline
# parser, which is linear, reads the text instead. Below ``_SCAN_CHECK_FROM`` characters the worst
# case is too small to be worth estimating.
_SCAN_CHECK_FROM = 512
_SCAN_BUDGET = 8
_OPENERS_CLOSERS = [
    (re.compile(r"(?<!`)(`+)(?!`)"), re.compile(r"(?<!`)(`+)(?!`)")),
    (re.compile(r"(?<!\*)(\*{1,3})(?=[^\s*])"), re.compile(r"(?<=[^\s*\\])(\*{1,3})(?!\*)")),
    (re.compile(r"(?<!\w)(_{1,3})(?=[^\s_])"), re.compile(r"(?<=[^\s_\\])(_{1,3})(?!\w)")),
    (re.compile(r"(?<!~)(~~)(?=[^\s~])"), re.compile(r"(?<=[^\s~\\])(~~)(?!~)")),
    (re.compile(r"(<!--)(?!-?>)"), re.compile(r"(-->)")),
    (re.compile(r"(<\?)"), re.compile(r"(\?>)")),
    (re.compile(r"(<!\[CDATA\[|<![A-Za-z])"), re.compile(r"(\]\]>|>)")),
]


def inline_plain_text(source: str, references: Container[str] = ()) -> str:
    """The words of inline markdown ``source`` (as markdown-it's block parser hands it over: the
    first line already trimmed), one output line per source line, trailing spaces of lines left to
    the caller. ``references``: normalised labels of link reference definitions. Raises nothing."""
    if "\n" in source:
        # markdown-it drops the indentation of continuation lines, before any tag is removed.
        source = "\n".join(line.lstrip(" \t") for line in source.split("\n"))
    if _SYNTAX_CHARS.isdisjoint(source):
        return source
    if _scans_too_long(source):
        return parsed_plain_text(source, references)
    return _INLINE.sub(partial(_replace, references), source)


def _scans_too_long(source: str) -> bool:
    """Whether the lazy scans of ``_INLINE`` would cost more than ``_SCAN_BUDGET`` times the text: the
    sum, over every opener, of the distance to its closer (the end of the text when there is none).
    Linear time."""
    size = len(source)
    if size < _SCAN_CHECK_FROM:
        return False
    cost = 0
    for openers, closers in _OPENERS_CLOSERS:
        ends: dict[str, list[int]] = {}
        for match in closers.finditer(source):
            ends.setdefault(_closer_key(match.group(1)), []).append(match.start())
        for match in openers.finditer(source):
            found = ends.get(_closer_key(match.group(1)), [])
            index = bisect.bisect_right(found, match.end())
            cost += (found[index] if index < len(found) else size) - match.start()
        if cost > _SCAN_BUDGET * size:
            return True
    return False


def _closer_key(delimiter: str) -> str:
    """Openers and closers pair by their delimiter run (code spans, emphasis); the HTML kinds pair
    with any of their closers."""
    return delimiter if delimiter[0] in "`*_~" else "<"


@cache
def _inline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["strikethrough"])


def _parsed_inline(source: str, references: Container[str]) -> list[Token]:
    labels = references if isinstance(references, Iterable) else ()
    env = {"references": {label: {"href": "", "title": ""} for label in labels}}
    tokens = _inline_parser().parseInline(source, env)
    return list(tokens[0].children or []) if tokens else []


def parsed_plain_text(source: str, references: Container[str] = ()) -> str:
    """The words of inline ``source`` through markdown-it's inline parser (linear time, slower than
    the regex pass on ordinary text)."""
    return "".join(_token_text(token) for token in _parsed_inline(source, references))


def _token_text(token: Token) -> str:
    if token.type in ("text", "text_special", "code_inline"):
        return token.content
    if token.type in ("softbreak", "hardbreak"):
        return "\n"
    if token.type == "image":
        return "".join(_token_text(child) for child in token.children or [])
    return ""


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
    if _scans_too_long(source):
        return _parsed_comments(source)
    found: list[tuple[int, str]] = []
    line, counted = 0, 0
    for match in _COMMENT_SCAN.finditer(source):
        body = match.group("body")
        if body is not None:  # ``<!-->`` and ``<!--->`` are comments without a body
            line += source.count("\n", counted, match.start())  # from the last one: linear
            counted = match.start()
            found.append((line, body))
    return found


def _parsed_comments(source: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    line = 0
    for token in _parsed_inline(source, ()):
        if token.type in ("softbreak", "hardbreak"):
            line += 1
        elif token.type == "html_inline" and token.content.startswith("<!--"):
            body = token.content[4:-3] if len(token.content) >= 7 and token.content.endswith("-->") else None
            if body is not None and token.content not in ("<!-->", "<!--->"):
                found.append((line, body))
    return found
