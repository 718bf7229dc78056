"""Labelled query files: JSON lines, loaded and checked once, here at the edge.

One object a line::

    {"id": "q1", "query": "how do retries work", "relevant": ["guides/retries.md#backoff"],
     "grades": {"guides/retries.md#backoff": 2}, "filters": {"language": "python"}, "category": "sdk"}

``id``, ``query`` and ``relevant`` are required; other keys (the claude-docs set's ``answer``) are
ignored. A relevant entry with ``#`` is a section (chunk id); one without is a page (a file path).
One query holds one kind only, since ranks count sections for the one and unique pages for the
other (see :mod:`docs_mcp.eval.matching`). ``grades`` (default 1 each) weigh nDCG.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from docs_mcp.errors import ConfigError

__all__ = ["LabelledQuery", "Unit", "load_queries", "parse_query"]

Unit = Literal["section", "page"]  # what a rank counts for a query
_UNCATEGORISED = ""


@dataclass(frozen=True)
class LabelledQuery:
    """One question with the ids that answer it; ``grade(id)`` is its relevance weight (default 1)."""

    id: str
    query: str
    relevant: tuple[str, ...]
    grades: Mapping[str, float] = field(default_factory=dict)
    filters: Mapping[str, str] = field(default_factory=dict)
    category: str = _UNCATEGORISED

    @property
    def unit(self) -> Unit:
        return "section" if "#" in self.relevant[0] else "page"

    def grade(self, relevant_id: str) -> float:
        return self.grades.get(relevant_id, 1.0)


def load_queries(path: Path) -> list[LabelledQuery]:
    """The labelled queries of the JSON-lines file ``path``, in file order; blank lines are skipped.

    Raises ``ConfigError`` for an unreadable file, an empty one, or a bad line (the message names
    ``path:line`` and the field), and for an id used twice.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read the query file {path}: {error}") from error
    queries: list[LabelledQuery] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except ValueError as error:
            raise ConfigError(f"{where}: not JSON ({error}); write one query object a line") from error
        query = parse_query(data, where)
        if query.id in first_line:
            raise ConfigError(
                f"{where}: id {query.id!r} is already used on line {first_line[query.id]}; ids must be unique"
            )
        first_line[query.id] = number
        queries.append(query)
    if not queries:
        raise ConfigError(f"{path} holds no query: write one JSON object a line with id, query and relevant")
    return queries


def parse_query(data: Any, where: str) -> LabelledQuery:
    """One labelled query from decoded JSON. Raises ``ConfigError`` naming ``where`` and the field."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: a query is a JSON object with id, query and relevant")
    for name in ("id", "query", "relevant"):
        if name not in data:
            raise ConfigError(f"{where}: missing {name!r} (a query needs id, query and relevant)")
    query_id, text = data["id"], data["query"]
    if not isinstance(query_id, str | int) or isinstance(query_id, bool) or not str(query_id).strip():
        raise ConfigError(f"{where}: 'id' must be a non-empty string")
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"{where}: 'query' must be a non-empty string")
    relevant = _relevant(data["relevant"], where)
    return LabelledQuery(
        id=str(query_id),
        query=text,
        relevant=relevant,
        grades=_grades(data.get("grades", {}), relevant, where),
        filters=_filters(data.get("filters", {}), where),
        category=_category(data.get("category", _UNCATEGORISED), where),
    )


def _relevant(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(
            f"{where}: 'relevant' must be a non-empty list of chunk ids (page.md#section) or pages (page.md)"
        )
    if len(set(value)) != len(value):
        twice = sorted({v for v in value if value.count(v) > 1})
        raise ConfigError(f"{where}: 'relevant' lists {', '.join(twice)} more than once")
    kinds = {"#" in v for v in value}
    if len(kinds) > 1:
        raise ConfigError(
            f"{where}: 'relevant' mixes sections (with '#') and pages (without): ranks count sections "
            "for the one and unique pages for the other; split it into two queries"
        )
    return tuple(value)


def _grades(value: Any, relevant: tuple[str, ...], where: str) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'grades' must map relevant ids to positive numbers")
    grades: dict[str, float] = {}
    for key, grade in value.items():
        if key not in relevant:
            raise ConfigError(f"{where}: 'grades' names {key!r}, which is not in 'relevant'")
        if (
            not isinstance(grade, int | float)
            or isinstance(grade, bool)
            or not math.isfinite(grade)
            or grade <= 0
        ):
            raise ConfigError(f"{where}: grade of {key!r} must be a positive number (got {grade!r})")
        grades[key] = float(grade)
    return grades


def _filters(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where}: 'filters' must map facet names to one string value each")
    return {str(k): v for k, v in value.items()}


def _category(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{where}: 'category' must be a string")
    return value
