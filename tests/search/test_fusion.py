from __future__ import annotations

import pytest

from docs_mcp.search.fusion import FusionConfig, fuse

TEXT = [("a", 10.0), ("b", 5.0), ("c", 1.0)]
VECTOR = [("c", 0.9), ("d", 0.5), ("a", 0.1)]


@pytest.mark.parametrize("method", ["linear", "dbsf", "rrf"])
def test_every_id_of_either_leg_is_ranked_once(method: str) -> None:
    fused = fuse(TEXT, VECTOR, FusionConfig(method=method))  # type: ignore[arg-type]
    assert sorted(cid for cid, _ in fused) == ["a", "b", "c", "d"]
    assert [score for _, score in fused] == sorted((score for _, score in fused), reverse=True)


def test_linear_fusion_sums_min_max_normalised_scores_with_the_weights() -> None:
    fused = dict(fuse(TEXT, VECTOR, FusionConfig(method="linear", text_weight=1.0, vector_weight=1.0)))
    assert fused["a"] == pytest.approx(1.0 + 0.0)
    assert fused["c"] == pytest.approx(0.0 + 1.0)
    assert fused["b"] == pytest.approx(4 / 9)


def test_the_text_weight_tips_a_tie_towards_the_full_text_leg() -> None:
    assert fuse(TEXT, VECTOR, FusionConfig())[0][0] == "a"  # text weighted 1.5 by default
    assert fuse(TEXT, VECTOR, FusionConfig(text_weight=1.0, vector_weight=2.0))[0][0] == "c"


def test_ties_are_broken_by_id_so_the_order_is_stable() -> None:
    equal = FusionConfig(method="rrf", text_weight=1.0, vector_weight=1.0)
    assert [cid for cid, _ in fuse([("b", 1.0)], [("a", 0.5)], equal)] == ["a", "b"]
    assert fuse([("b", 2.0), ("a", 2.0)], [], FusionConfig(method="dbsf")) == [("a", 1.5), ("b", 1.5)]


def test_rrf_scores_by_rank_not_by_score() -> None:
    fused = dict(fuse([("a", 100.0)], [("a", 0.001)], FusionConfig(method="rrf", rrf_k=60)))
    assert fused["a"] == pytest.approx(1.5 / 61 + 1.0 / 61)
