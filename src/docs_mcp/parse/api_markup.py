"""An API object's signature and docstring sections as lines of markup (markdown or reStructuredText).

The lines go into the page where its stub stood, in the page's own markup: a docstring written in
reStructuredText (Sphinx style, ``:class:`Flask``` roles, ``.. versionchanged::``) is read by the
reStructuredText reader with the rest of the page, a Google-style docstring of a mkdocs site by the
markdown one. Sections come from griffe's docstring parsers (Google, NumPy, Sphinx).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any, Literal

__all__ = ["Markup", "code_block", "docstring_lines", "inline_code", "signature_lines"]

Markup = Literal["markdown", "rst"]
_WRAP_AT = 88  # a longer signature is written one parameter a line
_TITLES = {
    "parameters": "Parameters",
    "other parameters": "Other parameters",
    "attributes": "Attributes",
    "returns": "Returns",
    "yields": "Yields",
    "receives": "Receives",
    "raises": "Raises",
    "warns": "Warns",
    "functions": "Functions",
    "classes": "Classes",
    "modules": "Modules",
    "type parameters": "Type parameters",
    "type aliases": "Type aliases",
}


def inline_code(text: str, markup: Markup) -> str:
    """``text`` as inline code."""
    text = " ".join(text.split())
    if markup == "rst":
        return f"``{text}``" if text and "``" not in text else text
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}" if text else ""


def code_block(lines: Sequence[str], markup: Markup, language: str = "python") -> list[str]:
    """A code block of ``lines``, with a blank line after it."""
    if markup == "rst":
        return [f".. code-block:: {language}", "", *(f"   {line}" if line else "" for line in lines), ""]
    fence = "```"
    while any(line.lstrip().startswith(fence) for line in lines):
        fence += "`"
    return [f"{fence}{language}", *lines, fence, ""]


def signature_lines(obj: Any, markup: Markup) -> list[str]:
    """The object's signature as a code block (functions, classes, attributes); [] for a module."""
    kind = str(obj.kind.value)
    if kind == "module":
        return []
    if kind == "attribute":
        text = obj.name
        if obj.annotation is not None:
            text += f": {obj.annotation}"
        if obj.value is not None and len(str(obj.value)) <= _WRAP_AT:
            text += f" = {obj.value}"
        return code_block([text], markup)
    parameters = _parameters(obj)
    if parameters is None or (kind == "class" and not parameters):
        return code_block([f"class {obj.name}"] if kind == "class" else [obj.name], markup)
    prefix = "class " if kind == "class" else "async def " if "async" in obj.labels else "def "
    returns = f" -> {obj.returns}" if kind != "class" and getattr(obj, "returns", None) is not None else ""
    one_line = f"{prefix}{obj.name}({', '.join(parameters)}){returns}"
    if len(one_line) <= _WRAP_AT:
        return code_block([one_line], markup)
    return code_block([f"{prefix}{obj.name}(", *(f"    {p}," for p in parameters), f"){returns}"], markup)


def _parameters(obj: Any) -> list[str] | None:
    """The parameters as written (``self``/``cls`` left out), or None when unknown."""
    try:
        parameters = list(obj.parameters)
    except (AttributeError, ValueError, KeyError):
        return None
    written: list[str] = []
    keyword_only_marked = False
    for index, parameter in enumerate(parameters):
        kind = str(parameter.kind.value)
        if index == 0 and parameter.name in ("self", "cls"):
            continue
        text = parameter.name
        if kind == "variadic positional":
            text, keyword_only_marked = "*" + text, True
        elif kind == "variadic keyword":
            text = "**" + text
        elif kind == "keyword-only" and not keyword_only_marked:
            written.append("*")
            keyword_only_marked = True
        if parameter.annotation is not None:
            text += f": {parameter.annotation}"
        if parameter.default is not None and kind not in ("variadic positional", "variadic keyword"):
            text += f" = {parameter.default}" if parameter.annotation is not None else f"={parameter.default}"
        written.append(text)
        if kind == "positional-only" and (
            index + 1 == len(parameters) or str(parameters[index + 1].kind.value) != "positional-only"
        ):
            written.append("/")
    return written


