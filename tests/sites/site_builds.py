"""An evaldata site set built raw and after ``fix --write`` (what ``conftest.site_build`` gives)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

PAGE_SUFFIXES = (".md", ".mdx", ".rst")


@dataclass(frozen=True)
class SiteBuild:
    """One set built twice: ``raw`` (no manifest) and ``fixed`` (after ``fix --write``)."""

    name: str
    docs: Path  # the copied docs folder (fixed by now)
    raw: Path
    fixed: Path
    pages_before: dict[str, str]  # sha256 of every page file before fix

    @property
    def indexes(self) -> list[Path]:
        return [self.raw, self.fixed]


def page_hashes(root: Path) -> dict[str, str]:
    """The sha256 of every page file (``.md``, ``.mdx``, ``.rst``) under ``root``."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.suffix in PAGE_SUFFIXES
    }
