"""Sphinx's directives and roles, known to docutils by the names a page uses, read for their text.

docutils knows no Sphinx directive (``code-block``, ``versionadded``, ``toctree``, ``autoclass``,
``py:function``, sphinx-tabs' ``tab``) nor role (``:meth:``, ``:ref:``, ``:doc:``): unknown, each is
an error and its source is kept as a literal block. So before a text is parsed, every directive and
role name it uses is registered (``register_names``) with a generic handler by what it is for:

- code (``code-block``, ``sourcecode``, ``doctest``): a literal block;
- admonitions and version notes (``note``, ``versionadded:: 2.0``, ``seealso``): a labelled block;
- tabs (``tabs``, ``tab``, ``group-tab``, ``code-tab``): their content, each tab labelled;
- object descriptions (``py:function``, ``data``, ``class``): the signature, then the content;
- ``toctree``, ``index``, ``highlight``, ``raw`` and the like: nothing (``module`` and
  ``currentmodule`` set the module autodoc looks names up in);
- ``include``, ``literalinclude`` and ``auto*``: ``rst_sources.py``;
- any other name docutils does not know: its argument as a line, then its content.

Roles become their text: ``:meth:`flask.Flask.route``` the code ``flask.Flask.route``, ``:ref:`text
<label>``` the text, ``:doc:`/appcontext``` ``appcontext``. The registries are docutils' own
(process-wide): docs-mcp uses docutils only to read pages.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from docutils import nodes, utils
from docutils.parsers.rst import Directive, directives, roles

from docs_mcp.parse.rst_context import context, description, labelled
from docs_mcp.parse.rst_sources import ANY_OPTIONS, AutoDoc, Include, LiteralInclude

__all__ = ["register_names"]

_ADMONITIONS = {
    "note": "Note", "tip": "Tip", "hint": "Hint", "important": "Important", "warning": "Warning",
    "caution": "Caution", "danger": "Danger", "error": "Error", "attention": "Attention",
    "todo": "To do", "seealso": "See also", "admonition": "",
}  # fmt: skip
_VERSIONS = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
_CODE = frozenset(
    ["code-block", "sourcecode", "code", "doctest", "testcode", "testoutput", "ipython", "jupyter-execute"]
)
_CONTENT_ONLY = frozenset(["tabs", "tab-set", "tabbed", "hlist", "glossary", "only", "ifconfig"])
_TABS = frozenset(["tab", "group-tab", "tab-item"])
_DESCRIBED = frozenset(
    [
        "function",
        "class",
        "method",
        "attribute",
        "data",
        "exception",
        "decorator",
        "decoratormethod",
        "classmethod",
        "staticmethod",
        "property",
        "envvar",
        "option",
        "cmdoption",
        "describe",
        "object",
        "confval",
        "setting",
        "type",
        "member",
        "macro",
        "var",
        "struct",
        "enum",
        "enumerator",
        "event",
    ]
)
_DROPPED = frozenset(
    [
        "toctree",
        "index",
        "highlight",
        "tabularcolumns",
        "sectionauthor",
        "moduleauthor",
        "codeauthor",
        "contents",
        "raw",
        "meta",
        "autosummary",
        "default-role",
        "default-domain",
        "role",
        "spelling",
        "testsetup",
        "testcleanup",
        "program",
        "title",
        "sectnum",
        "header",
        "footer",
        "graphviz",
        "digraph",
        "graph",
        "uml",
        "mermaid",
        "plot",
        "currentmodule",
        "module",
    ]
)
_SOURCES: dict[str, type[Directive]] = {"include": Include, "literalinclude": LiteralInclude}
_CODE_ROLES = frozenset(
    [
        "meth",
        "func",
        "class",
        "attr",
        "data",
        "obj",
        "exc",
        "mod",
        "const",
        "file",
        "envvar",
        "option",
        "samp",
        "kbd",
        "command",
        "program",
        "makevar",
        "mailheader",
        "regexp",
        "code",
        "type",
        "member",
        "macro",
        "var",
        "enum",
        "struct",
    ]
)
_TEXT_ROLES = frozenset(
    ["ref", "doc", "term", "abbr", "guilabel", "menuselection", "keyword", "numref", "download", "any"]
)
_DIRECTIVE_NAME = re.compile(r"^[ \t]*\.\.[ \t]+(?:\|[^|\n]+\|[ \t]+)?([A-Za-z0-9][\w:+.-]*?)[ \t]?::", re.M)
_ROLE_NAME = re.compile(r"(?<![\w`]):([A-Za-z][\w:+.-]*):`")
_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)
_registered: set[str] = set()  # directive names, and role names after a ":"


def register_names(text: str) -> None:
    """Give docutils a handler for every directive and role ``text`` uses that it lacks."""
    for name in set(_DIRECTIVE_NAME.findall(text)) - _registered:
        _registered.add(name)
        handler = _directive_for(name)
        if handler is not None:
            directives.register_directive(name, handler)
    for name in {":" + name for name in _ROLE_NAME.findall(text)} - _registered:
        _registered.add(name)
        name = name[1:]
        if name not in roles._role_registry or name == "raw":
            roles.register_local_role(name, _role)


def _directive_for(name: str) -> type[Directive] | None:
    kind = name.lower().rpartition(":")[2]
    if kind in _SOURCES:
        return _SOURCES[kind]
    if kind.startswith("auto") and kind != "autosummary":
        return AutoDoc
    if kind in _DROPPED:
        return _Dropped
    if kind in _CODE:
        return _Code
    if kind in ("admonition", "seealso"):
        return _TitledAdmonition  # a title, or inline text, in the argument
    if kind in _ADMONITIONS:
        return _Admonition
    if kind in _VERSIONS:
        return _Version
    if kind in _CONTENT_ONLY:
        return _Content
    if kind in _TABS or kind == "code-tab":
        return _Tab
    if kind in _DESCRIBED:
        return _Description
    if name in directives._directive_registry:
        return None  # docutils' own: image, figure, tables, math, topic, rubric, replace, ...
    return _Container


class _Generic(Directive):  # type: ignore[misc]  # docutils is untyped
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = ANY_OPTIONS
    has_content = True

    def parsed(self, node: nodes.Element) -> nodes.Element:
        """``node`` (given the directive's place) with the directive's content parsed into it."""
        self.located(node)
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, node)
        return node

    def located(self, node: nodes.Element) -> nodes.Element:
        """``node`` with the directive's source and line, and so has each node of its argument."""
        node.source, node.line = self.state_machine.get_source_and_line(self.lineno)
        for child in node.findall(nodes.Element):
            if child.line is None:
                child.source, child.line = node.source, node.line
        return node

    def argument(self) -> str:
        return " ".join(self.arguments[0].split()) if self.arguments else ""

    def text(self, text: str) -> nodes.paragraph:
        """A paragraph of ``text`` read as inline markup (roles and literals in an argument)."""
        inline, messages = self.state.inline_text(text, self.lineno)
        paragraph = nodes.paragraph(text, "", *inline, *messages)
        paragraph.source, paragraph.line = self.state_machine.get_source_and_line(self.lineno)
        return paragraph


class _Dropped(_Generic):
    def run(self) -> list[nodes.Node]:
        kind = self.name.lower().rpartition(":")[2]
        if kind in ("module", "currentmodule") and self.arguments:
            context().module = None if self.argument() == "None" else self.argument()
        return []


class _Code(_Generic):
    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        block = nodes.literal_block(code, code)
        language = self.argument()
        kind = self.name.lower()
        block["language"] = language or ("python" if kind in ("doctest", "testcode", "ipython") else "")
        self.located(block)
        block.line = block.line + 1 if block.line else None  # the code starts below the directive
        return [block] if code.strip() else []


class _Container(_Generic):
    def run(self) -> list[nodes.Node]:
        node = nodes.container()
        if self.argument():
            node += self.text(self.argument())
        return [self.parsed(node)]


class _Content(_Generic):
    """Its content only: the argument is a condition or an option (``only:: html``, ``tabs``)."""

    def run(self) -> list[nodes.Node]:
        return [self.parsed(nodes.container())]


class _Admonition(_Generic):
    """``note`` and the others take no argument: their first line is content."""

    optional_arguments = 0

    def run(self) -> list[nodes.Node]:
        node = labelled()
        node["label"] = _ADMONITIONS.get(self.name.lower().rpartition(":")[2], "Note")
        node["quoted"] = True
        return [self.parsed(node)]


class _TitledAdmonition(_Generic):
    """``admonition:: Title`` and ``seealso:: text``."""

    def run(self) -> list[nodes.Node]:
        node = labelled()
        kind = self.name.lower().rpartition(":")[2]
        node["quoted"] = True
        if kind == "admonition":
            node["label"] = self.argument()
        else:
            node["label"] = _ADMONITIONS.get(kind, kind.capitalize())
            if self.argument():
                node += self.text(self.argument())
        return [self.parsed(node)]


class _Version(_Generic):
    """``versionadded:: 2.0 text``: "Added in version 2.0", then the text and content."""

    def run(self) -> list[nodes.Node]:
        version, _, rest = self.argument().partition(" ")
        node = labelled()
        node["label"] = f"{_VERSIONS[self.name.lower().rpartition(':')[2]]} {version}".strip()
        node["quoted"] = True
        if rest:
            node += self.text(rest)
        return [self.parsed(node)]


class _Tab(_Generic):
    """A tab: its title as a label line; ``code-tab:: python``'s content is code."""

    def run(self) -> list[nodes.Node]:
        node = labelled()
        node["label"], node["quoted"] = self.argument(), False
        if self.name.lower().endswith("code-tab"):
            code = "\n".join(self.content)
            block = nodes.literal_block(code, code)
            block["language"] = self.argument().split(" ")[0].lower()
            node += block
            return [self.located(node)]
        return [self.parsed(node)]


class _Description(_Generic):
    """``py:function:: name(args)`` (one signature a line), then the content."""

    def run(self) -> list[nodes.Node]:
        node = description()
        signatures = self.arguments[0].split("\n") if self.arguments else []
        node["signatures"] = [" ".join(s.split()).rstrip("\\").strip() for s in signatures if s.strip()]
        return [self.parsed(node)]


def _role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: dict[str, Any] | None = None,
    content: list[str] | None = None,
) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """Any role: its text, as code for the roles naming code objects and files."""
    kind = name.lower().rpartition(":")[2]
    shown = _titled(kind, utils.unescape(text)) or role_text(kind, utils.unescape(text))
    code = kind in _CODE_ROLES or (":" in name and kind not in _TEXT_ROLES)
    return [nodes.literal(rawtext, shown) if code else nodes.Text(shown)], []


def _titled(kind: str, text: str) -> str | None:
    """The title a ``:ref:`label``` or ``:doc:`page``` without text of its own shows, if known."""
    if kind not in ("ref", "doc") or _TITLED.match(text):
        return None
    ctx = context()
    return ctx.titles.label(text) if kind == "ref" else ctx.titles.page(text, ctx.path)


def role_text(kind: str, text: str) -> str:
    """What a role shows: the title of ``title <target>``, the last part of ``~a.b.c``, a ``:doc:``
    path without its leading slash, "PEP 8" for ``:pep:`8```."""
    titled = _TITLED.match(text)
    if titled is not None and titled.group(1).strip():
        return " ".join(titled.group(1).split())
    if titled is not None:
        text = titled.group(2)
    text = text.lstrip("!")
    if text.startswith("~"):
        text = text[1:].rstrip("()").rpartition(".")[2] + ("()" if text.endswith("()") else "")
    text = text.lstrip(".")
    if kind == "doc":
        return text.lstrip("/")
    if kind == "ref":
        return text.replace("-", " ").replace("_", " ")
    if kind in ("pep", "rfc"):
        return f"{kind.upper()} {text}"
    if kind in ("issue", "pr") and text.isdigit():
        return f"#{text}"
    return text
