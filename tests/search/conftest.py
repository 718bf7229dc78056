"""Fixtures shared by the search tests."""

from __future__ import annotations

from typing import Any

import pytest

from docs_mcp.search import lance


@pytest.fixture
def text_leg_filters(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The filter of every full-text query the searches run from here on (``lance.text_leg``), in order:
    how many queries a search costs, and which of them rank the leads only."""
    filters: list[str | None] = []
    text_leg = lance.text_leg

    async def counted(*args: Any, **kwargs: Any) -> Any:
        filters.append(args[2])
        return await text_leg(*args, **kwargs)

    monkeypatch.setattr(lance, "text_leg", counted)
    return filters
