"""What reading an opened index means to its users (the server, the CLI, the eval harness).

:class:`docs_mcp.search.index.DocsIndex` is the index opened; the server is written against this
protocol, so its modules name no LanceDB class (the index opens in the background).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from docs_mcp.search.config import SearchConfig
from docs_mcp.search.types import SearchPage, SearchPlan, SearchRequest, Section, SectionWindow
from docs_mcp.store.index_manifest import IndexManifest

__all__ = ["IndexReader"]


class IndexReader(Protocol):
    """An opened index: its manifest and what is derived from it, and the read calls (their
    contracts are :class:`~docs_mcp.search.index.DocsIndex`'s)."""

    path: Path
    manifest: IndexManifest
    identity: str
    facets: dict[str, list[str]]
    config: SearchConfig
    collapse_facets: list[str]
    resource_values: dict[str, list[str]]
    vector_floor: float | None
    rescores: bool
    vocabulary_key: str

    def search(
        self,
        request: SearchRequest,
        *,
        inferred: Mapping[str, str] | None = None,
        first: str | None = None,
        rescore: bool = False,
        own_terms: Callable[[str], str] | None = None,
    ) -> SearchPage: ...

    def query_words(self, request: SearchRequest) -> tuple[dict[str, str], str]: ...

    def plan(self, request: SearchRequest) -> SearchPlan: ...

    def suggest_filters(self, query: str, filters: Mapping[str, str]) -> dict[str, list[str]]: ...

    def resource_ids(self) -> list[str]: ...

    def sections(self, ids: Sequence[str]) -> list[Section]: ...

    def example_section(self) -> tuple[str, str]: ...

    def get(self, chunk_id: str, context: int = 0) -> SectionWindow: ...
