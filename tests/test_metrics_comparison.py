"""Comparisons: mean difference, bootstrap interval, randomization p-value, wins/ties/losses.
Small cases are worked out by hand (the exact test enumerates every sign pattern)."""

from __future__ import annotations

import numpy as np
import pytest

from labeler.errors import LabelerError
from labeler.metrics.comparison import bootstrap_means, compare, randomization_p
from labeler.metrics.evaluation import evaluate


def results(found_a: list[bool], found_b: list[bool]):
    """Two runs over n one-chunk questions: each finds the chunk at rank 1 or not at all."""
    qrels = {f"q{i}": {"c": 1} for i in range(len(found_a))}

    def run(found: list[bool]) -> dict:
        return {f"q{i}": ["c" if hit else "x"] for i, hit in enumerate(found)}

    return evaluate(qrels, run(found_a), "recall@1"), evaluate(qrels, run(found_b), "recall@1")


def test_identical_runs() -> None:
    a, b = results([True, False, True], [True, False, True])
    (c,) = compare(a, b)
    assert (c.difference, c.ci_low, c.ci_high, c.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert (c.wins, c.ties, c.losses) == (0, 3, 0)


def test_three_losses_by_hand() -> None:
    """d = (-1, -1, -1): of the 8 sign patterns, 2 reach |mean| = 1: p = 0.25, exactly."""
    a, b = results([True] * 3, [False] * 3)
    (c,) = compare(a, b)
    assert c.difference == -1.0
    assert (c.ci_low, c.ci_high) == (-1.0, -1.0)  # every resample of a constant is that constant
    assert c.p_value == 0.25
    assert c.p_exact
    assert (c.wins, c.ties, c.losses) == (0, 0, 3)
    assert (c.baseline_mean, c.run_mean, c.questions) == (1.0, 0.0, 3)


def test_two_questions_by_hand() -> None:
    """d = (1, 0): resampled means 0, 1/2, 1 with chances 1/4, 1/2, 1/4, so the 95% interval
    is [0, 1]; sign flips give |mean| = 1/2 always: p = 1."""
    a, b = results([False, True], [True, True])
    (c,) = compare(a, b)
    assert c.difference == 0.5
    assert (c.ci_low, c.ci_high) == (0.0, 1.0)
    assert c.p_value == 1.0
    assert (c.wins, c.ties, c.losses) == (1, 1, 0)


def test_many_questions_use_random_sign_flips() -> None:
    """40 wins out of 40: no random pattern of 10,000 reaches the observed mean, so p is the
    smallest the Monte Carlo test can give, 1 / 10,001."""
    a, b = results([False] * 40, [True] * 40)
    (c,) = compare(a, b)
    assert not c.p_exact
    assert c.p_value == pytest.approx(1 / 10_001)


def test_same_seed_same_figures_other_seed_other_draws() -> None:
    rng = np.random.default_rng(7)
    a, b = results(list(rng.random(200) < 0.5), list(rng.random(200) < 0.6))
    first, again = compare(a, b, seed=3)[0], compare(a, b, seed=3)[0]
    other = compare(a, b, seed=4)[0]
    assert first == again
    assert (first.ci_low, first.ci_high, first.p_value) != (
        other.ci_low,
        other.ci_high,
        other.p_value,
    )
    assert first.ci_low < first.difference < first.ci_high


def test_bootstrap_against_naive_resampling() -> None:
    """The count-and-multiply bootstrap is the ordinary one: same mean and spread as resampling
    question indices directly."""
    rng = np.random.default_rng(0)
    d = np.zeros((60, 1))
    d[:25, 0] = rng.normal(size=25)
    ours = bootstrap_means(d, 40_000, seed=1)[:, 0]
    naive = d[rng.integers(0, 60, size=(40_000, 60)), 0].mean(axis=1)
    assert ours.mean() == pytest.approx(naive.mean(), abs=0.005)
    assert ours.std() == pytest.approx(naive.std(), rel=0.03)


def test_a_comparison_does_not_depend_on_what_else_is_compared() -> None:
    rng = np.random.default_rng(3)
    a, b = results(list(rng.random(80) < 0.5), list(rng.random(80) < 0.6))
    c, _ = results(list(rng.random(80) < 0.7), [True] * 80)
    alone = compare(a, b)[0]
    beside = compare(a, [c, b])[1]
    assert alone == beside


def test_randomization_agrees_with_enumeration() -> None:
    rng = np.random.default_rng(5)
    d = rng.normal(size=(12, 2))
    exact, is_exact = randomization_p(d, resamples=4096, seed=0)
    sampled, is_sampled_exact = randomization_p(d, resamples=4095, seed=0)
    assert is_exact
    assert not is_sampled_exact
    assert sampled == pytest.approx(exact, abs=0.03)


def test_several_runs_share_one_set_of_resamples() -> None:
    a, b = results([True, False, True, False], [True, True, True, False])
    c, _ = results([False, False, True, False], [True] * 4)
    together = compare(a, [b, c])
    assert [x.run for x in together] == [b.run, c.run]
    assert together[0] == compare(a, b)[0]


def test_comparisons_need_the_same_questions() -> None:
    a = evaluate({"q": {"c": 1}}, {"q": ["c"]}, "recall@1")
    b = evaluate({"p": {"c": 1}}, {"p": ["c"]}, "recall@1")
    with pytest.raises(LabelerError, match="different questions"):
        compare(a, b)


def test_nothing_to_compare_without_scored_questions() -> None:
    a = evaluate({"q": {"c": 0}}, {"q": ["c"]}, "recall@1")
    assert compare(a, a) == ()


@pytest.mark.parametrize("resamples", [0, -5, True])
def test_bad_resamples(resamples) -> None:
    a, b = results([True], [False])
    with pytest.raises(LabelerError, match='field "resamples"'):
        compare(a, b, resamples=resamples)


def _comparison(ci_low: float, ci_high: float, p_value: float):
    from labeler.metrics.comparison import Comparison

    return Comparison(
        "recall@10", "bm25", "hybrid", 29, 0.5, 0.6, 0.1, ci_low, ci_high, p_value,
        10, 9, 10, 0.95, 10_000, False,
    )  # fmt: skip


def test_a_verdict_the_interval_and_the_test_disagree_on_gets_a_sentence() -> None:
    assert _comparison(0.01, 0.2, 0.01).mixed_verdict() is None  # both: a difference
    assert _comparison(-0.01, 0.2, 0.3).mixed_verdict() is None  # both: noise
    assert _comparison(0.004, 0.2, 0.07).mixed_verdict() == (
        "recall@10: its 95% interval excludes 0 but the randomization test's p = 0.070 is not"
        " below 0.05. The two resample differently (the interval the questions, the test the"
        " signs of their differences) and disagree near the edge: take the difference of"
        " hybrid over bm25 as not yet established; more questions, or label next, settle it."
    )
    assert (
        _comparison(-0.001, 0.2, 0.04)
        .mixed_verdict()
        .startswith(
            "recall@10: the randomization test's p = 0.040 is below 0.05 but its 95% interval"
            " includes 0."
        )
    )
