"""reStructuredText directives that bring text from elsewhere: includes and autodoc.

``include`` and ``literalinclude`` read the file through the page's include reader (the caller
confines it to the repository folder: a path escaping it is a finding, never read), with their
``start-line``/``end-line``/``start-after``/``end-before``/``lines`` options; an included
reStructuredText file is parsed in place. ``automodule``, ``autoclass``, ``autofunction`` (and the
other ``auto*``) are looked up in the Python source (``pyapi.py``): each object becomes an
``api_entry`` node, its docstring parsed as reStructuredText. What cannot be read or resolved is a
finding with the page's line, and leaves nothing behind.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList

from docs_mcp.parse.pyapi import ApiEntry, ApiOptions
from docs_mcp.parse.rst_context import api_entry, context, page_line
from docs_mcp.parse.site_include import MAX_INCLUDE_DEPTH, code_language

__all__ = ["ANY_OPTIONS", "AutoDoc", "Include", "LiteralInclude"]


class _AnyOptions(dict[str, Any]):
    """An option spec accepting every option (its value as written): Sphinx's options are many."""

    def __missing__(self, key: str) -> Any:
        return directives.unchanged


ANY_OPTIONS = _AnyOptions(class_=directives.unchanged)


def _register(text: str) -> None:
    """The directive and role names of ``text`` made known to docutils before it is parsed."""
    from docs_mcp.parse.rst_directives import register_names  # imported here: it imports this module

    register_names(text)


def _read(directive: Directive, target: str) -> tuple[str | None, int, str]:
    """The file's text (None after a finding), the page's line, and the file's path as read."""
    ctx = context()
    source, line = page_line(directive)
    depth = ctx.include_depth.get(source, 0)
    including = source.split("#include-")[0] if source != ctx.path else ctx.path
    if target.startswith("/"):  # Sphinx: relative to the docs folder
        target, including = target.lstrip("/"), "_"
    path = posixpath.normpath(posixpath.join(posixpath.dirname(including), target))
    if ctx.read_include is None:
        ctx.note(line, "include-missing", f"include {target!r}: the include reader is off; not indexed")
        return None, line, path
    if depth >= MAX_INCLUDE_DEPTH:
        message = f"include {target!r}: includes nested over {MAX_INCLUDE_DEPTH} deep; not indexed"
        ctx.note(line, "include-missing", message)
        return None, line, path
    text, problem = ctx.read_include(target, including)
    if text is None:
        rule = "include-outside" if problem and "outside" in problem else "include-missing"
        ctx.note(line, rule, f"include {target!r}: {problem}; not indexed")
    return text, line, path


def _selected(text: str, options: dict[str, Any]) -> list[str]:
    """The lines of an included file its options take."""
    lines = text.replace("\r\n", "\n").split("\n")
    if "start-line" in options or "end-line" in options:
        start = _int(options.get("start-line"), 0)
        end = _int(options.get("end-line"), len(lines))
        lines = lines[start:end]
    joined = "\n".join(lines)
    after, before = options.get("start-after"), options.get("end-before")
    if after and after in joined:
        joined = joined.split(after, 1)[1].split("\n", 1)[-1] if "\n" in joined.split(after, 1)[1] else ""
    if before and before in joined:
        joined = joined.split(before, 1)[0]
    lines = joined.split("\n")
    if options.get("lines"):
        lines = _pick(lines, str(options["lines"]))
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _int(value: Any, default: int) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return default


def _pick(lines: list[str], spec: str) -> list[str]:
    picked: list[str] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        if first.isdigit():
            end = int(last) if last.isdigit() else (len(lines) if "-" in part else int(first))
            picked.extend(lines[int(first) - 1 : end])
    return picked


def _literal(lines: list[str], language: str) -> nodes.literal_block:
    code = "\n".join(lines)
    block = nodes.literal_block(code, code)
    block["language"] = language
    return block


