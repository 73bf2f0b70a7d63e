"""A judge's grades as the relevance model's prior, worked by hand on small pools."""

import numpy as np
import pytest

from labeler.metrics.decision import decide
from labeler.metrics.judge_prior import NONE, JudgePrior, slot_grades
from labeler.metrics.relevance_model import CELLS
from labeler.metrics.tables import Qrels

RUN_A = {"q1": ["a", "b", "c"], "q2": ["d", "e"]}
RUN_B = {"q1": ["c", "b", "a"], "q2": ["e", "d"]}


def contest(qrels=None):
    from labeler.metrics.contest import build_contest
    from labeler.metrics.tables import as_run

    labels = qrels or Qrels.from_rows([], [], []).with_questions(["q1", "q2"])
    return build_contest(labels, as_run(RUN_A, name="A"), as_run(RUN_B, name="B"), "ndcg@3")


def test_slot_grades_follow_the_slots() -> None:
    c = contest()
    grades = slot_grades(c, {("q1", "a"): 2, ("q2", "e"): 0, ("q1", "zz"): 1, ("q2", "d"): 7})
    ids = c.chunk_ids(np.arange(c.size))
    found = {(c.questions[q], i): int(g) for q, i, g in zip(c.question, ids, grades, strict=True)}
    assert found == {
        ("q1", "a"): 2,
        ("q1", "b"): -1,
        ("q1", "c"): -1,
        ("q2", "d"): -1,
        ("q2", "e"): 0,
    }


def test_the_confusion_is_the_prior_plus_the_overlap() -> None:
    qrels = Qrels.from_rows(["q1", "q1"], ["a", "b"], [2, 0]).with_questions(["q1", "q2"])
    c = contest(qrels)
    grades = slot_grades(c, {("q1", "a"): 2, ("q1", "b"): 1})
    prior = JudgePrior.fit(c, grades)
    # prior: 6 labels' worth per true grade, 60 % right: 3.6 on the diagonal, 1.2 elsewhere;
    # q1's two labels fall in two cells (2 -> 2, 0 -> 1): weight 1 each
    expected = np.full((3, 3), 1.2) + np.eye(3) * 2.4
    expected[2, 2] += 1
    expected[0, 1] += 1
    assert prior.confusion == pytest.approx(expected)
    assert prior.agreement == pytest.approx((3.6 / 7 + 3.6 / 6 + 4.6 / 7) / 3)
    assert prior.levels(np.arange(c.size)).tolist().count(NONE) == c.size - 2


def test_combining_is_bayes_rule() -> None:
    """A cell at (0.5, 0.25, 0.25) and a judge right 80 % of the time (10 % each way wrong):
    it says 2, (0.05, 0.025, 0.2) / 0.275; it says 0, (0.4, 0.025, 0.025) / 0.45."""
    confusion = (np.full((3, 3), 0.1) + np.eye(3) * 0.7) * 1e7  # draws sit at the mean
    prior = JudgePrior(np.zeros(0, dtype=np.int8), confusion)
    theta = np.tile([0.5, 0.25, 0.25], (2, CELLS, 1))
    out = prior.combine(np.random.default_rng(0), theta).reshape(2, CELLS, 4, 3)
    assert out[:, 5, 2] == pytest.approx(
        np.tile([0.05 / 0.275, 0.025 / 0.275, 0.2 / 0.275], (2, 1)), abs=1e-3
    )
    assert out[:, 5, 0] == pytest.approx(
        np.tile([0.4 / 0.45, 0.025 / 0.45, 0.025 / 0.45], (2, 1)), abs=1e-3
    )
    assert out[:, 5, NONE] == pytest.approx(theta[:, 5])


def test_a_judge_that_favours_a_run_moves_the_probability_toward_it() -> None:
    empty = Qrels.from_rows([], [], []).with_questions(["q1", "q2"])
    without = decide(empty, RUN_A, RUN_B, "ndcg@3", budget=0)
    # the judge says A's first chunks answer and B's first do not
    judge = {("q1", "a"): 2, ("q1", "c"): 0, ("q2", "d"): 2, ("q2", "e"): 0}
    toward_a = decide(empty, RUN_A, RUN_B, "ndcg@3", budget=0, prior=judge)
    flipped = {k: 2 - v for k, v in judge.items()}
    toward_b = decide(empty, RUN_A, RUN_B, "ndcg@3", budget=0, prior=flipped)
    assert toward_b.probability < without.probability < toward_a.probability
    # proof needs people: the interval is the same with or without the judge
    assert (toward_a.low, toward_a.high) == (without.low, without.high)
    assert toward_a.status != "proven"


def test_an_empty_prior_changes_nothing() -> None:
    empty = Qrels.from_rows([], [], []).with_questions(["q1", "q2"])
    plain = decide(empty, RUN_A, RUN_B, "ndcg@3", budget=3)
    none = decide(empty, RUN_A, RUN_B, "ndcg@3", budget=3, prior={})
    assert none.probability == plain.probability
    assert [(p.question, p.chunk) for p in none.pairs] == [
        (p.question, p.chunk) for p in plain.pairs
    ]
