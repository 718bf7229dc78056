"""Markdown source -> a flat list of top-level blocks with 1-based source line ranges.

One markdown-it-py parse (CommonMark + GFM tables + strikethrough + YAML front matter). The chunker
never looks at tokens: it sees blocks (a heading, a paragraph, a list, a fenced code block, ...),
each with its line range, its plain text for full-text search and the HTML comments it holds (where
hints live). Line numbers are those of the source file: normalising a BOM and CRLF/CR endings does
not change the line count.

For speed the parse is block-level only (markdown-it's ``inline`` core rule is off and GFM tables
use the faster rule of ``md_table.py``): the plain text of paragraphs, list items and table cells
comes from their raw inline source (``inline_text.py``). Only heading texts, which become chunk ids,
breadcrumbs and titles, go through markdown-it's inline parser, so ids are exactly CommonMark's.
"""

from __future__ import annotations

import re
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import cast

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from docs_mcp.parse.inline_text import inline_comments, inline_plain_text
from docs_mcp.parse.md_table import ROWS_META_KEY, TableRow, table_rule

__all__ = [
    "Block",
    "Comment",
    "Document",
    "FrontMatter",
    "block_tokens",
    "fragment_text",
    "normalise",
    "parse",
    "plain_text",
    "table_row_texts",
]

# Applied only up to the last closer (``_up_to_last``): an opener never closed would otherwise make
# each of these scan to the end of the text once per opener, quadratic in an HTML block that runs to
# the end of the file (``<!--`` repeated 20,000 times took 49 s).
_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_HINT_IN_CODE = re.compile(r"<!--\s*mcp_")


@dataclass(frozen=True)
class Comment:
    """An HTML comment outside code. ``standalone``: the comment is a whole top-level HTML block,
    the only place a section hint or metadata comment can apply to the heading after it."""

    line: int
    body: str
    standalone: bool


@dataclass(frozen=True)
class Block:
    """One top-level block. ``kind`` is markdown-it's token type without ``_open`` (``heading``,
    ``paragraph``, ``fence``, ``code_block``, ``table``, ``html_block``, ``bullet_list``, ...)."""

    kind: str
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    text: str  # plain text, no markdown syntax
    level: int = 0  # heading level 1-6; 0 for other blocks
    comments: tuple[Comment, ...] = ()
    rows: tuple[str, ...] = ()  # a table's row texts, header first (the text of a split table's parts)

    @property
    def is_heading(self) -> bool:
        return self.kind == "heading"

    @property
    def is_comment_only(self) -> bool:
        """An HTML block made of comments alone: it carries no content of its own."""
        return self.kind == "html_block" and not self.text and bool(self.comments)


@dataclass(frozen=True)
class FrontMatter:
    text: str  # the YAML between the fences
    start_line: int  # line of the opening ``---``
    end_line: int  # line of the closing fence


@dataclass(frozen=True)
class Document:
    lines: Sequence[str]  # normalised source lines; ``lines[n - 1]`` is line n
    blocks: list[Block]
    front_matter: FrontMatter | None
    body_start: int  # first line after the front matter (1 without front matter)
    hints_in_code: list[int] = field(default_factory=list)  # lines of ``<!-- mcp_`` inside code
    references: frozenset[str] = frozenset()  # normalised labels of link reference definitions


def normalise(source: str) -> str:
    """Drop a leading BOM and turn CRLF and lone CR into LF (the line count is unchanged)."""
    if source.startswith("\ufeff"):
        source = source[1:]
    return source.replace("\r\n", "\n").replace("\r", "\n")


@lru_cache(maxsize=2)
def _parser(front_matter: bool = True) -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    if front_matter:
        md.use(front_matter_plugin)
    md.block.ruler.at("table", table_rule, {"alt": ["paragraph", "reference"]})
    # Block structure only: inline children are made on demand for headings (see _heading_text).
    md.core.ruler.disable(["inline", "text_join"])
    return md


def block_tokens(source: str) -> list[Token]:
    """The block tokens of ``source``, one block of a parsed document taken on its own (no front
    matter rule: a block is never front matter). Line maps count from its first line. Raises nothing."""
    return _parser(front_matter=False).parse(source)


def parse(source: str) -> Document:
    """Parse markdown ``source`` (BOM and line endings are normalised here). Raises nothing."""
    text = normalise(source)
    env: dict[str, object] = {}
    tokens = _parser().parse(text, env)
    lines = text.split("\n")
    front_matter: FrontMatter | None = None
    blocks: list[Block] = []
    hints_in_code: list[int] = []
    for start, end in _top_level_spans(tokens):
        opening = tokens[start]
        assert opening.map is not None
        if opening.type == "front_matter":
            first, last = opening.map[0] + 1, opening.map[1]
            front_matter = FrontMatter(opening.content, first, last)
            continue
        block_tokens = tokens[start:end]
        hints_in_code.extend(_hint_lines_in_code(block_tokens))
        blocks.append(_make_block(block_tokens, env))
    body_start = front_matter.end_line + 1 if front_matter else 1
    references = frozenset(cast("dict[str, object]", env.get("references", {})))
    return Document(lines, blocks, front_matter, body_start, hints_in_code, references)


def fragment_text(source: str, references: Container[str] = ()) -> str:
    """The plain text of a markdown fragment (a part of a split block with its context): its
    blocks' texts joined by blank lines, as chunk texts are. Raises nothing."""
    tokens = block_tokens(normalise(source))
    texts = (plain_text(tokens[start:end], references) for start, end in _top_level_spans(tokens))
    return "\n\n".join(text for text in texts if text)


