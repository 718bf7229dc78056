"""Hints a markdown file gives about itself: YAML front matter and ``<!-- mcp_...: {json} -->`` comments.

Syntax (decided in the hint-syntax brief, documented for authors by validate):

    <!-- mcp_chunking_hint: {"chunk_by": "h3", "max_chunk_size": 8000} -->   file-level, anywhere
    <!-- mcp_section_hint: {"chunk_by": "h4"} -->                           directly before a heading
    <!-- mcp_metadata: {"stability": "beta"} -->                             directly before a heading

This module turns comments and front matter into typed values and findings; whether a section hint's
heading starts a chunk is the chunker's question (it knows the strategy).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Literal, cast

import yaml

from docs_mcp.authoring.markdown import Block, Comment, Document, FrontMatter
from docs_mcp.authoring.model import CHUNK_BY_VALUES, ChunkBy, Strategy
from docs_mcp.errors import Finding

FILE_HINT = "mcp_chunking_hint"
SECTION_HINT = "mcp_section_hint"
METADATA = "mcp_metadata"
KEYWORDS = (FILE_HINT, SECTION_HINT, METADATA)
STRATEGY_KEYS = ("chunk_by", "max_chunk_size", "min_chunk_size")


@dataclass(frozen=True)
class MetadataDeclaration:
    """A metadata value a file declares, for taxonomy checks by validate."""

    line: int  # 1-based line of the frontmatter key or of the comment
    key: str
    value: object  # as written (validate reports non-strings / disallowed values)
    origin: Literal["frontmatter", "comment"]


class Reporter:
    """Collects the findings of one file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.findings: list[Finding] = []

    def error(self, line: int, rule: str, message: str) -> None:
        self.findings.append(Finding(self.path, line, "error", message, rule))

    def warning(self, line: int, rule: str, message: str) -> None:
        self.findings.append(Finding(self.path, line, "warning", message, rule))


@dataclass(frozen=True)
class StrategyHint:
    """The fields a chunking hint sets; ``None`` leaves the underlying strategy's value."""

    chunk_by: ChunkBy | None = None
    max_chunk_size: int | None = None
    min_chunk_size: int | None = None

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


@dataclass
class FrontMatterValues:
    title: str | None = None
    strategy: Strategy | None = None  # mcp_strategy: replaces the strategy as a whole
    chunk_by: ChunkBy | None = None  # mcp_chunking_hint
    metadata: dict[str, str] = field(default_factory=dict)  # metadata, then mcp_metadata over it
    declarations: list[MetadataDeclaration] = field(default_factory=list)


# -- strategy and metadata values ---------------------------------------------------------------


def read_strategy_hint(
    values: Mapping[object, object], line: int, where: str, report: Reporter
) -> StrategyHint | None:
    """Validate a chunking hint object; ``None`` (after an ``invalid-hint`` error) when it is unusable."""
    problems: list[str] = []
    unknown = [str(key) for key in values if key not in STRATEGY_KEYS]
    if unknown:
        problems.append(f"unknown key {', '.join(map(repr, unknown))} (allowed: {', '.join(STRATEGY_KEYS)})")
    chunk_by = values.get("chunk_by")
    if chunk_by is not None and chunk_by not in CHUNK_BY_VALUES:
        problems.append(f"chunk_by {chunk_by!r} is not one of {', '.join(CHUNK_BY_VALUES)}")
    for key in ("max_chunk_size", "min_chunk_size"):
        size = values.get(key)
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
            problems.append(f"{key} {size!r} is not a positive whole number of characters")
    if problems:
        report.error(line, "invalid-hint", f"{where}: " + "; ".join(problems))
        return None
    return StrategyHint(
        chunk_by=cast("ChunkBy | None", chunk_by),
        max_chunk_size=cast("int | None", values.get("max_chunk_size")),
        min_chunk_size=cast("int | None", values.get("min_chunk_size")),
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
                line, "invalid-metadata", f"metadata {key!r} must be a string, got {value!r}; quote it"
            )
    return kept


