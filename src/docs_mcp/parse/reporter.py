"""Collecting the findings of one file, with the rule and line of each."""

from __future__ import annotations

import reprlib

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


def _brief_repr() -> reprlib.Repr:
    short = reprlib.Repr()
    short.maxlevel, short.maxdict, short.maxlist, short.maxtuple, short.maxset = 2, 3, 3, 3, 3
    short.maxstring, short.maxother, short.maxlong = 30, 30, 30
    return short


_BRIEF = _brief_repr()


def brief(value: object) -> str:
    """``repr(value)`` cut short (about 120 characters at most, whatever the value's size or nesting),
    for quoting a value in a finding: a value may be megabytes of text or an alias-expanded tree."""
    return _BRIEF.repr(value)
