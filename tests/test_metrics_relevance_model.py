"""The relevance model behind "likely": rank bands, counts, and what it concludes from them."""

from __future__ import annotations

import numpy as np
import pytest

from labeler.metrics.relevance_model import BANDS, RelevanceModel, band, cell


def test_bands_of_ranks() -> None:
    ranks = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 15, 16, 20, 21, 30, 31, 50, 51, 100, 101, 5000]
    assert band(np.array(ranks)).tolist() == [
        0, 1, 2, 3, 4, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]  # fmt: skip
    assert cell(np.array([1]), np.array([0])).tolist() == [1 * BANDS + 0]


def test_a_questions_labels_in_one_cell_count_as_their_square_root() -> None:
    """Nine labels of one question at A's rank 1 (B absent) weigh 3; nine of nine questions
    weigh 9."""
    one = RelevanceModel.fit(np.ones(9), np.zeros(9), np.zeros(9), np.zeros(9))
    assert one.counts[1, 0].tolist() == pytest.approx([3.0, 0.0, 0.0])
    nine = RelevanceModel.fit(np.ones(9), np.zeros(9), np.zeros(9), np.arange(9))
    assert nine.counts[1, 0].tolist() == pytest.approx([9.0, 0.0, 0.0])


def relevant_share(model: RelevanceModel, rank_a: int, rank_b: int) -> float:
    theta = model.sample(np.random.default_rng(0), 4000)
    return float(theta[:, cell(np.array([rank_a]), np.array([rank_b]))[0], 1:].sum(axis=1).mean())


def test_labels_on_one_runs_chunks_inform_the_others_alike() -> None:
    """Only chunks A ranks first (B never returned them) were labelled, all relevant: the
    model expects the chunks B ranks first (A never returned) to be about as relevant, not
    less, so neither run looks better for having been labelled first."""
    n = 12
    model = RelevanceModel.fit(np.ones(n), np.zeros(n), np.full(n, 2), np.arange(n))
    a_first, b_first = relevant_share(model, 1, 0), relevant_share(model, 0, 1)
    assert a_first > 0.8
    assert b_first == pytest.approx(a_first, abs=0.15)


def test_what_the_labels_show_wins_over_the_prior() -> None:
    """A's top chunks (B absent) relevant 30 times in 30 questions, B's (A absent) never in 30:
    the model believes it."""
    n = 30
    ranks_a = np.concatenate([np.ones(n), np.zeros(n)])
    ranks_b = np.concatenate([np.zeros(n), np.ones(n)])
    grades = np.concatenate([np.full(n, 2), np.zeros(n)])
    model = RelevanceModel.fit(ranks_a, ranks_b, grades, np.arange(2 * n))
    assert relevant_share(model, 1, 0) > 0.8
    assert relevant_share(model, 0, 1) < 0.2


def test_no_labels_at_all_is_a_broad_prior() -> None:
    model = RelevanceModel.fit(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0))
    theta = model.sample(np.random.default_rng(0), 2000)
    assert theta.shape == (2000, BANDS * BANDS, 3)
    assert np.allclose(theta.sum(axis=-1), 1.0)
    relevant = theta[:, cell(np.array([1]), np.array([1]))[0], 1:].sum(axis=1)
    assert 0.4 < relevant.mean() < 0.9
    assert relevant.std() > 0.2


def test_the_curve_recovers_a_known_logistic_relevance() -> None:
    """5,000 chunks whose relevance follows a known curve in (returned, log-rank): the fit finds
    its coefficients (the prior barely matters with this much data)."""
    from labeler.metrics.relevance_model import Curve, features

    rng = np.random.default_rng(3)
    returned = rng.random((2, 5000)) < 0.6  # a third of the chunks missing from each run
    rank_a = rng.integers(1, 60, 5000) * returned[0]
    rank_b = rng.integers(1, 60, 5000) * returned[1]
    x = features(rank_a, rank_b)
    truth = np.array([-1.0, 1.5, -0.6, 0.0, 0.0])
    y = (rng.random(5000) < 1 / (1 + np.exp(-(x @ truth)))).astype(float)
    curve = Curve.fit(x, y, np.ones(5000))
    sd = np.sqrt(np.diag(curve.cov))
    assert np.all(np.abs(curve.mean - truth) < 3 * sd)  # within its own uncertainty
    assert np.all(sd < 0.2)


def test_one_lucky_label_does_not_bend_a_band() -> None:
    """Forty labelled chunks at ranks 8 to 20 of A (B absent), all irrelevant but one at rank
    13: the chance that another rank-13 chunk is relevant stays low."""
    ranks = np.arange(40) % 13 + 8
    grades = np.zeros(40, dtype=int)
    grades[np.flatnonzero(ranks == 13)[0]] = 2
    model = RelevanceModel.fit(ranks, np.zeros(40), grades, np.arange(40))
    assert relevant_share(model, 13, 0) < 0.15
    # The other run's rank 13, never labelled, is as uncertain as the prior allows, but the
    # runs are alike a priori: not much likelier to be relevant.
    assert relevant_share(model, 0, 13) < 0.15


def test_only_the_cells_asked_for_are_drawn_and_their_means_agree_with_the_draws() -> None:
    """``sample`` for a few cells has one column per cell asked for; ``expected`` (each cell's
    Dirichlet mean given the curves) averages to what the draws average to, with less spread."""
    n = 20
    model = RelevanceModel.fit(np.ones(n), np.zeros(n), np.arange(n) % 3, np.arange(n))
    cells = cell(np.array([1, 0, 12]), np.array([0, 1, 12]))
    draws = model.sample(np.random.default_rng(1), 20_000, cells)
    means = model.expected(np.random.default_rng(2), 20_000, cells)
    assert draws.shape == means.shape == (20_000, 3, 3)
    assert np.allclose(means.sum(axis=-1), 1.0)
    assert means.mean(axis=0) == pytest.approx(draws.mean(axis=0), abs=0.01)
    assert (means.std(axis=0) < draws.std(axis=0)).all()


def test_a_curve_draws_what_numpy_multivariate_normal_draws_to_the_last_bit() -> None:
    """Curve.sample keeps its Cholesky factor instead of numpy's checks and factorisation on
    every call: the same draws, and the stream left at the same place."""
    from labeler.metrics.relevance_model import Curve

    for seed in range(50):
        rng = np.random.default_rng(seed)
        d = int(rng.integers(2, 7))
        a = rng.normal(size=(d, d))
        curve = Curve(rng.normal(size=d), a @ a.T + np.eye(d))
        ours, numpys = np.random.default_rng([seed, 7]), np.random.default_rng([seed, 7])
        worlds = int(rng.integers(1, 120))
        expected = numpys.multivariate_normal(curve.mean, curve.cov, worlds, method="cholesky")
        assert np.array_equal(curve.sample(ours, worlds), expected)
        assert ours.random() == numpys.random()


def test_the_sum_over_grades_is_numpys_to_the_last_bit() -> None:
    from labeler.metrics.relevance_model import _last_sum

    rng = np.random.default_rng(4)
    for shape in [(50, 72, 3), (7, 3), (3,), (4, 2, 5), (0, 3)]:
        values = rng.standard_gamma(rng.random(shape) * 4)
        assert np.array_equal(_last_sum(values), values.sum(axis=-1, keepdims=True))
