"""What the reStructuredText directives of one page share: the page, its readers, its findings.

docutils calls a directive with its parser state only, so what it needs of the page being read
(the include reader, the API source, where findings go) is this context variable, set by
``rst.read_rst`` for the time of one parse. Also the node types the directives make, which the
markdown writer (``rst_markdown.py``) renders.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

from docutils import nodes
from docutils.parsers.rst import Directive

from docs_mcp.parse.api_markup import Markup
from docs_mcp.parse.pyapi import ApiEntry, ApiOptions
from docs_mcp.parse.rst_titles import RstTitles
from docs_mcp.parse.site_include import IncludeReader
from docs_mcp.parse.site_syntax import SyntaxNote

__all__ = [
    "ApiLookup",
    "RstContext",
    "api_entry",
    "context",
    "description",
    "labelled",
    "page_line",
    "reading",
]

# (target, options, markup, current module) -> the entry, or None and why not.
ApiLookup = Callable[[str, ApiOptions, Markup, "str | None"], tuple[ApiEntry | None, str | None]]


class labelled(nodes.General, nodes.Element):  # type: ignore[misc]  # docutils is untyped
    """A block with a label line: an admonition (``label`` "Note"), a version note, a tab."""


class description(nodes.General, nodes.Element):  # type: ignore[misc]  # docutils is untyped
    """An object description (``py:function``, ``data``): ``signatures`` then the content."""


class api_entry(nodes.General, nodes.Element):  # type: ignore[misc]  # docutils is untyped
    """A documented API object: a heading (``name``, ``anchor``) one level under its parent's."""


@dataclass
class RstContext:
    """The page being parsed."""

    path: str  # the page, relative to the docs folder
    read_include: IncludeReader | None
    api: ApiLookup | None
    titles: RstTitles = field(default_factory=RstTitles)  # what :ref: and :doc: show
    notes: list[SyntaxNote] = field(default_factory=list)
    module: str | None = None  # set by ``module`` / ``currentmodule``
    include_lines: dict[str, int] = field(default_factory=dict)  # inserted source -> the page's line
    include_depth: dict[str, int] = field(default_factory=dict)
    api_objects: int = 0  # autodoc directives resolved
    api_missing: int = 0  # autodoc directives not resolved

    def note(self, line: int, rule: str, message: str) -> None:
        self.notes.append(SyntaxNote(line, rule, message))


_CONTEXT: ContextVar[RstContext] = ContextVar("docs_mcp_rst_context")


def context() -> RstContext:
    """The page being parsed (inside ``reading``)."""
    return _CONTEXT.get()


class reading:
    """``with reading(ctx):`` makes ``ctx`` the page being parsed."""

    def __init__(self, ctx: RstContext) -> None:
        self.ctx = ctx

    def __enter__(self) -> RstContext:
        self.token = _CONTEXT.set(self.ctx)
        return self.ctx

    def __exit__(self, *exc: object) -> None:
        _CONTEXT.reset(self.token)


def page_line(directive: Directive) -> tuple[str, int]:
    """The source the directive is in (the page, or an included file's key) and the page's line."""
    source, line = directive.state_machine.get_source_and_line(directive.lineno)
    ctx = context()
    source = str(source or ctx.path)
    number = int(line or 0)
    return source, ctx.include_lines.get(source, number)
