"""Answers within a token budget: how many hits a search page holds, and which window of a section
``get_doc`` returns (see :mod:`docs_mcp.server.tools.budget` for how an answer is counted).

A search page holds whole hits only: as many of the ranked page's hits as fit, the rest left for
the cursor (``held_back``). A ``get_doc`` answer drops whole neighbours first, farthest first, and
only then cuts the requested section into windows at block boundaries; each window's cursor
continues where it ends, so the windows joined are exactly the section's markdown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from docs_mcp.errors import QueryError
from docs_mcp.server.tools.budget import (
    answer_bytes,
    budget_bytes,
    estimate_tokens,
    largest_fitting,
    split_points,
)

Result = dict[str, Any]
Render = Callable[[Result], str]


class BudgetTooSmall(QueryError):
    """Not even the smallest useful answer (one hit, a few characters of a section) fits the budget."""


def fits(result: Result, render: Render, max_tokens: int) -> bool:
    return answer_bytes(result, render(result)) <= budget_bytes(max_tokens)


def fit_hits(page: Callable[[int], Result], total: int, render: Render, max_tokens: int) -> Result:
    """The page of the first ``k`` hits for the largest ``k <= total`` that fits (``page(k)``).

    Raises ``BudgetTooSmall`` when not one hit fits (or, with no hits, not even the empty page)."""
    if fits(page(total), render, max_tokens):
        return page(total)
    low = 1 if total else 0
    count = largest_fitting(low, max(low, total - 1), lambda k: fits(page(k), render, max_tokens))
    if count is None:
        needed = estimate_tokens(answer_bytes(page(low), render(page(low))))
        raise BudgetTooSmall(
            f"max_tokens={max_tokens} is too small for "
            + ("one hit of this search" if total else "this search's answer")
            + f" (it needs about {needed} tokens): pass a larger max_tokens or a shorter query."
        )
    return page(count)


def _last_fitting(boundaries: list[int], ends_fit: Callable[[int], bool]) -> int | None:
    """The index of the last of ``boundaries`` (ascending) that ``ends_fit``, or None."""
    return largest_fitting(0, len(boundaries) - 1, lambda i: ends_fit(boundaries[i]))


@dataclass(frozen=True)
class Window:
    """What a ``get_doc`` answer holds: the chunks (in file order) and, when the requested section is
    cut, the characters ``start..end`` of its markdown."""

    chunks: list[Result]
    start: int = 0
    end: int | None = None


def fit_window(
    chunks: Sequence[Result],
    requested: int,
    start: int,
    answer: Callable[[Window], Result],
    render: Render,
    max_tokens: int,
) -> Result:
    """The answer (``answer(window)``) that fits: all ``chunks``, else fewer neighbours (the farthest
    dropped first, the one after before the one before), else a window of ``chunks[requested]``'s
    markdown from ``start`` that ends at the last block, line or word boundary that fits.

    Raises ``BudgetTooSmall`` when not even a few characters fit."""
    kept = list(range(len(chunks)))
    if start == 0:
        while True:
            result = answer(Window([chunks[i] for i in kept]))
            if fits(result, render, max_tokens):
                return result
            if len(kept) == 1:
                break
            kept.remove(max(kept, key=lambda i: (abs(i - requested), i > requested)))
    markdown: str = chunks[requested]["markdown"]

    def ends_fit(end: int) -> bool:
        return fits(answer(Window([chunks[requested]], start, end)), render, max_tokens)

    best: int | None = None
    reach = budget_bytes(max_tokens)  # a character is at least a byte
    for boundaries in split_points(markdown, start, reach):
        found = _last_fitting(boundaries, ends_fit)
        if found is not None:
            end = boundaries[found]
            # A block boundary wins unless a line (or word) boundary reaches much further.
            if best is None or (end - start) > 2 * (best - start):
                best = end
    if best is None:
        best = largest_fitting(start + 1, min(len(markdown), start + reach), ends_fit)
    if best is None:
        raise BudgetTooSmall(
            f"max_tokens={max_tokens} is too small to hold any of this section: pass a larger max_tokens."
        )
    return answer(Window([chunks[requested]], start, best))
