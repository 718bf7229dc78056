"""How a :class:`ValidationReport` is shown: every output format of ``docs-mcp validate`` in one place.

``text``: one ``path:line: severity: message [rule]`` line per finding (no path for a summary
finding, which ``verbose`` follows with every file it stands for, one indented line each); the
one-line summary goes to standard error. ``json``: the report's JSON object.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from docs_mcp.authoring.model import SummaryFinding
from docs_mcp.authoring.validation import ValidationReport
from docs_mcp.errors import Finding


def format_finding(finding: Finding) -> str:
    """``path:line: severity: message [rule]``; a summary finding has no path."""
    if isinstance(finding, SummaryFinding):
        return f"{finding.severity}: {finding.message} [{finding.rule}]"
    return finding.format()


def text(report: ValidationReport, verbose: bool = False) -> str:
    """Per-file findings in path order, then summary findings (with their files when ``verbose``)."""
    lines = [format_finding(f) for f in report.findings if not isinstance(f, SummaryFinding)]
    for summary in (f for f in report.findings if isinstance(f, SummaryFinding)):
        lines.append(format_finding(summary))
        if verbose:
            lines.extend(f"  {path}" for path in summary.paths)
    return "".join(line + "\n" for line in lines)


def json_text(report: ValidationReport, verbose: bool = False) -> str:
    """The report as one indented JSON object (summary findings always list every path)."""
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


FORMATS: dict[str, Callable[[ValidationReport, bool], str]] = {"text": text, "json": json_text}