def docstring_lines(sections: Sequence[Any], markup: Markup) -> list[str]:
    """The docstring's sections: text as written, parameters/returns/raises as labelled lists."""
    lines: list[str] = []
    for section in sections:
        kind = str(section.kind.value)
        if kind == "text":
            text = str(section.value).strip("\n").split("\n")
            lines.extend([*(_rst_as_markdown(text) if markup == "markdown" else _fences_as_rst(text)), ""])
        elif kind == "examples":
            for sub_kind, text in section.value:
                body = str(text).strip("\n").split("\n")
                lines.extend(code_block(body, markup) if str(sub_kind.value) == "examples" else [*body, ""])
        elif kind == "admonition":
            title = (section.title or section.value.annotation or "Note").strip()
            lines.extend([f"**{title}:**", "", *_description(section.value.description), ""])
        elif kind == "deprecated":
            version = f" ({section.value.version})" if getattr(section.value, "version", None) else ""
            lines.extend([f"**Deprecated{version}:** {section.value.description}".rstrip(), ""])
        elif kind in _TITLES:
            lines.extend(_listed(_TITLES[kind], section.value, markup))
    return lines


_RST_CODE = re.compile(r"^(\s*)\.\.\s+(?:code-block|sourcecode|code)::\s*([\w+-]*)\s*$")
_RST_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:-]+)::\s*(.*)$")
_RST_ROLE = re.compile(r":[\w:+.-]+:`~?\.?([^`<]*?)(?:\s*<[^`>]*>)?`")
_RST_LABELS = {"versionadded": "Added in version", "versionchanged": "Changed in version"}


def _rst_as_markdown(lines: list[str]) -> list[str]:
    """reStructuredText left in a markdown site's docstring, as markdown: ``.. code-block::``
    blocks as fenced code, other directives as a label line, roles as inline code."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        found = _RST_CODE.match(lines[index])
        index += 1
        if found is None:
            line = _RST_ROLE.sub(lambda m: f"`{m.group(1)}`", lines[index - 1])
            directive = _RST_DIRECTIVE.match(line)
            if directive is not None:
                name = directive.group(2).rpartition(":")[2]
                label = _RST_LABELS.get(name, name.replace("-", " ").capitalize())
                line = f"{directive.group(1)}{label} {directive.group(3)}".rstrip() + ":"
            out.append(line)
            continue
        indent = len(found.group(1))
        body: list[str] = []
        while index < len(lines) and (not lines[index].strip() or _indent(lines[index]) > indent):
            body.append(lines[index])
            index += 1
        while body and not body[-1].strip():
            body.pop()
        dedented = textwrap.dedent("\n".join(body)).strip("\n").split("\n")
        out.extend(code_block(dedented, "markdown", found.group(2) or "python")[:-1])
        out.append("")
    return out


_MARKDOWN_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")


def _fences_as_rst(lines: list[str]) -> list[str]:
    """A reStructuredText docstring's markdown code fences (docstrings mix them) as code blocks."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        found = _MARKDOWN_FENCE.match(lines[index])
        index += 1
        if found is None or (index > 1 and lines[index - 2].strip()):  # ``~~~`` under a title: a title
            out.append(lines[index - 1])
            continue
        body: list[str] = []
        while index < len(lines) and not lines[index].strip().startswith(found.group(2)):
            body.append(lines[index])
            index += 1
        index += 1
        dedented = textwrap.dedent("\n".join(body)).split("\n")
        block = code_block(dedented, "rst", found.group(3) or "python")
        out.extend(found.group(1) + line if line else "" for line in block)
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _listed(title: str, items: Sequence[Any], markup: Markup) -> list[str]:
    if not items:
        return []
    lines = [f"**{title}:**", ""]
    for item in items:
        name = getattr(item, "name", "") or ""
        annotation = getattr(item, "annotation", None)
        label = inline_code(name, markup) if name else ""
        if annotation is not None and str(annotation):
            typed = inline_code(str(annotation), markup)
            label = f"{label} ({typed})" if label else typed
        default = getattr(item, "value", None) if title in ("Parameters", "Other parameters") else None
        if default is not None:
            label += f", default {inline_code(str(default), markup)}"
        description = _description(getattr(item, "description", "") or "")
        if markup == "markdown":
            description = _rst_as_markdown(description)
        first = f"- {label}: {description[0]}" if label and description[0] else f"- {label or description[0]}"
        lines.append(first.rstrip())
        lines.extend(f"  {line}" if line else "" for line in description[1:])
    return [*lines, ""]


def _description(text: str) -> list[str]:
    """A description's lines: its first paragraph's continuation lines unindented (docstrings
    indent them under the field name), the rest dedented as a whole."""
    lines = str(text).strip("\n").split("\n")
    blank = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    rest = textwrap.dedent("\n".join(lines[blank:])).split("\n") if blank < len(lines) else []
    return [lines[0].strip(), *(line.strip() for line in lines[1:blank]), *rest]
