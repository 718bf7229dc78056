"""``validate``: the fast CI gatekeeper. Reads the whole docs folder and reports every finding."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.corpus.copies import copy_groups
from docs_mcp.corpus.findings import HasFindings
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.errors import Finding

__all__ = ["SITE_RULES", "ValidationReport", "validate"]

# The rules of findings about a site's generator syntax and pages (validate's summary counts them).
SITE_RULES = frozenset(
    {
        "unknown-site-syntax",
        "unresolved-macro",
        "include-missing",
        "include-outside",
        "stub-page",
        "stub-section",
        "mdx-not-read",
        "site-config",
        "rst-markup",
        "api-unresolved",
    }
)


@dataclass(frozen=True)
class ValidationReport(HasFindings):
    """What validating a docs folder found. ``ok`` is True when there is no error, and with
    ``strict`` no warning either."""

    findings: list[Finding]
    file_count: int
    chunk_count: int
    seconds: float
    strict: bool = False
    site: dict[str, Any] | None = None  # the site generator found (``Site.to_dict``); None: plain markdown
    stub_chunks: int = 0
    # Sections that are copies of another (``copies.py``): groups, and the copies beyond each group's
    # main one (search shows each group as one hit).
    copy_groups: int = 0
    copies: int = 0

    @property
    def ok(self) -> bool:
        return not self.errors and not (self.strict and self.warnings)

    def summary(self) -> str:
        """One line: ``validated 12 files (48 chunks) in 0.05 s: 0 errors, 1 warning``."""
        errors, warnings = len(self.errors), len(self.warnings)
        strict = " (strict: warnings fail)" if self.strict and warnings else ""
        return (
            f"validated {self.file_count} files ({self.chunk_count} chunks) in {self.seconds:.2f} s: "
            f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}{strict}"
            + self._site_summary()
            + self._copies_summary()
        )

    def _copies_summary(self) -> str:
        if not self.copies:
            return ""
        return (
            f"; {self.copies} section{'s' * (self.copies != 1)} repeat{'s' * (self.copies == 1)} "
            f"{self.copy_groups} other{'s' * (self.copy_groups != 1)} (copies: one hit each)"
        )

    def site_counts(self) -> dict[str, int]:
        """Findings about the site's syntax and pages, by rule."""
        counts: dict[str, int] = {}
        for finding in self.findings:
            if finding.rule in SITE_RULES:
                counts[finding.rule] = counts.get(finding.rule, 0) + 1
        return dict(sorted(counts.items()))

    def _site_summary(self) -> str:
        if self.site is None:
            return ""
        name = f" {self.site['name']!r}" if self.site.get("name") else ""
        where = f" at {self.site['url']}" if self.site.get("url") else " (no base URL: hits carry no url)"
        counts = ", ".join(f"{count} {rule}" for rule, count in self.site_counts().items())
        return f"; site: {self.site['generator']}{name}{where}" + (f"; {counts}" if counts else "")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready object: ``ok``, ``strict``, counts, ``seconds`` and the ``findings`` list (a
        summary finding carries every file it stands for in ``paths``)."""
        return {
            "ok": self.ok,
            "strict": self.strict,
            "files": self.file_count,
            "chunks": self.chunk_count,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "seconds": round(self.seconds, 3),
            "site": self.site,
            "site_findings": self.site_counts(),
            "stub_chunks": self.stub_chunks,
            "copies": {"groups": self.copy_groups, "sections": self.copies},
            "findings": [f.to_dict() for f in self.findings],
        }


def validate(docs_dir: Path, *, strict: bool = False, site_config: Path | None = None) -> ValidationReport:
    """Validate every manifest and markdown file under ``docs_dir``; findings never raise.
    ``strict``: warnings fail too (the report is not ``ok``). ``site_config``: the site generator's
    config, when it is not beside the folder.

    Raises:
        ConfigError: ``docs_dir`` does not exist or is not a folder.
    """
    started = time.perf_counter()
    corpus = load_corpus(docs_dir, site_config=site_config)
    groups = copy_groups(corpus.chunks, corpus.declared_copies)
    return ValidationReport(
        findings=corpus.findings,
        file_count=len(corpus.files),
        chunk_count=sum(len(f.chunks) for f in corpus.files),
        seconds=time.perf_counter() - started,
        strict=strict,
        site=corpus.site.to_dict(Path(docs_dir)) if corpus.site.recognised else None,
        stub_chunks=corpus.stub_chunks,
        copy_groups=len(groups),
        copies=sum(len(group) - 1 for group in groups),
    )
