"""Strategy choice when bootstrapping: the strategy of a manifest and the overrides of its folders.

Every manifest declares ``h2`` (the spec's catch-all, now explicit): a section per method or topic.
Folders of small single-topic pages (generated model pages, error types) get one chunk per file,
so a page is not cut into a title-only chunk and its table; when one of those pages holds a block
over ``max_chunk_size`` (a 95 KB table), the override also says that cutting it is expected.
Pages of ``::: package.member`` API stubs (mkdocstrings) become the reference they stand for: they
get the strategy the loader gives such a page with none of its own, a chunk per documented object
(``h6``, objects under ``API_MIN_CHUNK`` joining the one before), a whole folder's pages by one glob.
Sections that outgrow ``h2`` are left to the repair pass, which sees the real chunks.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from docs_mcp.corpus.site_pages import API_MIN_CHUNK
from docs_mcp.fix.outline import FileOutline

BASE_CHUNK_BY = "h2"
# A folder of pages: at least MIN_PAGES files, median size at most PAGE_MEDIAN characters, and
# PAGE_SHARE of them at most TARGET_MAX (a chunk that holds one topic).
MIN_PAGES = 5
PAGE_MEDIAN = 2_500
TARGET_MAX = 6_000
PAGE_SHARE = 0.9


@dataclass(frozen=True)
class Decision:
    """A strategy for the files a glob matches (``pattern`` None: the manifest's own strategy)."""

    pattern: str | None
    strategy: dict[str, Any]
    reason: str
    files: tuple[str, ...] = field(default=(), compare=False)  # the outlines' paths it governs


def choose(outlines: Sequence[FileOutline], folder: str, max_size: int) -> list[Decision]:
    """The base strategy and the overrides for the files of a manifest in ``folder`` (paths in
    ``outlines`` are relative to the docs root; patterns to ``folder``). Raises nothing."""
    decisions = _api_pages(outlines, folder)
    paged: set[str] = {path for decision in decisions for path in decision.files}
    for pattern, pages in _page_folders([o for o in outlines if o.path not in paged], folder):
        paged.update(page.path for page in pages)
        strategy: dict[str, Any] = {"chunk_by": "file"}
        big = [page for page in pages if page.largest_block > max_size]
        median_page = int(statistics.median(page.size for page in pages))
        reason = f"{len(pages)} small pages (median {median_page:,} characters): one chunk per page"
        if big:
            strategy["allow_block_splits"] = True
            largest = max(big, key=lambda page: page.largest_block)
            reason += (
                f"; {len(big)} hold a {largest.largest_block_kind} over max_chunk_size {max_size:,} "
                f"(up to {largest.largest_block:,} characters, {_relative(largest.path, folder)}), cut "
                "inside as expected"
            )
        decisions.append(Decision(pattern, strategy, reason, tuple(p.path for p in pages)))
    rest = [outline for outline in outlines if outline.path not in paged] or list(outlines)
    sizes = [size for outline in rest for size in outline.chunk_sizes[2]]
    median = int(statistics.median(sizes)) if sizes else 0
    base = Decision(
        None,
        {"chunk_by": BASE_CHUNK_BY},
        f"chunk by {BASE_CHUNK_BY}: a chunk per section (a method, a topic); {_files(len(rest))}, "
        f"median section {median:,} characters",
        tuple(o.path for o in rest),
    )
    return [base, *decisions]


def _api_pages(outlines: Sequence[FileOutline], folder: str) -> list[Decision]:
    """A chunk per documented object for the pages holding API stubs: a folder of nothing else by
    ``dir/*.md``, other pages by their own path."""
    by_folder: dict[str, list[FileOutline]] = {}
    for outline in outlines:
        by_folder.setdefault(outline.folder, []).append(outline)
    strategy = {"chunk_by": "h6", "min_chunk_size": API_MIN_CHUNK}
    decisions = []
    for name, files in sorted(by_folder.items()):
        api = [outline for outline in files if outline.api_stubs]
        if not api:
            continue
        reason = f"{len(api)} API reference pages read from source: a chunk per documented object"
        if len(api) == len(files) and name != folder:
            decisions.append(
                Decision(f"{_relative(name, folder)}/*.md", strategy, reason, tuple(o.path for o in api))
            )
        else:
            decisions += [Decision(_relative(o.path, folder), strategy, reason, (o.path,)) for o in api]
    return decisions


def _page_folders(outlines: Sequence[FileOutline], folder: str) -> list[tuple[str, list[FileOutline]]]:
    """Globs (relative to ``folder``) of folders of small pages, a whole subtree as ``dir/**/*.md``."""
    by_folder: dict[str, list[FileOutline]] = {}
    for outline in outlines:
        by_folder.setdefault(outline.folder, []).append(outline)
    pages = {name for name, files in by_folder.items() if _is_page_folder(files)}
    chosen: list[tuple[str, list[FileOutline]]] = []
    covered: set[str] = set()
    for name in sorted(pages, key=lambda n: (n.count("/"), n)):
        if name in covered:
            continue
        parent = str(PurePosixPath(name).parent)
        subtree = [n for n in by_folder if n == parent or n.startswith(parent + "/")] if parent != "." else []
        if parent not in ("", ".", folder) and len(subtree) > 1 and all(n in pages for n in subtree):
            files = [o for n in subtree for o in by_folder[n]]
            chosen.append((f"{_relative(parent, folder)}/**/*.md", files))
            covered.update(subtree)
        else:
            chosen.append((f"{_relative(name, folder)}/*.md" if name != folder else "*.md", by_folder[name]))
            covered.add(name)
    return chosen


def _files(count: int) -> str:
    return f"{count} files" if count != 1 else "1 file"


def _is_page_folder(files: Sequence[FileOutline]) -> bool:
    if len(files) < MIN_PAGES:
        return False
    sizes = [outline.size for outline in files]
    small = sum(size <= TARGET_MAX for size in sizes)
    return statistics.median(sizes) <= PAGE_MEDIAN and small >= PAGE_SHARE * len(sizes)


def _relative(path: str, folder: str) -> str:
    return path[len(folder) + 1 :] if folder and path.startswith(folder + "/") else path
