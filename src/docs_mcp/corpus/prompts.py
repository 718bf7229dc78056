"""Prompt templates of a docs folder (``*.template.md``): read, checked, never indexed as docs.

A template is YAML front matter naming the prompt and its arguments, then the prompt's markdown, in
which ``{{name}}`` stands for an argument (the shape of the TypeScript reference)::

    ---
    name: migrate-sdk
    description: Plan a migration from one SDK version to another
    arguments:
      - name: from_version
        description: The version in use now
        required: true
      - name: to_version
        description: The version to move to
    ---
    Using the docs, list what changes between {{from_version}} and {{to_version}}...

Each problem is a finding with the file and line: no or malformed front matter, a missing or bad
name or description, an argument without a name or declared twice, a placeholder naming no declared
argument, and two templates of one name (the second file is reported).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from docs_mcp.errors import Finding
from docs_mcp.parse.safe_yaml import YamlProblem, load_yaml
from docs_mcp.prompt_templates import PLACEHOLDER, PROMPT_NAME, PromptArgument, PromptTemplate

__all__ = ["TEMPLATE_SUFFIX", "is_template", "read_templates"]

TEMPLATE_SUFFIX = ".template.md"
RULE = "prompt-template"
_FENCE = "---"
_UNDECLARED_SHOWN = 20  # findings for undeclared placeholders, then one line counting the rest


def is_template(name: str) -> bool:
    """A prompt template's file name: ``*.template.md``, not hidden."""
    return not name.startswith(".") and name.endswith(TEMPLATE_SUFFIX)


def read_templates(
    paths: Sequence[str], read: Callable[[str, list[Finding]], str | None]
) -> tuple[list[PromptTemplate], list[Finding]]:
    """The valid templates of ``paths`` (in path order; ``read`` gives a file's text or None after a
    finding) and every finding about them."""
    findings: list[Finding] = []
    templates: list[PromptTemplate] = []
    seen: dict[str, str] = {}
    for path in sorted(paths):
        text = read(path, findings)
        if text is None:
            continue
        template, problems = parse_template(path, text)
        findings += problems
        if template is None:
            continue
        if template.name in seen:
            findings.append(
                Finding(
                    path,
                    2,
                    "error",
                    f"prompt name {template.name!r} is already used by {seen[template.name]}; give each "
                    "template its own name",
                    RULE,
                )
            )
            continue
        seen[template.name] = path
        templates.append(template)
    return templates, findings


def parse_template(path: str, text: str) -> tuple[PromptTemplate | None, list[Finding]]:
    """One template, or None with the findings that say why it cannot be served."""

    def error(line: int, message: str) -> Finding:
        return Finding(path, line, "error", message, RULE)

    lines = text.split("\n")
    if not lines or lines[0].strip() != _FENCE:
        return None, [
            error(1, "a prompt template starts with front matter (---, name, description, arguments, ---)")
        ]
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == _FENCE), None)
    if end is None:
        return None, [error(1, "the front matter is not closed: end it with a line '---'")]
    try:
        data, node = load_yaml("\n".join(lines[1:end]))
    except YamlProblem as problem:
        return None, [error(problem.line + 2, f"front matter is not valid YAML: {problem.message}")]
    if not isinstance(data, dict):
        return None, [error(2, "the front matter must be a mapping with name, description and arguments")]
    lines_of = _key_lines(node)
    findings: list[Finding] = []
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not PROMPT_NAME.fullmatch(name):
        findings.append(
            error(
                lines_of.get("name", 2),
                f"name {name!r} must be lower-case letters, digits, '_' or '-' "
                "(at most 64 characters), e.g. name: migrate-sdk",
            )
        )
    if not isinstance(description, str) or not description.strip():
        findings.append(
            error(
                lines_of.get("description", 2), "description must be a sentence saying what the prompt does"
            )
        )
    arguments = _arguments(data.get("arguments", []), lines_of.get("arguments", 2), error, findings)
    for key in sorted(set(data) - {"name", "description", "arguments"}):
        findings.append(
            Finding(
                path,
                lines_of.get(str(key), 2),
                "warning",
                f"unknown front matter key {key!r} (ignored)",
                RULE,
            )
        )
    start = end + 1
    while start < len(lines) and not lines[start].strip():
        start += 1  # the body starts at its first non-blank line
    body = "\n".join(lines[start:]).rstrip()
    declared = {argument.name for argument in arguments}
    line, counted, undeclared = start + 1, 0, 0
    for match in PLACEHOLDER.finditer(body):
        if match[1] in declared:
            continue
        undeclared += 1
        if undeclared > _UNDECLARED_SHOWN:
            continue
        line += body.count("\n", counted, match.start())  # from the last one: linear in the body
        counted = match.start()
        findings.append(
            error(
                line,
                f"{{{{{match[1]}}}}} names no argument of this prompt: declare it under "
                "arguments or fix the name",
            )
        )
    if undeclared > _UNDECLARED_SHOWN:
        findings.append(
            error(line, f"and {undeclared - _UNDECLARED_SHOWN:,} more placeholders that name no argument")
        )
    if not body.strip():
        findings.append(error(end + 1, "the prompt has no text after its front matter"))
    if any(f.severity == "error" for f in findings):
        return None, findings
    assert isinstance(name, str) and isinstance(description, str)
    return PromptTemplate(name, description.strip(), body, path, tuple(arguments)), findings


def _arguments(
    value: object, line: int, error: Callable[[int, str], Finding], findings: list[Finding]
) -> list[PromptArgument]:
    if not isinstance(value, list):
        findings.append(error(line, "arguments must be a list of {name, description, required}"))
        return []
    arguments: list[PromptArgument] = []
    for entry in value:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not PROMPT_NAME.fullmatch(name):
            findings.append(
                error(line, f"argument {name!r} needs a name of lower-case letters, digits, '_' or '-'")
            )
            continue
        if any(argument.name == name for argument in arguments):
            findings.append(error(line, f"argument {name!r} is declared twice"))
            continue
        assert isinstance(entry, dict)
        description, required = entry.get("description", ""), entry.get("required", False)
        if not isinstance(description, str) or not isinstance(required, bool):
            findings.append(
                error(line, f"argument {name!r}: description must be text and required true or false")
            )
            continue
        arguments.append(PromptArgument(name, description.strip(), required))
    return arguments


def _key_lines(node: Any) -> dict[str, int]:
    """The file line (1-based, after the opening '---') of each top-level front matter key."""
    lines: dict[str, int] = {}
    for key, _value in getattr(node, "value", None) or []:
        if hasattr(key, "value") and hasattr(key, "start_mark"):
            lines[str(key.value)] = key.start_mark.line + 2
    return lines
