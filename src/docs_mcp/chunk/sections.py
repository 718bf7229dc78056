"""The section structure of a parsed document: heading ids, and which headings start chunks.

``outline`` gives every heading its deduplicated slug path (the chunk id scheme) and breadcrumb;
``find_boundaries`` decides, under the file's strategy and its section hints, which headings start a
chunk and which scope (size limits, metadata) governs each chunk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from docs_mcp.chunk.slug import slugify
from docs_mcp.limits import MAX_REPEATED_HEADING_CHARS
from docs_mcp.parse.hints import FileHints, StrategyHint
from docs_mcp.parse.markdown import Block
from docs_mcp.parse.reporter import Reporter
from docs_mcp.parse.strategy import Strategy


@dataclass(frozen=True)
class Scope:
    """What governs the chunks of a section: the file, or a heading with a section hint or metadata."""

    level: int  # heading level of the section; 0 for the whole file
    split: int  # headings of level <= split (and deeper than ``level``) start chunks
    max_size: int
    min_size: int | None
    metadata: Mapping[str, str] = field(default_factory=dict)
    allow_block_splits: bool = False


@dataclass(frozen=True)
class HeadingInfo:
    slugs: tuple[str, ...]  # deduplicated slugs of the ancestors and the heading itself
    breadcrumb: tuple[str, ...]  # ancestor heading texts, outermost first


def repeated(heading: str) -> str:
    """``heading`` as every chunk under it repeats it: cut at ``MAX_REPEATED_HEADING_CHARS``, so a
    huge heading costs its size once, not once per part (real headings are never cut)."""
    if len(heading) <= MAX_REPEATED_HEADING_CHARS:
        return heading
    return heading[:MAX_REPEATED_HEADING_CHARS].rstrip() + "\u2026"


def outline(blocks: Sequence[Block]) -> dict[int, HeadingInfo]:
    """Slug path and breadcrumb of every heading; duplicate slugs under one parent get -2, -3."""
    info: dict[int, HeadingInfo] = {}
    stack: list[int] = []
    used: dict[tuple[str, ...], set[str]] = {}
    last_suffix: dict[tuple[tuple[str, ...], str], int] = {}  # keeps many duplicates linear
    for index, block in enumerate(blocks):
        if not block.is_heading:
            continue
        while stack and blocks[stack[-1]].level >= block.level:
            stack.pop()
        parent = info[stack[-1]].slugs if stack else ()
        siblings = used.setdefault(parent, set())
        base = slug = slugify(repeated(block.text))
        suffix = last_suffix.get((parent, base), 1)
        while slug in siblings:  # also avoids a clash with a heading literally named "examples 2"
            suffix += 1
            slug = f"{base}-{suffix}"
        last_suffix[parent, base] = suffix
        siblings.add(slug)
        info[index] = HeadingInfo((*parent, slug), tuple(repeated(blocks[i].text) for i in stack))
        stack.append(index)
    return info


def _strategy_name(split: int) -> str:
    return f"h{split}" if split else "file"


def find_boundaries(
    blocks: Sequence[Block], file_scope: Scope, hints: FileHints, report: Reporter
) -> dict[int, Scope]:
    """The headings that start a chunk, each with the scope governing its chunk."""
    starts: dict[int, Scope] = {}
    stack = [file_scope]
    for index, block in enumerate(blocks):
        if not block.is_heading:
            continue
        while stack[-1].level >= block.level:
            stack.pop()
        scope = stack[-1]
        section = hints.section_hints.get(index)
        metadata = hints.section_metadata.get(index)
        if block.level > scope.split:
            strategy = _strategy_name(scope.split)
            why = f"heading level {block.level} does not start a chunk under strategy {strategy}"
            if section is not None:
                report.error(
                    section[0],
                    "dangling-hint",
                    f"{why}; put the hint before the enclosing heading or change the file strategy",
                )
            if metadata is not None:
                report.error(
                    metadata[0],
                    "orphaned-metadata",
                    f"{why}; put the metadata comment before the "
                    "enclosing heading or change the file strategy",
                )
            continue
        if section is not None or metadata is not None:
            scope = _section_scope(scope, block.level, section[1] if section else None, metadata)
            stack.append(scope)
        starts[index] = scope
    return starts


def _section_scope(
    outer: Scope, level: int, hint: StrategyHint | None, metadata: tuple[int, dict[str, str]] | None
) -> Scope:
    split, max_size, min_size = outer.split, outer.max_size, outer.min_size
    allow = outer.allow_block_splits
    if hint is not None:
        if hint.chunk_by is not None:
            # A chunk_by at or above the heading's own level (or "file") keeps the section whole.
            wanted = Strategy(chunk_by=hint.chunk_by).split_level
            split = wanted if wanted > level else level
        max_size = hint.max_chunk_size or max_size
        min_size = hint.min_chunk_size or min_size
        allow = allow if hint.allow_block_splits is None else hint.allow_block_splits
    merged = {**outer.metadata, **metadata[1]} if metadata else outer.metadata
    return Scope(level, split, max_size, min_size, merged, allow)
