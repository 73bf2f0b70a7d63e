"""Reciprocal rank fusion, worked by hand with k = 60 and k = 0."""

import pytest

from labeler.dense.fusion import RRF_K, Fused, rrf


def test_the_constant_is_the_papers() -> None:
    assert RRF_K == 60


def test_a_chunk_both_searches_found_beats_either_first_place() -> None:
    bm25 = ["x", "a", "b"]
    dense = ["a", "y"]
    fused = rrf([bm25, dense])
    # x = 1/61, a = 1/62 + 1/61, b = 1/63, y = 1/62
    assert [f.chunk_id for f in fused] == ["a", "x", "y", "b"]
    assert fused[0] == Fused("a", 1, pytest.approx(1 / 62 + 1 / 61))
    assert fused[1].score == pytest.approx(1 / 61)
    assert fused[3] == Fused("b", 4, pytest.approx(1 / 63))


def test_equal_scores_go_by_best_rank_then_ranking_order() -> None:
    # k = 0: p = 1/1 + 1/3 = 4/3 (best rank 1), q = 1/3 + 1/1 = 4/3 (best rank 1, ranking 2):
    # the first ranking's chunk first. r and s: 1/2 each, best rank 2 in ranking 1 and 2.
    fused = rrf([["p", "r", "q"], ["q", "s", "p"]], k=0)
    assert [f.chunk_id for f in fused] == ["p", "q", "r", "s"]
    assert [f.score for f in fused] == pytest.approx([4 / 3, 4 / 3, 1 / 2, 1 / 2])
    # the same place in two rankings: the first ranking's chunk first
    assert [f.chunk_id for f in rrf([["b"], ["a"]], k=0)] == ["b", "a"]


def test_limit_duplicates_and_empty_rankings() -> None:
    fused = rrf([["a", "a", "b"], []], k=0, limit=1)
    assert fused == [Fused("a", 1, 1.0)]
    assert rrf([]) == []
    assert rrf([[], []]) == []


def test_a_negative_constant_is_refused() -> None:
    with pytest.raises(ValueError, match="RRF constant"):
        rrf([["a"]], k=-1)
