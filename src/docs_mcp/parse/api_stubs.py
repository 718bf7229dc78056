"""mkdocstrings ``::: pkg.mod.Name`` stubs (and mkautodoc's) in a markdown page -> the API reference.

Each ``::: target`` line outside code, with its indented options block (mkdocstrings' YAML
``options:`` mapping: ``members``, ``inherited_members``, ``show_root_heading``, ``heading_level``,
...; mkautodoc's ``:docstring:`` / ``:members:`` lines), is replaced by the entry ``pyapi.py`` reads
from source: headings for the objects (the root's only when ``show_root_heading``), each with its
dotted path as explicit id (mkdocstrings' anchors), signatures, docstring sections, members. Every
line written for a stub carries the stub's line (``Expanded.origins``). A stub that cannot be
resolved stays as it is (the site syntax reader drops it) and is reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from docs_mcp.parse.api_markup import Markup, inline_code
from docs_mcp.parse.pyapi import ApiEntry, ApiOptions
from docs_mcp.parse.site_syntax import SyntaxNote

__all__ = ["API_UNRESOLVED_RULE", "Expanded", "expand_api_stubs", "one_unresolved_note"]

API_UNRESOLVED_RULE = "api-unresolved"
_STUB = re.compile(r"^(\s{0,3}):::\s+([\w.:-]+)\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s")
_MKAUTODOC_OPTION = re.compile(r"^\s+:(\w+):\s*$")
# (target, options, markup, current module) -> the entry, or None and why not.
Lookup = Callable[[str, ApiOptions, Markup, "str | None"], tuple[ApiEntry | None, str | None]]


@dataclass
class Expanded:
    """The page with its stubs replaced; ``origins[i]`` is the source line of output line i + 1."""

    text: str
    origins: list[int]
    notes: list[SyntaxNote] = field(default_factory=list)
    heading_ids: dict[int, str] = field(default_factory=dict)  # output line -> the object's anchor
    resolved: int = 0
    unresolved: int = 0


def expand_api_stubs(source: str, lookup: Lookup, defaults: Mapping[str, Any] | None = None) -> Expanded:
    """``source`` with every resolvable stub replaced (see the module docstring). ``defaults``: the
    handler's options from the site config (mkdocstrings ``options``), under each stub's own.
    Raises nothing."""
    lines = source.split("\n")
    out = Expanded("", [])
    written: list[str] = []
    fence: str | None = None
    level = 0  # the last heading's level
    index = 0
    while index < len(lines):
        line, number = lines[index], index + 1
        index += 1
        if fence is None and (opened := _FENCE.match(line)) is not None:
            fence = opened.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        stub = _STUB.match(line) if fence is None else None
        if stub is None:
            if fence is None and (heading := _HEADING.match(line)) is not None:
                level = len(heading.group(1))
            written.append(line)
            out.origins.append(number)
            continue
        block_end = _options_end(lines, index)
        options = {**(defaults or {}), **_options(lines[index:block_end])}
        entry, problem = lookup(stub.group(2), _api_options(options), "markdown", None)
        if entry is None:
            out.unresolved += 1
            out.notes.append(
                SyntaxNote(number, API_UNRESOLVED_RULE, f"::: {stub.group(2)}: {problem}; not indexed")
            )
            written.append(line)
            out.origins.append(number)
            continue
        out.resolved += 1
        index = block_end
        start = _int(options.get("heading_level"), level + 1)
        show_root = options.get("show_root_heading") is True
        for text in _entry_lines(entry, start, show_root, out, len(written)):
            written.append(text)
            out.origins.append(number)
    out.text = "\n".join(written)
    out.notes = one_unresolved_note(out.notes)
    return out


def one_unresolved_note(notes: list[SyntaxNote]) -> list[SyntaxNote]:
    """``notes`` with its ``api-unresolved`` notes made one (on the first one's line, with their
    count): a page of stubs over a package not in the folder says so once, not once a stub."""
    unresolved = [note for note in notes if note.rule == API_UNRESOLVED_RULE]
    if len(unresolved) < 2:
        return notes
    first = unresolved[0]
    merged = SyntaxNote(
        first.line,
        first.rule,
        f"{len(unresolved)} API references could not be resolved, the first {first.message}",
    )
    return [merged, *(note for note in notes if note.rule != API_UNRESOLVED_RULE)]


def _options_end(lines: list[str], index: int) -> int:
    """The index after the stub's indented options block (blank lines inside it included)."""
    end = index
    probe = index
    while probe < len(lines) and (not lines[probe].strip() or lines[probe][:1] in (" ", "\t")):
        if lines[probe].strip():
            end = probe + 1
        probe += 1
    return end


def _options(block: list[str]) -> dict[str, Any]:
    """The stub's options: mkdocstrings' ``options:`` YAML, or mkautodoc's ``:members:`` lines."""
    flags = [m.group(1) for line in block if (m := _MKAUTODOC_OPTION.match(line))]
    if flags:
        return {"members": "members" in flags} if "docstring" in flags or "members" in flags else {}
    text = "\n".join(block)
    try:
        data = yaml.safe_load(_dedent(text)) if text.strip() else None
    except yaml.YAMLError:
        return {}
    if isinstance(data, dict) and isinstance(data.get("options"), dict):
        return dict(data["options"])
    return {}


def _dedent(text: str) -> str:
    lines = text.split("\n")
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[indent:] for line in lines)


def _api_options(options: Mapping[str, Any]) -> ApiOptions:
    members = options.get("members")
    listed: tuple[str, ...] | bool | None = None
    if isinstance(members, list):
        listed = tuple(str(name) for name in members)
    elif isinstance(members, bool):
        listed = members
    return ApiOptions(
        members=listed,
        inherited=options.get("inherited_members") is True,
        undocumented=options.get("show_if_no_docstring") is True,
        submodules=options.get("show_submodules") is True,
    )


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and 1 <= value <= 6 else min(max(default, 1), 6)


def _entry_lines(entry: ApiEntry, level: int, heading: bool, out: Expanded, offset: int) -> list[str]:
    """The entry in markdown: its heading (if shown), body, then its members one level deeper."""
    lines: list[str] = []
    if heading:
        out.heading_ids[offset + len(lines) + 1] = entry.anchor
        lines.extend([f"{'#' * min(level, 6)} {inline_code(entry.name, 'markdown')}", ""])
    lines.extend(entry.body)
    child_level = level + 1 if heading else level
    for child in entry.children:
        if lines and lines[-1]:
            lines.append("")
        lines.extend(_entry_lines(child, child_level, True, out, offset + len(lines)))
    return lines
