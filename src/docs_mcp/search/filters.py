"""Facet filters -> LanceDB prefilter WHERE clauses, built only from validated values.

A value reaches SQL only after it was found among the values the index holds for that facet, and
then only as a quoted literal; column names come from ``facet_column`` (``[a-z0-9_]`` only). So no
caller-supplied string is ever pasted into SQL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from docs_mcp.errors import QueryError
from docs_mcp.search.facets import SPEC_FACETS, FacetConventions
from docs_mcp.store.columns import facet_column

_SHOWN_VALUES = 20


def sql_literal(value: str) -> str:
    """``value`` as a SQL string literal: quotes doubled; backslashes are literal in Lance SQL."""
    return "'" + value.replace("'", "''") + "'"


def validate_filters(filters: Mapping[str, str], facets: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """``filters`` checked against the facets and values the index holds.

    Raises ``QueryError`` naming the facet or value and listing what is available.
    """
    checked: dict[str, str] = {}
    for name, value in sorted(filters.items()):
        if name not in facets:
            available = ", ".join(sorted(facets)) or "none (this index has no facets)"
            raise QueryError(f"unknown filter {name!r}; available filters: {available}")
        values = facets[name]
        if value not in values:
            shown = ", ".join(values[:_SHOWN_VALUES]) + (", ..." if len(values) > _SHOWN_VALUES else "")
            raise QueryError(f"{name} = {value!r} matches nothing in this index; {name} is one of: {shown}")
        checked[name] = value
    return checked


def build_where(
    filters: Mapping[str, str],
    facets: Mapping[str, Sequence[str]],
    conventions: FacetConventions = SPEC_FACETS,
) -> str | None:
    """The prefilter for ``filters`` (None when there is none), with the auto-include rule applied
    when ``conventions`` asks for it and the index has the scope facet (see ``docs_mcp.search.facets``).

    Raises ``QueryError`` for an unknown facet or a value the index does not hold.
    """
    checked = validate_filters(filters, facets)
    language, scope = conventions.language, conventions.scope
    auto_include = (
        conventions.auto_include and language in checked and scope not in checked and scope in facets
    )
    clauses: list[str] = []
    for name, value in checked.items():
        equals = f"{facet_column(name)} = {sql_literal(value)}"
        if auto_include and name == language:
            column = facet_column(scope)
            sdk, guide = sql_literal(conventions.sdk_specific), sql_literal(conventions.global_guide)
            equals = f"(({column} = {sdk} AND {equals}) OR {column} = {guide})"
        clauses.append(equals)
    return " AND ".join(clauses) if clauses else None
