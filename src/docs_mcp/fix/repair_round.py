"""One round of ``fix``'s repairs: the corpus it looks at and what it changed, shared by every repair."""

from __future__ import annotations

from dataclasses import dataclass, field

from docs_mcp.corpus.loader import Corpus
from docs_mcp.fix.layout import Layout
from docs_mcp.fix.workspace import Workspace

__all__ = ["Round"]


@dataclass
class Round:
    """One round of repairs: the corpus it looks at and what it changed."""

    corpus: Corpus
    workspace: Workspace
    layout: Layout
    edited: set[str] = field(default_factory=set)  # markdown files edited this round
    changes: int = 0
    # Pages are not edited (the default, and always in a site generator's source): repairs go into
    # manifests only, a section hint becoming a per-file override.
    manifests_only: bool = True

    def manifest_path(self, path: str) -> str | None:
        """The path of the manifest governing the file ``path``; None when none does."""
        manifest = self.corpus.governing(path)
        return manifest.path if manifest is not None else None
