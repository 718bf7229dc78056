"""YAML front matter: the docs-mcp keys a file declares about itself (title, strategy, metadata).

Precedence (``notes/compat.md of the project``): front matter is the highest: ``mcp_strategy`` (a whole
strategy), ``mcp_chunking_hint`` (a chunk_by string), ``metadata`` then ``mcp_metadata`` (maps merged
over the resolved metadata), ``title``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import cast

import yaml

from docs_mcp.parse.hints import (
    FILE_HINT,
    METADATA,
    MetadataDeclaration,
    read_metadata,
    read_strategy_hint,
)
from docs_mcp.parse.markdown import FrontMatter
from docs_mcp.parse.reporter import Reporter, brief
from docs_mcp.parse.safe_yaml import YamlProblem, load_yaml
from docs_mcp.parse.strategy import CHUNK_BY_VALUES, ChunkBy, Strategy


@dataclass
class FrontMatterValues:
    title: str | None = None
    strategy: Strategy | None = None  # mcp_strategy: replaces the strategy as a whole
    chunk_by: ChunkBy | None = None  # mcp_chunking_hint
    metadata: dict[str, str] = field(default_factory=dict)  # metadata, then mcp_metadata over it
    declarations: list[MetadataDeclaration] = field(default_factory=list)


def read_front_matter(front: FrontMatter, report: Reporter) -> FrontMatterValues:
    """The docs-mcp keys of the YAML front matter; ``invalid-frontmatter`` for YAML that is malformed,
    holds a value that cannot be built, or exceeds a limit (``safe_yaml``)."""
    first_yaml_line = front.start_line + 1
    result = FrontMatterValues()
    try:
        data, node = load_yaml(front.text)
    except YamlProblem as problem:
        report.error(first_yaml_line + problem.line, "invalid-frontmatter", problem.message)
        return result
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
        report.error(key_lines["title"], "invalid-frontmatter", f"title must be a string, got {brief(title)}")
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
                f"{FILE_HINT} {brief(chunk_by)} is not one of {', '.join(CHUNK_BY_VALUES)}",
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