def _top_level_spans(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """Index ranges ``[start, end)`` of the tokens of each top-level block."""
    spans: list[tuple[int, int]] = []
    start = 0
    depth = 0
    for index, token in enumerate(tokens):
        if depth == 0:
            start = index
        depth += token.nesting
        if depth == 0:
            spans.append((start, index + 1))
    return spans


def _make_block(tokens: Sequence[Token], env: dict[str, object]) -> Block:
    opening = tokens[0]
    assert opening.map is not None
    kind = opening.type.removesuffix("_open")
    start_line, end_line = opening.map[0] + 1, max(opening.map[1], opening.map[0] + 1)
    comments = tuple(_comments(tokens))
    if kind == "heading":
        return Block(kind, start_line, end_line, _heading_text(tokens[1], env), int(opening.tag[1]), comments)
    references = cast("dict[str, object]", env.get("references", {}))
    if kind == "table":
        rows = table_row_texts(opening, references)
        return Block(
            kind, start_line, end_line, _clean("".join(row + "\n" for row in rows)), 0, comments, rows
        )
    return Block(kind, start_line, end_line, plain_text(tokens, references), 0, comments)


def table_row_texts(table_open: Token, references: Container[str] = ()) -> tuple[str, ...]:
    """The plain text of each row of a table (cells tab-separated), header first."""
    rows: list[TableRow] = table_open.meta[ROWS_META_KEY]
    return tuple("\t".join(inline_plain_text(cell, references) for cell in row.cells) for row in rows)


def _heading_text(inline: Token, env: dict[str, object]) -> str:
    """A heading's text exactly as markdown-it's inline parser gives it (ids are made of it)."""
    children: list[Token] = []
    md = _parser()
    md.inline.parse(inline.content, md, env, children)
    return "\n".join(line.rstrip() for line in _inline_text(children).strip().split("\n"))


def plain_text(tokens: Sequence[Token], references: Container[str] = ()) -> str:
    """The words of a block without markdown syntax: inline text, code contents, table cells
    (tab-separated, one row a line), HTML with its tags and comments removed. ``references``: the
    normalised labels of the document's link reference definitions."""
    parts: list[str] = []
    for token in tokens:
        if token.type == "inline":
            parts.append(inline_plain_text(token.content, references))
            parts.append("\n")
        elif token.type == "table_open":
            parts.extend(row + "\n" for row in table_row_texts(token, references))
        elif token.type in ("fence", "code_block"):
            parts.append(token.content)
        elif token.type == "html_block":
            stripped = _sub_up_to_last(_TAG, " ", ">", _without_comments(token.content)).strip()
            if stripped:
                parts.append(stripped + "\n")
    return _clean("".join(parts))


def _clean(text: str) -> str:
    """``text`` without leading and trailing blank space, and without trailing space on any line."""
    return "\n".join(line.rstrip() for line in text.strip().split("\n"))


def _inline_text(children: Sequence[Token]) -> str:
    out: list[str] = []
    for child in children:
        if child.type in ("text", "text_special", "code_inline"):
            out.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif child.type == "image":
            out.append(_inline_text(child.children or []))
    return "".join(out)


def _comments(tokens: Sequence[Token]) -> list[Comment]:
    found: list[Comment] = []
    for token in tokens:
        if token.type == "html_block" and token.map is not None:
            standalone = token.level == 0 and _only_comments(token.content)
            line, counted = token.map[0] + 1, 0
            for match in _COMMENT.finditer(token.content, 0, _up_to_last(token.content, "-->")):
                line += token.content.count("\n", counted, match.start())  # linear, not quadratic
                counted = match.start()
                found.append(Comment(line, match.group(1), standalone))
        elif token.type == "inline" and token.map is not None:
            found.extend(
                Comment(token.map[0] + 1 + offset, body, False)
                for offset, body in inline_comments(token.content)
            )
        elif token.type == "table_open":
            for row in token.meta[ROWS_META_KEY]:
                for cell in row.cells:
                    found.extend(Comment(row.line + 1, body, False) for _, body in inline_comments(cell))
    return found


def _up_to_last(text: str, closer: str) -> int:
    """The end of the last ``closer`` in ``text`` (0 when there is none): where matches must end."""
    end = text.rfind(closer)
    return end + len(closer) if end >= 0 else 0


def _sub_up_to_last(pattern: re.Pattern[str], replacement: str, closer: str, text: str) -> str:
    """``pattern.sub(replacement, text)`` for a pattern whose matches end with ``closer``, in linear
    time: past the last ``closer`` nothing can match, so nothing there is scanned."""
    end = _up_to_last(text, closer)
    return pattern.sub(replacement, text[:end]) + text[end:]


def _without_comments(text: str) -> str:
    return _sub_up_to_last(_COMMENT, "", "-->", text)


def _only_comments(text: str) -> bool:
    """An HTML block made of comments and blank space only (each comment ends at its first ``-->``).
    A regex ``\\s*(?:<!--.*?-->\\s*)+`` took time exponential in the number of comments before text."""
    return "<!--" in text and not _without_comments(text).strip()


def _hint_lines_in_code(tokens: Sequence[Token]) -> list[int]:
    lines: list[int] = []
    for token in tokens:
        if token.type not in ("fence", "code_block") or token.map is None:
            continue
        first_content_line = token.map[0] + 1 + (1 if token.type == "fence" else 0)
        for offset, line in enumerate(token.content.split("\n")):
            if _HINT_IN_CODE.search(line):
                lines.append(first_content_line + offset)
    return lines