# -- comments -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HintComment:
    keyword: str
    line: int
    values: dict[object, object]
    standalone: bool


_HINT = re.compile(r"\s*(mcp_\w*)\s*(.*?)\s*\Z", re.DOTALL)


def is_hint(comment: Comment) -> bool:
    """A comment meant for docs-mcp (its body starts with ``mcp_``)."""
    return _HINT.match(comment.body) is not None


def read_comment(comment: Comment, report: Reporter) -> HintComment | None:
    """The hint in ``comment``; ``None`` for other comments and (after a finding) broken hints."""
    match = _HINT.match(comment.body)
    if match is None:
        return None
    keyword, rest = match.group(1), match.group(2)
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
        values = json.loads(rest[1:])
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


# -- front matter -------------------------------------------------------------------------------


def read_front_matter(front: FrontMatter, report: Reporter) -> FrontMatterValues:
    """The docs-mcp keys of the YAML front matter; ``invalid-frontmatter`` for malformed YAML."""
    first_yaml_line = front.start_line + 1
    result = FrontMatterValues()
    loader = yaml.SafeLoader(front.text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first_yaml_line + mark.line if mark is not None else front.start_line
        problem = getattr(exc, "problem", None) or str(exc)
        report.error(line, "invalid-frontmatter", f"front matter is not valid YAML: {problem}")
        return result
    finally:
        loader.dispose()
    if data is None:
        return result
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        report.error(front.start_line, "invalid-frontmatter", "front matter must be a YAML mapping of keys")
        return result
    key_lines = _key_lines(node, first_yaml_line)
    _read_front_values(data, node, key_lines, first_yaml_line, result, report)
    return result


def _key_lines(node: yaml.MappingNode, first_line: int) -> dict[str, int]:
    lines: dict[str, int] = {}
    for key_node, _ in node.value:
        lines.setdefault(str(key_node.value), first_line + key_node.start_mark.line)
    return lines


def _value_node(node: yaml.MappingNode, key: str) -> yaml.Node | None:
    for key_node, value_node in node.value:
        if key_node.value == key:
            return cast(yaml.Node, value_node)
    return None


def _read_front_values(
    data: dict[object, object],
    node: yaml.MappingNode,
    key_lines: dict[str, int],
    first_line: int,
    result: FrontMatterValues,
    report: Reporter,
) -> None:
    title = data.get("title")
    if isinstance(title, str | int | float | date) and not isinstance(title, bool):
        result.title = str(title)  # `title: 2024` is a title too
    elif title is not None:
        report.error(key_lines["title"], "invalid-frontmatter", f"title must be a string, got {title!r}")
    strategy = data.get("mcp_strategy")
    if isinstance(strategy, dict):
        hint = read_strategy_hint(strategy, key_lines["mcp_strategy"], "mcp_strategy", report)
        result.strategy = hint.apply(Strategy()) if hint is not None else None
    elif strategy is not None:
        report.error(
            key_lines["mcp_strategy"], "invalid-hint", "mcp_strategy must be a mapping such as {chunk_by: h3}"
        )
    chunk_by = data.get(FILE_HINT)
    if chunk_by is not None:
        if chunk_by in CHUNK_BY_VALUES:
            result.chunk_by = cast(ChunkBy, chunk_by)
        else:
            report.error(
                key_lines[FILE_HINT],
                "invalid-hint",
                f"{FILE_HINT} {chunk_by!r} is not one of {', '.join(CHUNK_BY_VALUES)}",
            )
    for key in ("metadata", METADATA):
        values = data.get(key)
        value_node = _value_node(node, key)
        if values is None:
            continue
        if not isinstance(values, dict) or not isinstance(value_node, yaml.MappingNode):
            report.error(key_lines[key], "invalid-frontmatter", f"{key} must be a mapping of key: value")
            continue
        lines = _key_lines(value_node, first_line)
        kept = read_metadata(values, lines, key_lines[key], "frontmatter", report, result.declarations)
        result.metadata.update(kept)
