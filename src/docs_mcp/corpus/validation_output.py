"""How a :class:`ValidationReport` is shown: every output format of ``docs-mcp validate`` in one place.

``text``: one ``path:line: severity: message [rule]`` line per finding (no path for a summary
finding, which ``verbose`` follows with every file it stands for, one indented line each); the
one-line summary goes to standard error. ``json``: the report's JSON object. ``github``: one GitHub
Actions workflow command per finding (``::error file=F,line=N,title=RULE::message``), which the
runner turns into an annotation on that file and line; ``F`` is relative to the workspace root.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.corpus.findings import SummaryFinding
from docs_mcp.corpus.validation import ValidationReport
from docs_mcp.errors import Finding


@dataclass(frozen=True)
class OutputOptions:
    """What a format may need besides the report: ``verbose`` (list a summary's files), and for
    ``github`` the docs folder the finding paths are relative to and the root annotation paths are
    relative to (the repository checkout, ``$GITHUB_WORKSPACE``)."""

    verbose: bool = False
    docs_dir: Path = field(default_factory=Path)
    root: Path = field(default_factory=Path)


def format_finding(finding: Finding) -> str:
    """``path:line: severity: message [rule]``; a summary finding has no path."""
    if isinstance(finding, SummaryFinding):
        return f"{finding.severity}: {finding.message} [{finding.rule}]"
    return finding.format()


def _ordered(report: ValidationReport) -> list[Finding]:
    """Per-file findings in path order, then summary findings."""
    per_file = [f for f in report.findings if not isinstance(f, SummaryFinding)]
    return per_file + [f for f in report.findings if isinstance(f, SummaryFinding)]


def text(report: ValidationReport, options: OutputOptions) -> str:
    """Per-file findings in path order, then summary findings (with their files when ``verbose``)."""
    lines: list[str] = []
    for finding in _ordered(report):
        lines.append(format_finding(finding))
        if options.verbose and isinstance(finding, SummaryFinding):
            lines.extend(f"  {path}" for path in finding.paths)
    return "".join(line + "\n" for line in lines)


def json_text(report: ValidationReport, options: OutputOptions) -> str:
    """The report as one indented JSON object (summary findings always list every path)."""
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def escape_data(value: str) -> str:
    """A workflow command's message: ``%``, CR and LF percent-encoded (the runner decodes them)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A workflow command's property value: as :func:`escape_data`, and ``:`` and ``,`` too (they
    end the properties and separate them)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation_path(docs_dir: Path, path: str, root: Path) -> str:
    """``path`` (relative to ``docs_dir``) relative to ``root`` with ``/`` separators, which is how
    GitHub names a file of the checkout; the absolute path when the file lies outside ``root``."""
    absolute = Path(os.path.abspath(docs_dir / path))
    relative = os.path.relpath(absolute, os.path.abspath(root))
    if relative == ".." or relative.startswith(".." + os.sep):
        return absolute.as_posix()
    return Path(relative).as_posix()


def github_command(finding: Finding, options: OutputOptions) -> str:
    """One ``::error``/``::warning`` workflow command for ``finding``; a summary finding (no file)
    carries its message alone, and with ``verbose`` the list of its files."""
    properties: list[tuple[str, str]] = []
    message = finding.message
    if isinstance(finding, SummaryFinding):
        if options.verbose and finding.paths:
            message += "\n" + "\n".join(finding.paths)
    else:
        properties.append(("file", annotation_path(options.docs_dir, finding.path, options.root)))
        if finding.line:
            properties.append(("line", str(finding.line)))
    properties.append(("title", f"docs-mcp {finding.rule}"))
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{finding.severity} {rendered}::{escape_data(message)}"


def github(report: ValidationReport, options: OutputOptions) -> str:
    """One workflow command per finding, per-file findings first (see :func:`github_command`)."""
    return "".join(github_command(finding, options) + "\n" for finding in _ordered(report))


FORMATS: dict[str, Callable[[ValidationReport, OutputOptions], str]] = {
    "text": text,
    "json": json_text,
    "github": github,
}
