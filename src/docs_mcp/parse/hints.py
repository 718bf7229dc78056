"""Hints a markdown file gives about itself in ``<!-- mcp_...: {json} -->`` comments (front matter:
``front_matter.py``).

Syntax (decided in the hint-syntax brief, documented for authors by validate):

    <!-- mcp_chunking_hint: {"chunk_by": "h3", "max_chunk_size": 8000} -->   file-level, anywhere
    <!-- mcp_section_hint: {"chunk_by": "h4"} -->                           directly before a heading
    <!-- mcp_metadata: {"stability": "beta"} -->                             directly before a heading

This module turns comments into typed values and findings (and reads the strategy and metadata values
that front matter shares); whether a section hint's heading starts a chunk is the chunker's question
(it knows the strategy).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, cast

from docs_mcp.limits import MIN_MAX_CHUNK_SIZE, LimitExceeded, loads_json
from docs_mcp.parse.markdown import Block, Comment, Document
from docs_mcp.parse.reporter import Reporter, brief
from docs_mcp.parse.strategy import CHUNK_BY_VALUES, ChunkBy, Strategy

FILE_HINT = "mcp_chunking_hint"
SECTION_HINT = "mcp_section_hint"
METADATA = "mcp_metadata"
KEYWORDS = (FILE_HINT, SECTION_HINT, METADATA)
STRATEGY_KEYS = ("chunk_by", "max_chunk_size", "min_chunk_size", "allow_block_splits")


@dataclass(frozen=True)
class MetadataDeclaration:
    """A metadata value a file declares, for taxonomy checks by validate."""

    line: int  # 1-based line of the frontmatter key or of the comment
    key: str
    value: object  # as written (validate reports non-strings / disallowed values)
    origin: Literal["frontmatter", "comment"]


@dataclass(frozen=True)
class StrategyHint:
    """The fields a chunking hint sets; ``None`` leaves the underlying strategy's value."""

    chunk_by: ChunkBy | None = None
    max_chunk_size: int | None = None
    min_chunk_size: int | None = None
    allow_block_splits: bool | None = None

    def apply(self, base: Strategy) -> Strategy:
        """``base`` with the fields this hint sets."""
        changes: dict[str, object] = {
            key: getattr(self, key) for key in STRATEGY_KEYS if getattr(self, key) is not None
        }
        return replace(base, **changes)  # type: ignore[arg-type]


@dataclass
class FileHints:
    """Everything the comments of one file declare, keyed by the block index of their heading."""

    file_hint: StrategyHint | None = None
    section_hints: dict[int, tuple[int, StrategyHint]] = field(default_factory=dict)
    section_metadata: dict[int, tuple[int, dict[str, str]]] = field(default_factory=dict)
    declarations: list[MetadataDeclaration] = field(default_factory=list)


# -- strategy and metadata values ---------------------------------------------------------------


def read_strategy_hint(
    values: Mapping[object, object], line: int, where: str, report: Reporter
) -> StrategyHint | None:
    """Validate a chunking hint object; ``None`` (after an ``invalid-hint`` error) when it is unusable."""
    problems: list[str] = []
    unknown = [str(key) for key in values if key not in STRATEGY_KEYS]
    if unknown:
        problems.append(
            f"unknown key {', '.join(map(brief, unknown[:5]))} (allowed: {', '.join(STRATEGY_KEYS)})"
        )
    chunk_by = values.get("chunk_by")
    if chunk_by is not None and chunk_by not in CHUNK_BY_VALUES:
        problems.append(f"chunk_by {brief(chunk_by)} is not one of {', '.join(CHUNK_BY_VALUES)}")
    for key in ("max_chunk_size", "min_chunk_size"):
        size = values.get(key)
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
            problems.append(f"{key} {brief(size)} is not a positive whole number of characters")
        elif key == "max_chunk_size" and isinstance(size, int) and size < MIN_MAX_CHUNK_SIZE:
            problems.append(
                f"max_chunk_size {size} is under the floor of {MIN_MAX_CHUNK_SIZE} (MIN_MAX_CHUNK_SIZE)"
            )
    allow = values.get("allow_block_splits")
    if allow is not None and not isinstance(allow, bool):
        problems.append(f"allow_block_splits {brief(allow)} is not true or false")
    if problems:
        report.error(line, "invalid-hint", f"{where}: " + "; ".join(problems))
        return None
    return StrategyHint(
        chunk_by=cast("ChunkBy | None", chunk_by),
        max_chunk_size=cast("int | None", values.get("max_chunk_size")),
        min_chunk_size=cast("int | None", values.get("min_chunk_size")),
        allow_block_splits=cast("bool | None", allow),
    )


