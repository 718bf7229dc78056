"""What a build's manifest needs of every chunk, gathered file by file as the corpus is walked.

The chunk and file counts, each facet's values, the tool schema's example, whether any page has a
URL, the embedding plan and the copy groups' block hashes: a few bytes per chunk (the copies' 24)
and the distinct facet values, so a build never holds the corpus to describe it (issue 34).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus.copies import CopyFinder
from docs_mcp.corpus.scan import ScannedFile
from docs_mcp.indexing.embed import EmbeddingPlan
from docs_mcp.store.index_manifest import pick_example

__all__ = ["CorpusTally"]

# A chunk's reference for the copy finder: its file's number in the build's spill, then its place.
_PLACE_BITS = 24

Section = tuple[str, str, Sequence[str]]  # id, heading, breadcrumb: what ``pick_example`` reads


class CorpusTally:
    """Counts of the scanned files ``add``-ed in order (their numbers 0, 1, ...)."""

    def __init__(self, plan: EmbeddingPlan | None = None) -> None:
        self.plan = plan
        self.files = 0
        self.chunks = 0
        self.urls = False  # some page has a URL: the rows get the URL column
        self.copies = CopyFinder()
        self._values: dict[str, set[str]] = {}
        # pick_example takes the first qualifying section in sorted order, else the first of all:
        # the least of each is all it needs.
        self._least: Section | None = None
        self._least_subsection: Section | None = None

    def add(self, number: int, scanned: ScannedFile) -> None:
        """Count file ``number`` of the build."""
        chunks = scanned.file.chunks
        self.files += 1
        self.chunks += len(chunks)
        self.urls = self.urls or bool(scanned.urls)
        for place, chunk in enumerate(chunks):
            for key, value in chunk.metadata.items():
                self._values.setdefault(key, set()).add(str(value))
            section: Section = (chunk.id, chunk.heading, chunk.breadcrumb)
            if self._least is None or section < self._least:
                self._least = section
            qualifies = chunk.breadcrumb and 2 <= len(str(chunk.heading).split()) <= 6
            if qualifies and (self._least_subsection is None or section < self._least_subsection):
                self._least_subsection = section
            self.copies.add((number << _PLACE_BITS) | place, chunk)
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

    def copy_groups(self, file_chunks: Callable[[int], Sequence[Chunk]]) -> list[list[str]]:
        """``copy_groups`` over every chunk counted; ``file_chunks(number)`` reads file ``number``'s
        chunks back (each file read once per batch of sections compared)."""

        def fetch(refs: Sequence[int]) -> Mapping[int, Chunk]:
            found: dict[int, Chunk] = {}
            chunks: Sequence[Chunk] = ()
            current = -1
            for ref in refs:  # sorted: a file's sections together
                number, place = ref >> _PLACE_BITS, ref & ((1 << _PLACE_BITS) - 1)
                if number != current:
                    chunks, current = file_chunks(number), number
                found[ref] = chunks[place]
            return found

        return self.copies.groups(fetch)
