"""What a build's manifest needs of every chunk, gathered file by file as the corpus is walked (from
each page's ``first_pass.FileSummary``: a page not read again counts as it did).

The chunk and file counts, each facet's values, the tool schema's example, whether any page has a
URL, the embedding plan and the copy groups' block hashes: a few bytes per chunk (the copies' 24,
their sections set aside on disk) and the distinct facet values, so a build never holds the corpus
to describe it (issue 34).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus.copies import CopyFinder
from docs_mcp.embedding.embedding_cache import CachingProvider
from docs_mcp.indexing.embed import EmbeddingPlan
from docs_mcp.indexing.first_pass import FileSummary, Section
from docs_mcp.store.index_manifest import pick_example

__all__ = ["CorpusTally"]


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
        self.complete = True  # the plan counts every chunk (no page was counted by its summary)

    def add(
        self, path: str, summary: FileSummary, number: int, chunks: Sequence[Chunk] | None = None
    ) -> None:
        """Count the page at ``path`` by its ``summary``, set aside as ``number``; ``chunks``: its
        chunks when the pass read them (else its sections are compared by reference and the
        embedding plan is left incomplete: ``complete``)."""
        self.files += 1
        self.chunks += summary.rows
        self.urls = self.urls or summary.urls
        for key, value in summary.facets:
            self._values.setdefault(key, set()).add(value)
        if summary.least is not None and (self._least is None or summary.least < self._least):
            self._least = summary.least
        least = summary.least_subsection
        if least is not None and (self._least_subsection is None or least < self._least_subsection):
            self._least_subsection = least
        if chunks is None:
            self.copies.add_known(number, path, summary.sections)
            self.complete = False
            return
        for place, *hashes in summary.sections:
            self.copies.add(chunks[place], (hashes[0], hashes[1], hashes[2]))
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

    def replan(self, provider: CachingProvider | None, chunks: Iterable[Sequence[Chunk]]) -> None:
        """Count the embedding plan of ``provider`` again over every file's ``chunks``, when a page
        was counted by its summary (not ``complete``)."""
        if self.plan is not None and provider is not None and not self.complete:
            self.plan = EmbeddingPlan(provider)
            for found in chunks:
                self.plan.add(found)
            self.complete = True
