"""What ``fix`` proposes: changed files with one line of reasoning per change, shown as a unified
diff, and written only when asked."""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from docs_mcp.errors import ConfigError, Finding

__all__ = ["FileChange", "FixProposal", "Mode"]

Mode = Literal["bootstrap", "repair"]


@dataclass(frozen=True)
class FileChange:
    """One file ``fix`` creates or changes (a manifest, or front matter and hint comments)."""

    path: str  # posix, relative to the docs root
    before: str | None  # None: a new file
    after: str
    reasons: tuple[str, ...]  # one line per change made to this file

    def diff(self) -> str:
        """The change as a unified diff (``a/``, ``b/`` paths; ``/dev/null`` for a new file)."""
        old = (self.before or "").splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        lines = difflib.unified_diff(
            old,
            new,
            fromfile="/dev/null" if self.before is None else f"a/{self.path}",
            tofile=f"b/{self.path}",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
        )


@dataclass(frozen=True)
class FixProposal:
    """Everything ``fix`` proposes for a docs folder; nothing is written until :meth:`write`."""

    docs_dir: Path
    mode: Mode  # bootstrap: the folder had no manifest; repair: manifests exist
    changes: tuple[FileChange, ...]
    remaining: tuple[Finding, ...] = ()  # findings left after the changes: fix cannot resolve them
    notes: tuple[str, ...] = ()  # what else the user should know (a model answer was not used, ...)
    facets: dict[str, str] = field(default_factory=dict)  # SDK folder -> proposed language
    plan: Path | None = None  # where this proposal is kept for a later --write (``plan_cache.py``)

    @property
    def empty(self) -> bool:
        return not self.changes

    def render(self) -> str:
        """Each change's reasons as ``# ...`` lines, then its unified diff."""
        out: list[str] = []
        for change in self.changes:
            out.extend(f"# {change.path}: {reason}\n" for reason in change.reasons)
            out.append(change.diff())
        return "".join(out)

    def write(self) -> list[Path]:
        """Write every change (each file atomically); returns the paths written.

        Raises:
            ConfigError: a file changed on disk since the proposal was made (nothing is written).
        """
        for change in self.changes:
            target = self.docs_dir / change.path
            current = target.read_bytes().decode("utf-8") if target.exists() else None
            if current != change.before:
                raise ConfigError(
                    f"{change.path} changed since fix read it; run docs-mcp fix again (nothing was written)"
                )
        written = []
        for change in self.changes:
            target = self.docs_dir / change.path
            target.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(target, change.after)
            written.append(target)
        if self.plan is not None:
            self.plan.unlink(missing_ok=True)  # made for the folder as it was before this write
        return written


def _write_atomically(target: Path, text: str) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        if target.exists():
            os.chmod(temporary, target.stat().st_mode & 0o777)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
