"""Collecting the findings of one file, with the rule and line of each."""

from __future__ import annotations

from docs_mcp.errors import Finding


class Reporter:
    """Collects the findings of one file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list[Finding] = []

    def error(self, line: int, rule: str, message: str) -> None:
        self.findings.append(Finding(self.path, line, "error", message, rule))

    def warning(self, line: int, rule: str, message: str) -> None:
        self.findings.append(Finding(self.path, line, "warning", message, rule))