class Include(Directive):  # type: ignore[misc]  # docutils is untyped
    """``.. include:: file``: reStructuredText parsed in place (``:literal:``/``:code:``: code)."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = ANY_OPTIONS

    def run(self) -> list[nodes.Node]:
        target = self.arguments[0].strip().strip("<>")
        text, line, path = _read(self, target)
        if text is None:
            return []
        lines = _selected(text, self.options)
        if "literal" in self.options or "code" in self.options:
            return [_literal(lines, str(self.options.get("code") or "").strip())]
        ctx = context()
        source, _ = page_line(self)
        key = f"{path}#include-{len(ctx.include_lines) + 1}"
        ctx.include_lines[key] = line
        ctx.include_depth[key] = ctx.include_depth.get(source, 0) + 1
        _register("\n".join(lines))
        self.state_machine.insert_input(StringList(lines, key), key)
        return []


class LiteralInclude(Directive):  # type: ignore[misc]  # docutils is untyped
    """``.. literalinclude:: file``: the file (or the lines its options take) as code."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = ANY_OPTIONS

    def run(self) -> list[nodes.Node]:
        target = self.arguments[0].strip()
        text, _line, path = _read(self, target)
        if text is None:
            return []
        language = str(self.options.get("language") or code_language(path))
        return [_literal(_selected(text, self.options), language)]


_AUTODOC_KINDS = {
    "automodule": "module",
    "autoclass": "class",
    "autoexception": "class",
    "autofunction": "function",
    "autodecorator": "function",
    "automethod": "function",
    "autoattribute": "attribute",
    "autodata": "attribute",
    "autoproperty": "attribute",
}
_SIGNATURE = re.compile(r"^([\w.]+)")


class AutoDoc(Directive):  # type: ignore[misc]  # docutils is untyped
    """``.. autoclass:: Name`` and the other ``auto*``: the object read from source."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = ANY_OPTIONS
    has_content = True

    def run(self) -> list[nodes.Node]:
        ctx = context()
        _source, line = page_line(self)
        found = _SIGNATURE.match(self.arguments[0].strip())
        target = found.group(1) if found else self.arguments[0].strip()
        if ctx.api is None:
            ctx.api_missing += 1
            ctx.note(line, "api-unresolved", f"{self.name} {target!r}: no Python source to read it from")
            return []
        entry, problem = ctx.api(target, self._options(), "rst", ctx.module)
        if entry is None:
            ctx.api_missing += 1
            ctx.note(line, "api-unresolved", f"{self.name} {target!r}: {problem}; not indexed")
            return []
        ctx.api_objects += 1
        return [self._node(entry, line)]

    def _options(self) -> ApiOptions:
        options = self.options
        members: tuple[str, ...] | bool = False
        if "members" in options:
            listed = [name.strip() for name in str(options["members"] or "").split(",") if name.strip()]
            members = tuple(listed) if listed else True
        excluded = {name.strip() for name in str(options.get("exclude-members") or "").split(",")}
        return ApiOptions(
            members=members,
            inherited="inherited-members" in options,
            undocumented="undoc-members" in options,
            exclude=frozenset(name for name in excluded if name),
        )

    def _parse_with_titles(self, lines: StringList, holder: nodes.Element) -> None:
        """Parse a docstring where section titles are allowed (as Sphinx's autodoc does: a module
        docstring often starts with one), as sections under the entry."""
        memo = self.state.memo
        styles, level = memo.title_styles, memo.section_level
        memo.title_styles, memo.section_level = [], 0
        try:
            self.state.nested_parse(lines, 0, holder, match_titles=True)
        finally:
            memo.title_styles, memo.section_level = styles, level

    def _node(self, entry: ApiEntry, line: int) -> api_entry:
        node = api_entry()
        node["name"], node["anchor"], node["kind"] = entry.name, entry.anchor, entry.kind
        body = list(entry.body)
        _register("\n".join(body))
        if body:
            ctx = context()
            ctx.include_lines[entry.anchor] = line
            holder = nodes.container()
            module, ctx.module = ctx.module, entry.anchor if entry.kind == "module" else ctx.module
            try:  # a module's docstring may hold autodoc directives naming its own members
                self._parse_with_titles(StringList(body, entry.anchor), holder)
            finally:
                ctx.module = module
            node.extend(holder.children)
        node.extend(self._node(child, line) for child in entry.children)
        return node
