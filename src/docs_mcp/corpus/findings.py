"""Findings over a whole corpus: one finding for many files, and reports that carry findings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docs_mcp.errors import Finding

__all__ = ["HasFindings", "SummaryFinding"]


@dataclass(frozen=True)
class SummaryFinding(Finding):
    """One finding standing for the same problem in many files (``path`` is "": the whole folder);
    ``paths`` lists every file, for ``--verbose`` and JSON output."""

    paths: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data, with every file it stands for."""
        return {**super().to_dict(), "paths": list(self.paths)}


class HasFindings:
    """``errors`` and ``warnings`` views of a ``findings`` list, for reports that carry findings."""

    findings: list[Finding]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]