def read_metadata(
    values: Mapping[object, object],
    lines: Mapping[str, int],
    fallback_line: int,
    origin: Literal["frontmatter", "comment"],
    report: Reporter,
    declarations: list[MetadataDeclaration],
) -> dict[str, str]:
    """Record every declared value; keep the string ones, ``invalid-metadata`` for the rest."""
    kept: dict[str, str] = {}
    for key, value in values.items():
        line = lines.get(str(key), fallback_line)
        declarations.append(MetadataDeclaration(line, str(key), value, origin))
        if isinstance(value, str) and isinstance(key, str):
            kept[key] = value
        else:
            report.error(
                line,
                "invalid-metadata",
                f"metadata {brief(key)} must be a string, got {brief(value)}; quote it",
            )
    return kept


# -- comments -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HintComment:
    keyword: str
    line: int
    values: dict[object, object]
    standalone: bool


# The keyword only: the rest is taken with str.strip, as a regex ``\s*(.*?)\s*\Z`` is quadratic in
# a long run of spaces.
_HINT = re.compile(r"\s*(mcp_\w*)")


def is_hint(comment: Comment) -> bool:
    """A comment meant for docs-mcp (its body starts with ``mcp_``)."""
    return _HINT.match(comment.body) is not None


def read_comment(comment: Comment, report: Reporter) -> HintComment | None:
    """The hint in ``comment``; ``None`` for other comments and (after a finding) broken hints."""
    match = _HINT.match(comment.body)
    if match is None:
        return None
    keyword, rest = match.group(1), comment.body[match.end() :].strip()
    if keyword not in KEYWORDS:
        report.error(
            comment.line,
            "unknown-hint",
            f"unknown hint keyword {keyword}; expected {FILE_HINT}, {SECTION_HINT} or {METADATA}",
        )
        return None
    if not rest.startswith(":"):
        report.error(comment.line, "invalid-hint-json", f'expected "{keyword}: {{...}}" with a JSON object')
        return None
    try:
        values = loads_json(rest[1:])
    except LimitExceeded as exc:
        report.error(comment.line, "invalid-hint-json", f"{keyword}: {exc}; simplify the hint")
        return None
    except ValueError as exc:
        report.error(comment.line, "invalid-hint-json", f"{keyword} is not followed by valid JSON: {exc}")
        return None
    if not isinstance(values, dict):
        report.error(
            comment.line, "invalid-hint-json", f"{keyword} must be followed by a JSON object {{...}}"
        )
        return None
    return HintComment(keyword, comment.line, values, comment.standalone)


def collect_hints(doc: Document, report: Reporter) -> FileHints:
    """Read every hint comment of ``doc``; attach section hints and metadata to their heading."""
    hints = FileHints()
    for line in doc.hints_in_code:
        report.warning(
            line, "hint-in-code", "hint comment inside a code block is ignored; move it out of the code"
        )
    for index, block in enumerate(doc.blocks):
        for comment in block.comments:
            hint = read_comment(comment, report)
            if hint is not None:
                _apply_comment(hint, _target_heading(doc.blocks, index, hint), hints, report)
    return hints


def _target_heading(blocks: Sequence[Block], index: int, hint: HintComment) -> int | None:
    """The heading directly after a standalone comment block (other comment blocks may sit between)."""
    if not hint.standalone:
        return None
    for later in range(index + 1, len(blocks)):
        if blocks[later].is_heading:
            return later
        if not blocks[later].is_comment_only:
            return None
    return None


def _apply_comment(hint: HintComment, target: int | None, hints: FileHints, report: Reporter) -> None:
    if hint.keyword == FILE_HINT:
        parsed = read_strategy_hint(hint.values, hint.line, FILE_HINT, report)
        if hints.file_hint is not None:
            report.error(hint.line, "duplicate-hint", f"second {FILE_HINT} in this file; keep only one")
        elif parsed is not None:
            hints.file_hint = parsed
        return
    if hint.keyword == METADATA:
        metadata = read_metadata(hint.values, {}, hint.line, "comment", report, hints.declarations)
        if target is None:
            report.error(
                hint.line, "orphaned-metadata", f"{METADATA} is not directly before a heading; move it"
            )
        elif target in hints.section_metadata:
            report.error(hint.line, "duplicate-hint", f"second {METADATA} for the same heading; merge them")
        else:
            hints.section_metadata[target] = (hint.line, metadata)
        return
    parsed = read_strategy_hint(hint.values, hint.line, SECTION_HINT, report)
    if target is None:
        report.error(hint.line, "dangling-hint", f"{SECTION_HINT} is not directly before a heading; move it")
    elif target in hints.section_hints:
        report.error(
            hint.line, "duplicate-hint", f"second {SECTION_HINT} for the same heading; keep only one"
        )
    elif parsed is not None:
        hints.section_hints[target] = (hint.line, parsed)
