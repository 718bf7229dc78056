"""Site generators' syntax inside a line: what ``site_syntax`` rewrites in text lines and code lines,
and the scan for generator markers left over (validate's ``unknown-site-syntax`` findings).

Each rewrite keeps what a reader of the rendered page sees: a cross-reference ``[text][pkg.Name]``
keeps ``text``, a MyST role ``{ref}`text <target>``` keeps ``text``, a JSX component keeps its children,
an attribute list ``{#id .class}`` and a code annotation ``# (1)!`` go, a macro ``{{ name }}`` becomes
its value from the site's variables (or goes, reported). Inline code spans are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Mapping
from typing import Any

__all__ = [
    "CODE_SPAN",
    "clean_code_line",
    "heading_attributes",
    "leftover_markers",
    "macro_value",
    "outside_code_spans",
    "rewrite_text_line",
    "strip_components",
]

CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
# ``{#id}``, ``{ .class }``, ``{ #id .class key="v" }`` at the end of a heading (attr_list, Docusaurus, MyST);
# matched from the heading's last ``{`` only (a leading ``\s*`` searched over a long line is quadratic)
_ATTRIBUTES = re.compile(
    r"\s*\{\s*(?:[#.][\w:.-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|\S+))(?:\s+(?:[#.][\w:.-]+|[\w-]+=(?:\"[^\"]*\"|'[^']*'|\S+)))*\s*\}\s*$"
)
_ANCHOR = re.compile(r"\[\]\(\)\{[^{}\n]*\}")  # mkdocs autorefs' empty anchor ``[](){#id}``
# Nextra's custom heading id, ``## Long heading [#short-id]``, a space before it or none, as Nextra's
# remark plugin takes it (matched from the heading's last ``[#``)
_BRACKET_ID = re.compile(r"\s*\[#([\w:.-]+)\]\s*$")
_INLINE_ATTRIBUTES = re.compile(r"(?<=[\])`*_])\{\s*[.#:][^{}\n]*\}")  # ``[link](x){ .md-button }``
# ``[text][target]`` or ``[target][]`` whose target is no link reference of the page: an autorefs link
_CROSS_REF = re.compile(r"(?<![\]\\!])\[((?:[^\[\]\n]|\[[^\[\]\n]*\])+)\]\[([^\[\]\n]*)\]")
_ROLE = re.compile(r"\{([\w:+-]+)\}(`+)(.+?)\2")
_ROLE_TITLE = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)
_MACRO = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")
_STATEMENT = re.compile(r"\{%-?.*?-?%\}")
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}")
_JSX_ATTRIBUTE = re.compile(r"\s[\w-]+=\{(?:[^{}]|\{[^{}]*\})*\}")  # ``style={{margin: 0}}``
_JSX_TAG = re.compile(r"</?[A-Z][\w.]*(?:\s+[^<>]*?)?/?>")
# Matched at the end of the right-stripped line (see ``clean_code_line``).
_ANNOTATION = re.compile(r"(?:#|//|--|;|%|/\*|<!--|\{/\*) ?\(\d+\)!?(?: ?(?:\*/|-->|\*/\}))?$")
_VARIABLE = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*|\[['\"]?\w+['\"]?\])*$")

Report = Callable[[str, str], None]  # (rule, message)


def outside_code_spans(line: str, rewrite: Callable[[str], str]) -> str:
    """``line`` with ``rewrite`` applied to every part outside its inline code spans."""
    if "`" not in line:
        return rewrite(line)
    out: list[str] = []
    position = 0
    for match in CODE_SPAN.finditer(line):
        out.append(rewrite(line[position : match.start()]))
        out.append(match.group(0))
        position = match.end()
    out.append(rewrite(line[position:]))
    return "".join(out)


def heading_attributes(heading: str) -> tuple[str, str | None]:
    """``heading`` without a trailing attribute list (``{#id .class}``) or Nextra id (``[#id]``), and
    its ``#id`` if it had one."""
    start = heading.rfind("{")
    match = _ATTRIBUTES.fullmatch(heading, start) if start >= 0 else None
    if match is None:
        bracket = heading.rfind("[#")
        found_id = _BRACKET_ID.search(heading, bracket - 1) if bracket > 0 else None
        if found_id is not None and heading[: found_id.start()].strip(" #"):
            return heading[: found_id.start()].rstrip(), found_id.group(1)
        return heading, None
    found = re.search(r"#([\w:.-]+)", match.group(0))
    return heading[:start].rstrip(), found.group(1) if found else None


def _up_to_last(
    pattern: re.Pattern[str], closer: str, text: str, replace: Callable[[re.Match[str]], str]
) -> str:
    """``pattern.sub(replace, text)`` for matches that end with ``closer``, scanning nothing past the
    last ``closer``: an opener never closed would otherwise scan to the end of the text once per
    opener (quadratic)."""
    end = text.rfind(closer)
    if end < 0:
        return text
    end += len(closer)
    return pattern.sub(replace, text[:end]) + text[end:]


def macro_value(expression: str, variables: Mapping[str, Any]) -> str | None:
    """The value of a Jinja variable expression (``version``, ``config.extra.x``, ``a.b``), or None."""
    if not _VARIABLE.match(expression):
        return None
    parts = re.findall(r"\w+", expression)
    value: Any = variables
    if parts and parts[0] == "config" and len(parts) > 2 and parts[1] == "extra":
        parts = parts[2:]
    for part in parts:
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        else:
            return None
    return None if isinstance(value, Mapping | list) else str(value)


def rewrite_text_line(
    line: str,
    references: Container[str],
    variables: Mapping[str, Any] | None,
    mdx: bool,
    report: Report,
    roles: bool = True,
) -> str:
    """A line of text (not code) as the rendered page reads: cross-references, roles, attribute
    lists, anchors, MDX comments and JSX tags, and (``variables`` given: the site renders macros)
    ``{{ macros }}`` and ``{% statements %}``."""

    def rewrite(part: str) -> str:
        if variables is not None and "{" in part:
            part = _up_to_last(_STATEMENT, "%}", part, lambda m: _unresolved(m.group(0), report))
            part = _up_to_last(_MACRO, "}}", part, lambda m: _macro(m, variables, report))
        if mdx:
            part = _up_to_last(_MDX_COMMENT, "*/}", part, lambda m: "")
            part = _JSX_TAG.sub("", _JSX_ATTRIBUTE.sub("", part))
        if "{" in part:
            part = _INLINE_ATTRIBUTES.sub("", _ANCHOR.sub("", part))
        return part

    line = outside_code_spans(line, rewrite)
    if "][" in line:  # on the whole line: the text of a cross-reference is often a code span
        line = _CROSS_REF.sub(lambda m: _cross_ref(m, references), line)
    if roles and "}`" in line:
        line = _up_to_last(_ROLE, "`", line, _role)
    return line


def strip_components(line: str) -> str:
    """``line`` without its component tags (JSX, Vue), code spans inside attributes included."""
    return _JSX_TAG.sub("", _JSX_ATTRIBUTE.sub("", line)) if "<" in line else line


def _macro(match: re.Match[str], variables: Mapping[str, Any], report: Report) -> str:
    value = macro_value(match.group(1), variables)
    return value if value is not None else _unresolved(match.group(0), report)


def _unresolved(macro: str, report: Report) -> str:
    report(
        "unresolved-macro",
        f"macro {macro!r} has no value in the site config's extra: variables; dropped from the index "
        "(add it to extra:, or to the docs manifest's site.variables)",
    )
    return ""


def _cross_ref(match: re.Match[str], references: Container[str]) -> str:
    text, target = match.group(1), match.group(2)
    label = _label(target or text)
    if label in references:
        return match.group(0)  # a real reference link: markdown renders it
    return text


def _label(text: str) -> str:
    """A link label normalised as CommonMark matches them (case-folded, blank runs collapsed)."""
    return " ".join(text.split()).casefold()


def _role(match: re.Match[str]) -> str:
    content = match.group(3)
    titled = _ROLE_TITLE.match(content)
    if titled and titled.group(1):
        return titled.group(1)
    text = titled.group(2) if titled else content
    if match.group(1).startswith(("py:", "meth", "func", "class", "attr", "mod", "obj", "exc", "data")):
        text = text.lstrip("~!").rpartition(".")[2] if text.startswith("~") else text.lstrip("!")
    return f"`{text}`" if match.group(1) not in ("ref", "doc", "term", "abbr", "sub", "sup") else text


def clean_code_line(line: str, annotations: bool, variables: Mapping[str, Any] | None) -> str:
    """A line of code without a code annotation marker (``# (1)!``, mkdocs-material) and with the
    site's known macros resolved (unknown ones stay: code may be a Jinja template itself)."""
    if annotations and ")" in line:
        stripped = line.rstrip()
        match = _ANNOTATION.search(stripped, max(0, len(stripped) - 20))
        if match is not None:
            line = stripped[: match.start()].rstrip()
    if variables and "{{" in line:
        line = _up_to_last(_MACRO, "}}", line, lambda m: macro_value(m.group(1), variables) or m.group(0))
    return line


# Generator markers that must not be left in indexed text (outside code): validate reports them.
_LEFTOVER: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("admonition", re.compile(r"^\s*(?:!!!|\?\?\?\+?)\s")),
    ("directive", re.compile(r"^\s*:{3,}")),
    ("block", re.compile(r"^\s*/{3,}\s*(?:[\w-]+(?:\s*\|.*)?)?\s*$")),
    ("content tab", re.compile(r'^\s*===\+?\s+"')),
    ("macro", re.compile(r"\{\{[^{}]*\}\}|\{%[^%]*%\}")),
    ("snippet include", re.compile(r"^\s*-{1,2}8<-{1,2}")),
    ("source include", re.compile(r"\{\*[^*]*\*\}|\{![^!]*!\}")),
    ("MyST target", re.compile(r"^\s*\([\w.:-]+\)=\s*$")),
    ("MyST role", re.compile(r"\{[\w:+-]+\}`")),
    ("attribute list", re.compile(r"^#{1,6}\s.*\{\s*[#.][^{}]*\}\s*$")),
)
_MDX_LEFTOVER: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("MDX import/export", re.compile(r"^(?:import|export)\s")),
)


def leftover_markers(line: str, mdx: bool) -> str | None:
    """The kind of generator marker in a text line (code spans aside), or None."""
    bare = CODE_SPAN.sub("", line)
    for kind, pattern in (*_LEFTOVER, *(_MDX_LEFTOVER if mdx else ())):
        if pattern.search(bare):
            return kind
    return None
