"""A page written for a site generator -> the plain markdown its rendered page reads as.

What is rewritten (before the page is parsed and chunked, so indexed text, snippets and the
markdown ``get_doc`` returns all read clean):

- admonitions (mkdocs ``!!! note "Title"`` / ``??? tip``, pymdownx ``/// warning | Title``,
  Docusaurus ``:::note[Title]``, MyST ```` ```{note} ```` and ``:::{tip}``) become a quote whose
  first line is their label: ``> Note: Title``;
- content tabs (``=== "Tab"``, ``/// tab | Tab``, ``<TabItem label="Tab">``, MyST ``{tab-item}``)
  become a ``Tab:`` line followed by their content;
- autodoc stubs (``::: package.module`` with their option lines), MyST ``(label)=`` targets,
  ``{toctree}``-like directives, MDX ``import``/``export`` lines and ``{/* comments */}`` go;
  JSX components keep their text content;
- inline syntax (``site_inline.py``): attribute lists, cross-references, roles, macros, code
  annotations;
- includes (``--8<-- "file"``, ``{* file *}``, ``{! file !}``, MyST ``{include}`` and
  ``{literalinclude}``) are replaced by the file's text, read through ``read_include`` (the caller
  confines it to the repository folder); a file it cannot give is reported and the line dropped.

Lines: every source line gives exactly one output line (a marker line becomes its label line or a
blank line), so line numbers and the chunker's ownership of the text hold as they are, except where
an include is expanded: ``Normalised.origins`` then maps each output line to its source line.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from docs_mcp.parse.markdown import normalise
from docs_mcp.parse.site_dialect import Dialect
from docs_mcp.parse.site_include import (
    MAX_INCLUDE_DEPTH,
    MAX_INCLUDED_BYTES,
    Include,
    IncludeReader,
    code_language,
    included_lines,
    parse_include,
)
from docs_mcp.parse.site_inline import (
    clean_code_line,
    heading_attributes,
    leftover_markers,
    outside_code_spans,
    rewrite_text_line,
    strip_components,
)

__all__ = [
    "Dialect",
    "IncludeReader",
    "Normalised",
    "SyntaxNote",
    "normalise_site_syntax",
]  # Dialect: site_dialect


_LABELS = {"seealso": "See also", "versionadded": "Added", "versionchanged": "Changed", "todo": "To do"}
_ADMONITION_NAMES = (
    "note tip hint info important warning caution danger error attention abstract summary tldr todo "
    "success check done question help faq failure fail missing bug example quote cite seealso "
    "admonition details secondary versionadded versionchanged deprecated"
)
_ADMONITIONS = frozenset(_ADMONITION_NAMES.split())
_DROPPED_NAMES = "toctree contents tableofcontents autosummary index only raw"
_DROPPED_DIRECTIVES = frozenset(_DROPPED_NAMES.split())
_CODE_DIRECTIVES = frozenset(["code", "code-block", "sourcecode", "code-cell"])
_TAB_DIRECTIVES = frozenset(["tab", "tab-item", "tab-set-code", "dropdown", "card"])

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_MKDOCS_ADMONITION = re.compile(r'^(\s*)(?:!!!|\?\?\?\+?)\s+([\w-]+)(?:\s+"(.*)")?\s*$')
_MKDOCS_TAB = re.compile(r'^(\s*)===\+?\s+"(.*)"\s*$')
_AUTODOC = re.compile(r"^(\s*):::\s+([\w.:-]+)\s*$")
# Lines are matched right-stripped: no pattern ends in a lazy group before ``\s*$`` (quadratic).
_BLOCK = re.compile(r"^(/{3,})\s*([\w-]+)\s*(?:\|\s*(.*))?$")
_BLOCK_OPTION = re.compile(r"^\s+[\w-]+\s*:")
_COLON_FENCE = re.compile(r"^(\s*)(:{3,})\s*(\{[\w:-]+\}|[\w-]+)?\s*(?:\[(.*)\])?\s*(.*)$")
_MYST_OPTION = re.compile(r"^\s*:[\w-]+:")
_MYST_TARGET = re.compile(r"^\s*\([\w.:-]+\)=\s*$")
_REFERENCE = re.compile(r"^ {0,3}\[([^\]]+)\]:")
_MDX_STATEMENT = re.compile(r"^(?:import|export)\s")
_TAB_ITEM = re.compile(r"<TabItem\b[^>]*?\blabel\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|\{['\"]([^'\"]*)['\"]\})")
_JSX_OPEN = re.compile(r"^\s*</?[A-Z]")
_JSX_UNCLOSED = re.compile(r"^\s*<[A-Z][\w.]*(?:\s[^<>]*)?$")  # a tag whose attributes go on below
_PARTIAL_IMPORT = re.compile(r"""^import\s+([A-Z]\w*)\s+from\s+['"]((?:\.{1,2}/|@site/)[^'"]+\.mdx?)['"]""")
_PARTIAL_USE = re.compile(r"^\s*<([A-Z]\w*)\s*/>$")


@dataclass(frozen=True)
class SyntaxNote:
    line: int  # 1-based source line
    rule: str
    message: str


@dataclass
class Normalised:
    text: str
    notes: list[SyntaxNote] = field(default_factory=list)
    heading_ids: dict[int, str] = field(default_factory=dict)  # output line -> explicit ``{#id}``
    origins: list[int] | None = None  # output line (index) -> source line; None: the same lines
    autodoc: int = 0  # ``::: package.member`` directives dropped


@dataclass
class _Box:
    """An open container: ``indent`` > 0 ends where a line is indented less (mkdocs), else
    ``closer`` ends it (a fence of colons, slashes or backticks)."""

    prefix: str  # "> " for a quote
    indent: int = 0
    closer: re.Pattern[str] | None = None


@dataclass
class _Code:
    marker: str  # the fence's character run
    box_depth: int


def normalise_site_syntax(
    source: str,
    dialect: Dialect,
    read_include: IncludeReader | None = None,
    path: str = "",
) -> Normalised:
    """``source`` (a page of ``path``) in plain markdown; see the module docstring. Raises nothing."""
    chain = (posixpath.normpath(path),) if path else ()
    return _normalise(source, dialect, read_include, path, _Expansion(MAX_INCLUDED_BYTES), chain)


def _beside(chain: tuple[str, ...], target: str) -> str:
    """``target`` as a path beside the file that includes it (the last of ``chain``), so that a file
    including itself as ``./page.md`` or ``../guides/page.md`` is seen to."""
    folder = posixpath.dirname(chain[-1]) if chain else ""
    return posixpath.normpath(posixpath.join(folder, target))


@dataclass
class _Expansion:
    """What the includes of one page may still add, in bytes: bounded in total, not only in depth (a
    page including itself 20 times, 4 deep, was 20^4 copies)."""

    left: int


def _normalise(
    source: str,
    dialect: Dialect,
    read_include: IncludeReader | None,
    path: str,
    expansion: _Expansion,
    chain: tuple[str, ...],
) -> Normalised:
    source = normalise(source)
    if dialect.prepare is not None:
        source = dialect.prepare(source)
    lines = source.split("\n")
    machine = _Machine(dialect, read_include, path, _references(lines), expansion, chain)
    start = _front_matter_end(lines)
    for number in range(1, start):
        machine.emit(lines[number - 1], number, raw=True)
    machine.run(lines, start)
    result = Normalised("\n".join(machine.out), machine.notes, machine.heading_ids, None, machine.autodoc)
    if machine.origins != list(range(1, len(machine.out) + 1)):
        result.origins = machine.origins
    return result


def _front_matter_end(lines: list[str]) -> int:
    """The first body line (1-based): after a ``---`` front matter block, else 1."""
    if lines and lines[0].rstrip() == "---":
        for index in range(1, len(lines)):
            if lines[index].rstrip() in ("---", "..."):
                return index + 2
    return 1


def _references(lines: list[str]) -> frozenset[str]:
    return frozenset(
        " ".join(m.group(1).split()).casefold() for line in lines if (m := _REFERENCE.match(line))
    )


def _indent(line: str) -> int:
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))


def _label(kind: str, title: str | None) -> str:
    name = _LABELS.get(kind, kind.replace("-", " ").capitalize())
    return f"{name}: {title}" if title else f"{name}:"


class _Machine:
    def __init__(
        self,
        dialect: Dialect,
        reader: IncludeReader | None,
        path: str,
        refs: frozenset[str],
        expansion: _Expansion,
        chain: tuple[str, ...],
    ) -> None:
        self.dialect = dialect
        self.reader = reader
        self.path = path
        self.refs = refs
        self.out: list[str] = []
        self.origins: list[int] = []
        self.notes: list[SyntaxNote] = []
        self.heading_ids: dict[int, str] = {}
        self.autodoc = 0
        self.boxes: list[_Box] = []
        self.code: _Code | None = None
        self.pending: list[int] = []  # blank source lines not yet known to be inside the open boxes
        self.skip: Callable[[str], bool] | None = None  # option lines after an opener
        self.statement_depth = 0  # an MDX import/export statement still open (bracket balance)
        self.expansion = expansion  # the bytes the page's includes may still add, shared by all levels
        self.chain = chain  # the page and the files that included this one, outermost first
        self.dropping: _Box | None = None  # a directive whose whole content goes (``{toctree}``)
        self.partials: dict[str, str] = {}  # MDX component name -> the markdown file it imports
        self.in_tag = False  # inside a component tag's attribute lines

    # -- output -------------------------------------------------------------------------------
    def prefix(self, depth: int | None = None) -> str:
        return "".join(box.prefix for box in self.boxes[:depth])

    def emit(self, text: str, number: int, raw: bool = False) -> None:
        line = text if raw else (self.prefix() + text).rstrip() if text else self.prefix().rstrip()
        self.out.append(line)
        self.origins.append(number)

    def note(self, number: int, rule: str, message: str) -> None:
        self.notes.append(SyntaxNote(number, rule, message))

    def flush_blanks(self) -> None:
        for number in self.pending:
            self.emit("", number)
        self.pending.clear()

    # -- the walk -----------------------------------------------------------------------------
    def run(self, lines: list[str], start: int) -> None:
        for number in range(start, len(lines) + 1):
            self.line(lines[number - 1], number)
        self.boxes.clear()
        self.flush_blanks()

    def line(self, raw: str, number: int) -> None:
        raw = raw.rstrip()
        if self.dropping is not None:
            closer = self.dropping.closer
            if closer is not None and closer.match(raw.strip()):
                self.boxes.remove(self.dropping)
                self.dropping = None
            self.emit("", number)
            return
        if not raw.strip():
            if self.code is not None:
                self.emit("", number)
            else:
                self.pending.append(number)
                self.skip = None
            return
        if self.in_tag:
            self.in_tag = ">" not in raw
            self.emit("", number)
            return
        content = self.enter(raw)
        if self.code is None and self.drop_block(content, number):
            return
        if self.code is not None and self.skip is not None and self.skip(content):
            self.emit("", number)  # a directive's option line (``:linenos:``) inside its code
            return
        self.skip = None if self.code is not None else self.skip
        if self.code is not None:
            self.flush_blanks()
            self.code_line(content, number)
            return
        if self.skip is not None:
            if self.skip(content):
                self.emit("", number)
                return
            self.skip = None
        if self.statement_depth > 0 or (self.dialect.mdx and not self.boxes and _MDX_STATEMENT.match(raw)):
            self.flush_blanks()
            self.drop_statement(content, number)
            return
        self.flush_blanks()
        if not self.opener(content, number):
            self.text_line(content, number)

    def enter(self, raw: str) -> str:
        """The line inside the open indented boxes (their indent removed); closes those it leaves."""
        content = raw.expandtabs(4) if "\t" in raw[: len(raw) - len(raw.lstrip())] else raw
        for depth, box in enumerate(self.boxes):
            if box.indent == 0:
                continue
            if _indent(content) < box.indent:
                self.close(depth)
                break
            content = content[box.indent :]
        return content

    def close(self, depth: int) -> None:
        """Close the boxes from ``depth`` on; the blank lines before end outside them."""
        del self.boxes[depth:]
        if self.code is not None and self.code.box_depth > depth:
            self.code = None
        self.flush_blanks()

    def code_line(self, content: str, number: int) -> None:
        assert self.code is not None
        stripped = content.strip()
        closing = set(stripped) == {self.code.marker[0]} and len(stripped) >= len(self.code.marker)
        if closing:
            self.code = None
            self.emit(content, number)
            return
        includes = self.dialect.uses("mkdocs") or self.dialect.include_rules
        if includes and self.include(content, number, in_code=True):
            return
        annotations = self.dialect.uses("mkdocs")
        self.emit(clean_code_line(content, annotations, self.dialect.variables), number)

    def drop_statement(self, content: str, number: int) -> None:
        partial = _PARTIAL_IMPORT.match(content)
        if partial is not None:  # ``import Intro from './_intro.mdx'``: ``<Intro />`` includes it
            self.partials[partial.group(1)] = partial.group(2).removeprefix("@site/")
        balance = sum(content.count(c) for c in "{([") - sum(content.count(c) for c in "})]")
        self.statement_depth = max(0, self.statement_depth + balance)
        self.emit("", number)

    def drop_block(self, content: str, number: int) -> bool:
        """Open a block the dialect drops whole (``<script setup>``) at ``content``; True then."""
        for opening, closing in self.dialect.drop_blocks:
            if opening.match(content):
                if not closing.search(content):
                    self.open(_Box("", closer=closing), None, None, dropped=True)
                self.emit("", number)
                return True
        return False

    # -- openers ------------------------------------------------------------------------------
    def opener(self, content: str, number: int) -> bool:
        """Handle ``content`` if it opens or closes a container (or is a marker line); True then."""
        dialect = self.dialect
        top = self.boxes[-1] if self.boxes else None
        if top is not None and top.closer is not None and top.closer.match(content):
            self.boxes.pop()
            self.emit("", number)
            return True
        if (fence := _FENCE.match(content)) is not None and len(fence.group(1)) < 4:
            return self.fence(fence, number)
        if dialect.uses("mkdocs") and self.mkdocs(content, number):
            return True
        if dialect.uses("docusaurus") and self.docusaurus(content, number):
            return True
        if dialect.uses("sphinx") and self.myst(content, number):
            return True
        if dialect.jsx and not dialect.uses("docusaurus") and _JSX_OPEN.match(content):
            return self.component(content, number)
        return bool(dialect.include_rules) and self.include(content, number, in_code=False)

    def fence(self, fence: re.Match[str], number: int) -> bool:
        indent, marker, info = fence.group(1), fence.group(2), fence.group(3).strip()
        directive = re.match(r"^\{([\w:-]+)\}\s*(.*)$", info)
        if directive is not None and self.dialect.uses("sphinx"):
            closer = re.compile(rf"^\s*{re.escape(marker[0])}{{{len(marker)},}}\s*$")
            self.directive(directive.group(1), directive.group(2), closer, marker, number)
            return True
        attributes = re.match(
            r"^\{\s*\.?([\w+-]+)[^}]*\}\s*$", info
        )  # superfences' ``{ .python title="x" }``
        if attributes is not None:
            info = attributes.group(1)
        self.code = _Code(marker, len(self.boxes))
        self.emit(f"{indent}{marker}{info}", number)
        return True

    def mkdocs(self, content: str, number: int) -> bool:
        if (match := _MKDOCS_ADMONITION.match(content)) is not None:
            self.open(_Box("> ", indent=_indent(content) + 4), _label(match.group(2), match.group(3)), number)
            return True
        if (match := _MKDOCS_TAB.match(content)) is not None:
            self.open(_Box("", indent=_indent(content) + 4), f"{match.group(2)}:", number)
            return True
        if (stub := _AUTODOC.match(content)) is not None:
            self.autodoc_stub(stub.group(2), number)
            return True
        if (match := _BLOCK.match(content)) is not None:
            slashes, kind, title = match.group(1), match.group(2).lower(), match.group(3)
            closer = re.compile(rf"^{slashes}\s*$")
            if kind == "tab":
                self.open(_Box("", closer=closer), f"{title or 'Tab'}:", number)
            elif kind in ("html", "define", "caption"):
                self.open(_Box("", closer=closer), "", number)
            else:
                self.open(_Box("> ", closer=closer), _label(kind, title), number)
            self.skip = lambda line: _BLOCK_OPTION.match(line) is not None
            return True
        return self.include(content, number, in_code=False)

    def docusaurus(self, content: str, number: int) -> bool:
        match = _COLON_FENCE.match(content)
        if match is not None and match.group(3):  # also indented: a container inside a list item
            kind = match.group(3).strip("{}").lower()
            title = self.inline(match.group(4) or match.group(5) or "") or None
            closer = re.compile(rf"^\s*:{{{len(match.group(2))},}}\s*$")
            self.open(_Box("> ", closer=closer), _label(kind, title), number)
            return True
        if _JSX_OPEN.match(content):
            used = _PARTIAL_USE.match(content)
            if used is not None and used.group(1) in self.partials:
                self.include_file(Include(self.partials[used.group(1)]), number)
                return True
            return self.component(content, number)
        return self.include(content, number, in_code=False)

    def component(self, content: str, number: int) -> bool:
        """A line starting with a component tag: its text (a tab's label) stays, the tags go."""
        if _JSX_UNCLOSED.match(content):
            self.in_tag = True  # ``<Card`` then ``title="..."`` lines, then ``>``
            self.emit("", number)
            return True
        tab = _TAB_ITEM.search(content)
        # Tags first on the whole line: an attribute may hold a code span (``prefix="`x`"``).
        rest = strip_components(content)
        rest = rewrite_text_line(rest, self.refs, None, True, lambda rule, message: None).strip()
        if tab is not None:
            self.emit(f"{next(g for g in tab.groups() if g is not None)}:", number)
        elif rest:
            self.text_line(rest, number)
        else:
            self.emit("", number)
        return True

    def myst(self, content: str, number: int) -> bool:
        if _MYST_TARGET.match(content):
            self.emit("", number)
            return True
        match = _COLON_FENCE.match(content)
        if match is not None and match.group(3) and match.group(3).startswith("{"):
            closer = re.compile(rf"^\s*:{{{len(match.group(2))},}}\s*$")
            self.directive(match.group(3).strip("{}"), match.group(5), closer, None, number)
            return True
        return False

    def directive(
        self, name: str, argument: str, closer: re.Pattern[str], marker: str | None, number: int
    ) -> None:
        kind = name.lower().rpartition(":")[2]
        self.skip = lambda line: bool(_MYST_OPTION.match(line))
        if kind in _CODE_DIRECTIVES and marker is not None:
            self.code = _Code(marker, len(self.boxes))
            self.emit(f"{marker}{argument.strip()}", number)
            return
        if kind in ("include", "literalinclude"):
            self.emit("", number)
            self.include_file(Include(argument.strip(), code=kind == "literalinclude"), number)
            self.open(_Box("", closer=closer), None, None, dropped=True)
            return
        if kind.startswith("auto") and self.dialect.api_reference is not None:
            self.autodoc_stub(argument.strip(), number, kind)
            self.open(_Box("", closer=closer), None, None, dropped=True)
            return
        if kind in _DROPPED_DIRECTIVES or kind.startswith("auto"):
            self.autodoc += kind.startswith("auto")
            self.open(_Box("", closer=closer), None, number, dropped=True)
            return
        if kind in _ADMONITIONS:
            title = argument.strip() or None
            if kind == "admonition" and title:
                self.open(_Box("> ", closer=closer), f"{title}:", number)
            else:
                self.open(_Box("> ", closer=closer), _label(kind, title), number)
        elif kind in _TAB_DIRECTIVES and argument.strip():
            self.open(_Box("", closer=closer), f"{argument.strip()}:", number)
        else:
            self.open(_Box("", closer=closer), argument.strip() or "", number)

    def open(self, box: _Box, label: str | None, number: int | None, dropped: bool = False) -> None:
        if number is not None:
            self.emit(label or "", number) if not box.prefix else self.emit(
                f"{box.prefix}{label}".rstrip(), number
            )
        self.boxes.append(box)
        if dropped:
            self.dropping = box

    def autodoc_stub(self, target: str, number: int, kind: str = "") -> None:
        """``::: target`` (or a MyST ``{autoclass}``): the API reference the dialect's hook gives for
        it, else dropped with its option lines (counted: a page of nothing else is a stub page)."""
        reference = self.dialect.api_reference
        markdown = reference(target, kind) if reference is not None else None
        self.skip = lambda line: _indent(line) > 0
        if markdown is None:
            self.autodoc += 1
            self.emit("", number)
            return
        inner = _normalise(markdown, self.dialect, self.reader, self.path, self.expansion, self.chain)
        for line in inner.text.split("\n"):
            self.emit(line, number)

    # -- text ---------------------------------------------------------------------------------
    def inline(self, text: str) -> str:
        """A container's title as plain text: components, attribute lists and line rules out."""
        for rule in self.dialect.line_rules:
            text = outside_code_spans(text, rule)
        text = rewrite_text_line(strip_components(text), self.refs, None, True, lambda rule, message: None)
        return heading_attributes(text)[0].strip()

    def text_line(self, content: str, number: int) -> None:
        def report(rule: str, message: str) -> None:
            self.note(number, rule, message)

        for rule in self.dialect.line_rules:
            content = outside_code_spans(content, rule)
        if not content.strip():
            self.emit("", number)
            return
        jsx = self.dialect.mdx or self.dialect.jsx
        roles = self.dialect.uses("sphinx")
        line = rewrite_text_line(content, self.refs, self.dialect.variables, jsx, report, roles)
        if re.match(r"^\s{0,3}#{1,6}\s", line):
            line, explicit = heading_attributes(line)
            if explicit is not None:
                self.heading_ids[len(self.out) + 1] = explicit
        kind = leftover_markers(line, self.dialect.mdx)
        if kind is not None:
            report(
                "unknown-site-syntax",
                f"{kind} syntax the {self.dialect.generator} reader does not know: "
                f"{line.strip()[:60]!r}; it is indexed as text",
            )
        if not line.strip() and content.strip():
            self.emit("", number)
        else:
            self.emit(line, number)

    # -- includes -----------------------------------------------------------------------------
    def include(self, content: str, number: int, in_code: bool) -> bool:
        builtin = self.dialect.uses("mkdocs") or self.dialect.uses("docusaurus")
        found = parse_include(content, in_code) if builtin else None
        for rule in self.dialect.include_rules:
            found = found or rule(content, in_code)
        if found is not None:
            self.include_file(found, number)
        return found is not None

    def include_file(self, include: Include, number: int) -> None:
        """The file at this point: as a code block, as raw lines (inside code) or normalised as
        markdown; a blank line and a finding when it cannot be read."""
        path = include.path
        text: str | None = None
        if self.reader is None:
            problem: str | None = "the include reader is off"
        elif (where := _beside(self.chain, path)) in self.chain:
            problem = f"includes itself ({' -> '.join([*self.chain, where])})"
        elif len(self.chain) > MAX_INCLUDE_DEPTH:
            problem = f"includes nested over {MAX_INCLUDE_DEPTH} deep"
        else:
            text, problem = self.reader(path, self.path)
            if text is not None and len(text) > self.expansion.left:
                text, problem = None, f"the page's includes pass {MAX_INCLUDED_BYTES:,} bytes"
            elif text is not None:
                self.expansion.left -= len(text)
        if text is None:
            rule = "include-outside" if problem and "outside" in problem else "include-missing"
            self.note(number, rule, f"include {path!r}: {problem}; not indexed")
            self.emit("", number)
            return
        body = included_lines(text, include)
        indent = include.indent
        if include.code or include.verbatim:
            if include.code:
                self.emit(f"{indent}```{code_language(path, include)}", number)
            for line in body:
                self.emit(f"{indent}{line}" if line else "", number)
            if include.code:
                self.emit(f"{indent}```", number)
            return
        inner = _normalise(
            "\n".join(body), self.dialect, self.reader, path, self.expansion, (*self.chain, where)
        )
        for line in inner.text.split("\n"):
            self.emit(f"{indent}{line}" if line else "", number)
        self.notes.extend(SyntaxNote(number, n.rule, f"{path}: {n.message}") for n in inner.notes)
