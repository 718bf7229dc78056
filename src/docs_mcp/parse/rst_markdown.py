"""A docutils document tree -> markdown lines, each with the source line it comes from.

The chunker reads markdown: a reStructuredText page is written out as the markdown it reads as
(sections as ``#`` headings, one level a section depth; literal blocks as fenced code; admonitions
and version notes as quotes with their label; tables as GFM tables; API entries as headings under
their section, with their anchor as the heading's explicit id), and every output line carries the
page line it comes from, so chunk line ranges are the page's. Lines from an included file or a
docstring carry the line of the directive that brought them. Text is escaped where markdown would
read it as syntax; what a reader sees (roles' text, links' text) stays.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from docutils import nodes

from docs_mcp.parse.rst_context import api_entry, description, labelled

__all__ = ["MarkdownLines", "write_markdown"]

_ESCAPED = re.compile(r"([\\`*\[\]<])|(?<!\w)(_)|(_)(?!\w)|(&)(?=#?\w+;)")
_LINE_START = re.compile(r"^(#|>|[-+]\s|[-=]+\s*$|\d+[.)](?:\s|$)|~~~|\|)")
_SKIPPED = (
    nodes.comment, nodes.target, nodes.substitution_definition, nodes.system_message, nodes.pending,
    nodes.raw, nodes.image, nodes.transition, nodes.meta, nodes.decoration,
)  # fmt: skip
_ANCHOR = re.compile("\x00([^\x00]*)\x00")
Line = tuple[str, int]


class MarkdownLines:
    """The markdown of one document: ``lines``, the page line of each, explicit heading ids."""

    def __init__(self, page: str, include_lines: Mapping[str, int]) -> None:
        self.page = page
        self.include_lines = include_lines
        self.last = 1  # the last page line seen: for nodes docutils gives no line
        self.heading_ids: dict[int, str] = {}  # output line (1-based) -> anchor
        self.lines: list[Line] = []

    # -- lines ---------------------------------------------------------------------------------
    def line_of(self, node: nodes.Node) -> int:
        """The page line ``node`` comes from (an included file's: the include's line)."""
        source = getattr(node, "source", None)
        line = getattr(node, "line", None)
        if source and source != self.page:
            mapped = self.include_lines.get(str(source))
            if mapped is not None:
                self.last = max(self.last, mapped)
                return self.last
        if isinstance(line, int) and line > 0 and source in (None, self.page):
            self.last = max(self.last, line)
        return self.last

    def in_page(self, node: nodes.Node) -> bool:
        return getattr(node, "source", None) in (None, self.page)

    # -- blocks --------------------------------------------------------------------------------
    def document(self, document: nodes.document) -> None:
        """Write the whole document."""
        self.lines = self.blocks(document.children, 0)

    def blocks(self, children: list[nodes.Node], level: int) -> list[Line]:
        """Block nodes, one blank line between two."""
        out: list[Line] = []
        for child in children:
            lines = self.block(child, level)
            if not lines:
                continue
            if out:
                out.append(("", out[-1][1]))
            out.extend(lines)
        return out

    def block(self, node: nodes.Node, level: int) -> list[Line]:
        if isinstance(node, _SKIPPED):
            return []
        if isinstance(node, nodes.section):
            return self.heading(node, level + 1, self.title(node), _first_id(node))
        if isinstance(node, api_entry):
            return self.heading(node, level + 1, str(node["name"]), str(node["anchor"]))
        if isinstance(node, nodes.paragraph | nodes.rubric | nodes.caption | nodes.Text):
            return self.paragraph(node)
        if isinstance(node, nodes.literal_block | nodes.doctest_block | nodes.math_block):
            return self.code(node)
        if isinstance(node, nodes.bullet_list | nodes.enumerated_list):
            return self.listed(node, level)
        if isinstance(node, nodes.definition_list | nodes.field_list | nodes.option_list):
            return self.term_list(node, level)
        if isinstance(node, nodes.block_quote):
            return _prefixed(self.blocks(node.children, level), "> ")
        if isinstance(node, labelled):
            return self.labelled(node, str(node["label"]), bool(node["quoted"]), level)
        if isinstance(node, nodes.Admonition):
            label = node.tagname.capitalize() if node.tagname != "admonition" else ""
            return self.labelled(node, label, True, level)
        if isinstance(node, description):
            line = self.line_of(node)
            signatures = [(_code(s), line) for s in node["signatures"]]
            body = self.blocks(node.children, level)
            return signatures + ([("", signatures[-1][1])] if signatures and body else []) + body
        if isinstance(node, nodes.table):
            return self.table(node)
        if isinstance(node, nodes.line_block):
            return [
                (_escaped_line(self.inline(line)), self.line_of(line)) for line in node.findall(nodes.line)
            ]
        if isinstance(node, nodes.footnote | nodes.citation):
            label = node.children[0].astext() if node.children else ""
            body = self.blocks(node.children[1:], level)
            return [(f"\\[{label}\\] {body[0][0]}", body[0][1]), *body[1:]] if body else []
        if isinstance(node, nodes.topic | nodes.sidebar):
            return self.labelled(node, "", False, level)
        if isinstance(node, nodes.title):
            return [(f"**{self.inline(node)}**", self.line_of(node))]
        if isinstance(node, nodes.Element):
            return self.blocks(node.children, level)
        return []

    def heading(self, node: nodes.Element, level: int, text: str, anchor: str | None) -> list[Line]:
        title = node.children[0] if node.children and isinstance(node.children[0], nodes.title) else None
        line = self.line_of(title if title is not None else node)
        if title is not None and self.in_page(title) and line > 1:
            line -= 1  # docutils gives a title the line of its underline
        head = " ".join(text.split()) or "Untitled"
        # The anchor rides on the line until ``write_markdown`` takes it off (``_ANCHOR``).
        out: list[Line] = [(f"\x00{anchor or ''}\x00{'#' * min(level, 6)} {head}", line)]
        body = self.blocks([c for c in node.children if c is not title], level)
        return out + ([("", line), *body] if body else [])

    def title(self, section: nodes.section) -> str:
        title = section.children[0] if section.children else None
        return _escape_inline(self.inline(title)) if isinstance(title, nodes.title) else ""

    def paragraph(self, node: nodes.Node) -> list[Line]:
        start = self.line_of(node)
        text = self.inline(node) if isinstance(node, nodes.Element) else _escape(node.astext())
        lines = [line.strip() for line in text.split("\n")]
        in_page = self.in_page(node)
        return [(_escaped_line(line), start + (i if in_page else 0)) for i, line in enumerate(lines) if line]

    def code(self, node: nodes.Element) -> list[Line]:
        start = self.line_of(node)
        language = str(node.get("language") or "")
        classes = [c for c in node.get("classes", []) if c not in ("code", "highlight")]
        if not language:
            language = "python" if isinstance(node, nodes.doctest_block) else classes[0] if classes else ""
        body = node.astext().rstrip("\n").split("\n")
        fence = "```"
        while any(line.lstrip().startswith(fence) for line in body):
            fence += "`"
        in_page = self.in_page(node)
        lines = [(line.rstrip(), start + (i if in_page else 0)) for i, line in enumerate(body)]
        last = lines[-1][1] if lines else start
        return [(f"{fence}{language}", start), *lines, (fence, last)]

    def listed(self, node: nodes.Element, level: int) -> list[Line]:
        out: list[Line] = []
        number = int(node.get("start", 1)) if isinstance(node, nodes.enumerated_list) else 0
        items = [item for item in node.children if isinstance(item, nodes.list_item)]
        loose = any(len(item.children) > 1 for item in items)
        for index, item in enumerate(items):
            marker = f"{number + index}. " if number else "- "
            body = self.blocks(item.children, level) or [("", self.line_of(item))]
            if out and loose:
                out.append(("", out[-1][1]))
            out.extend(_item(marker, body))
        return out

    def term_list(self, node: nodes.Element, level: int) -> list[Line]:
        out: list[Line] = []
        for item in node.children:
            if not isinstance(item, nodes.Element) or not item.children:
                continue
            term, rest = item.children[0], item.children[1:]
            name = self.inline(term) if isinstance(term, nodes.Element) else term.astext()
            name = " ".join(name.split())
            if isinstance(node, nodes.option_list):
                name = _code(term.astext())
            body = self.blocks(rest, level)
            head = (f"- **{_escape_inline(name)}**" if name else "-", self.line_of(term))
            if out:
                out.append(("", out[-1][1]))
            out.extend([head, ("", head[1]), *_indented(body, "  ")] if body else [head])
        return out

    def labelled(self, node: nodes.Element, label: str, quoted: bool, level: int) -> list[Line]:
        children = list(node.children)
        if children and isinstance(children[0], nodes.title):
            title = self.inline(children[0])
            label = f"{label}: {title}" if label else title
            children = children[1:]
        line = self.line_of(node)
        body = self.blocks(children, level)
        head: list[Line] = []
        if label:
            head = (
                [(f"{_escape_inline(label)}:", line), ("", line)] if body else [(_escape_inline(label), line)]
            )
        lines = head + body
        return _prefixed(lines, "> ") if quoted else lines

    def table(self, node: nodes.table) -> list[Line]:
        rows: list[list[str]] = []
        line = self.line_of(node)
        for group in node.findall(nodes.tgroup):
            for part in group.children:
                if not isinstance(part, nodes.thead | nodes.tbody):
                    continue
                for row in part.children:
                    rows.append(
                        [
                            self.cell(entry)
                            for entry in row.children
                            for _ in range(1 + entry.get("morecols", 0))
                        ]
                    )
        if not rows:
            return []
        width = max(len(row) for row in rows)
        rows = [row + [""] * (width - len(row)) for row in rows]
        header, body = (rows[0], rows[1:])
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
        out.extend("| " + " | ".join(row) + " |" for row in body)
        return [(text, line) for text in out]

    def cell(self, entry: nodes.Node) -> str:
        parts: list[str] = []
        for child in entry.children if isinstance(entry, nodes.Element) else []:
            if isinstance(child, nodes.literal_block):
                parts.append(_code(child.astext()))
            elif isinstance(child, nodes.Element):
                lines = [text for text, _ in self.block(child, 0) if text.strip()]
                parts.append(" ".join(lines))
        return " ".join(parts).replace("|", "\\|")

    # -- inline --------------------------------------------------------------------------------
    def inline(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Text):
            return _escape(str(node))
        if isinstance(node, nodes.literal | nodes.title_reference):
            return _code(node.astext())
        if isinstance(node, nodes.math):
            return _code(node.astext())
        if isinstance(node, nodes.system_message | nodes.raw | nodes.substitution_definition):
            return ""
        if isinstance(node, nodes.problematic):
            return _escape(_unwrapped(node.astext()))
        if isinstance(node, nodes.image):
            return _escape(str(node.get("alt", "")))
        if isinstance(node, nodes.footnote_reference | nodes.citation_reference):
            return f"\\[{_escape(node.astext())}\\]"
        inner = (
            "".join(self.inline(child) for child in node.children) if isinstance(node, nodes.Element) else ""
        )
        if isinstance(node, nodes.emphasis) and inner.strip():
            return f"*{inner}*"
        if isinstance(node, nodes.strong) and inner.strip():
            return f"**{inner}**"
        if isinstance(node, nodes.reference):
            uri = str(node.get("refuri", ""))
            if uri.startswith(("http://", "https://")) and inner and node.astext() != uri and " " not in uri:
                return f"[{inner}](<{uri}>)" if ">" not in uri else inner
        return inner


def write_markdown(document: nodes.document, page: str, include_lines: Mapping[str, int]) -> MarkdownLines:
    """``document`` as markdown lines with their page lines (see the module docstring)."""
    writer = MarkdownLines(page, include_lines)
    lines = writer.blocks(document.children, 0)
    for index, (text, line) in enumerate(lines):
        found = _ANCHOR.search(text)
        if found is not None:
            lines[index] = (text[: found.start()] + text[found.end() :], line)
            if found.group(1):
                writer.heading_ids[index + 1] = found.group(1)
    writer.lines = lines
    return writer


def _first_id(node: nodes.Element) -> str | None:
    ids = node.get("ids") or []
    return str(ids[0]) if ids else None


def _item(marker: str, body: list[Line]) -> list[Line]:
    pad = " " * len(marker)
    first, rest = body[0], body[1:]
    return [(marker + first[0], first[1]), *_indented(rest, pad)]


def _indented(lines: list[Line], pad: str) -> list[Line]:
    return [(pad + text if text else "", line) for text, line in lines]


def _prefixed(lines: list[Line], prefix: str) -> list[Line]:
    return [((prefix + text).rstrip(), line) for text, line in lines]


def _code(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _escape(text: str) -> str:
    return _ESCAPED.sub(lambda m: "\\" + m.group(0), text)


def _escape_inline(text: str) -> str:
    return text.replace("\n", " ")


def _escaped_line(line: str) -> str:
    """A paragraph line that markdown would read as a heading, quote, list item or rule, escaped."""
    return "\\" + line if _LINE_START.match(line) else line


_ROLE_MARKUP = re.compile(r"^:[\w:+.-]+:`(.*)`$|^`(.*)`:[\w:+.-]+:$|^\|(.*)\|$", re.DOTALL)


def _unwrapped(text: str) -> str:
    """The text of markup docutils could not read (``problematic``), without its role or pipes."""
    found = _ROLE_MARKUP.match(text)
    return next((group for group in found.groups() if group is not None), text) if found else text
