"""Ranking metrics at k: hand-worked cases and the bounds every ranking keeps."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_mcp.eval.matching import Hit, judge
from docs_mcp.eval.metrics import mean_metrics, percentile, score
from docs_mcp.eval.queries import LabelledQuery

pytestmark = pytest.mark.timeout(60)


def _scores(relevant: tuple[str, ...], ranked: list[str], ks: list[int], **grades: float) -> dict[str, float]:
    query = LabelledQuery("q", "q", relevant, grades={f"{k}.md": g for k, g in grades.items()})
    return score(judge(query, [Hit(f"{page}#s", page) for page in ranked]), ks)


def test_each_metric_at_k_on_a_worked_example() -> None:
    # Relevant b and d; ranking a b c d: found at ranks 2 and 4.
    scores = _scores(("b.md", "d.md"), ["a.md", "b.md", "c.md", "d.md"], [1, 3, 5])
    assert scores["recall@1"] == 0 and scores["hit@1"] == 0 and scores["mrr@1"] == 0
    assert scores["recall@3"] == 0.5 and scores["precision@3"] == pytest.approx(1 / 3)
    assert scores["mrr@3"] == 0.5 and scores["hit@3"] == 1
    assert scores["recall@5"] == 1 and scores["precision@5"] == pytest.approx(2 / 5)
    ideal = 1 + 1 / math.log2(3)
    assert scores["ndcg@5"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)


def test_ndcg_weighs_grades_and_a_perfect_graded_order_scores_one() -> None:
    # Grades a=1, b=2: ranking a then b is worse than b then a.
    worse = _scores(("a.md", "b.md"), ["a.md", "b.md"], [2], b=2)["ndcg@2"]
    best = _scores(("a.md", "b.md"), ["b.md", "a.md"], [2], b=2)["ndcg@2"]
    assert best == pytest.approx(1.0)
    assert worse == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_a_short_ranking_is_not_rewarded_by_precision() -> None:
    assert _scores(("a.md",), ["a.md"], [10])["precision@10"] == pytest.approx(0.1)


@given(
    relevant=st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=5, unique=True),
    ranked=st.lists(st.sampled_from("abcdefghij"), max_size=12),
    k=st.integers(1, 12),
)
def test_every_metric_stays_within_zero_and_one(relevant: list[str], ranked: list[str], k: int) -> None:
    scores = _scores(tuple(f"{r}.md" for r in relevant), [f"{r}.md" for r in ranked], [k])
    assert all(0.0 <= value <= 1.0 + 1e-12 for value in scores.values()), scores
    assert (scores[f"hit@{k}"] == 1) == (scores[f"mrr@{k}"] > 0) == (scores[f"recall@{k}"] > 0)


def test_means_and_percentiles() -> None:
    assert mean_metrics([{"recall@1": 1.0}, {"recall@1": 0.0}]) == {"recall@1": 0.5}
    assert mean_metrics([]) == {}
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.95) == pytest.approx(4.8)
    assert percentile([], 0.5) == 0.0
