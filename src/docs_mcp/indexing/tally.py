"""What a build's manifest needs of every chunk, gathered file by file as the corpus is walked.

The chunk and file counts, each facet's values, the tool schema's example, whether any page has a
URL, the embedding plan and the copy groups' block hashes: a few bytes per chunk (the copies' 24,
their sections set aside on disk) and the distinct facet values, so a build never holds the corpus
to describe it (issue 34).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from docs_mcp.corpus.copies import CopyFinder, CopyGroups
from docs_mcp.corpus.copy_map import MainCopies
from docs_mcp.corpus.scan import ScannedFile
from docs_mcp.indexing.embed import EmbeddingPlan
from docs_mcp.store.index_manifest import pick_example

__all__ = ["CorpusTally"]

Section = tuple[str, str, Sequence[str]]  # id, heading, breadcrumb: what ``pick_example`` reads


class CorpusTally:
    """Counts of the scanned files ``add``-ed; ``copies`` sets aside the sections it compares."""

    def __init__(self, copies: CopyFinder, plan: EmbeddingPlan | None = None) -> None:
        self.plan = plan
        self.files = 0
        self.chunks = 0
        self.urls = False  # some page has a URL: the rows get the URL column
        self.copies = copies
        self._values: dict[str, set[str]] = {}
        # pick_example takes the first qualifying section in sorted order, else the first of all:
        # the least of each is all it needs.
        self._least: Section | None = None
        self._least_subsection: Section | None = None

    def add(self, scanned: ScannedFile) -> None:
        """Count a file of the build."""
        chunks = scanned.file.chunks
        self.files += 1
        self.chunks += len(chunks)
        self.urls = self.urls or bool(scanned.urls)
        for chunk in chunks:
            for key, value in chunk.metadata.items():
                self._values.setdefault(key, set()).add(str(value))
            section: Section = (chunk.id, chunk.heading, chunk.breadcrumb)
            if self._least is None or section < self._least:
                self._least = section
            qualifies = chunk.breadcrumb and 2 <= len(str(chunk.heading).split()) <= 6
            if qualifies and (self._least_subsection is None or section < self._least_subsection):
                self._least_subsection = section
            self.copies.add(chunk)
        if self.plan is not None:
            self.plan.add(chunks)

    def facets(self) -> dict[str, list[str]]:
        """Each facet's values, sorted, by facet name."""
        return {key: sorted(found) for key, found in sorted(self._values.items())}

    def example(self) -> dict[str, str]:
        """``pick_example`` over every chunk counted."""
        return pick_example(
            section for section in (self._least_subsection, self._least) if section is not None
        )

    def copy_groups(self, declared: Iterable[tuple[str, str]] = ()) -> CopyGroups:
        """``copy_groups`` over every chunk counted, with the ``(copy, original)`` files declared,
        and the groups' other leads."""
        return self.copies.groups(declared)

    def main_copies(self, declared: Iterable[tuple[str, str]] = ()) -> MainCopies:
        """Each copy's main copy in ``copy_groups`` (its group's first), and the groups' number."""
        return self.copies.main_copies(declared)
