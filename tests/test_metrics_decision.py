"""decide(): the proven interval of the mean, the likely rule, the next pairs, and the model's
calibration in simulation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.errors import LabelerError
from labeler.metrics import decision
from labeler.metrics.contest import build_contest
from labeler.metrics.decision import decide, mean_bounds
from labeler.metrics.difference import Frame, difference_of
from tests import label_next_sim as sim
from tests.test_metrics_difference import cases


@settings(max_examples=40, deadline=None)
@given(
    case=cases(chunks=[f"c{i}" for i in range(4)], questions=3),
    metric=st.sampled_from(["ndcg@2", "precision@2", "recall@2", "mrr", "map@3"]),
)
def test_mean_bounds_are_the_extremes_of_the_mean_over_every_grading(case, metric) -> None:
    """Every joint grading of all questions' unjudged chunks, the mean over the questions it
    scores (questions may drop out when nothing relevant is left)."""
    qrels, run_a, run_b = case
    contest = build_contest(qrels, run_a, run_b, metric)
    frame = Frame.of(contest)
    difference = difference_of(contest)
    free = np.flatnonzero(contest.grade < 0)
    if len(free) > 7:
        return
    known = np.maximum(contest.grade, 0).astype(np.int8)
    gradings = np.repeat(known[None], 3 ** len(free), axis=0)
    gradings[:, free] = np.array(list(itertools.product((0, 1, 2), repeat=len(free))))
    d, scored = difference.evaluate(frame, gradings)
    count = scored.sum(axis=1)
    means = (d.sum(axis=1) / np.maximum(count, 1))[count > 0]
    low, high, sure = mean_bounds(difference.bounds(frame))
    if len(means) == 0:
        assert (low, high, sure) == (0.0, 0.0, 0)
        return
    assert low == pytest.approx(means.min(), abs=1e-9)
    assert high == pytest.approx(means.max(), abs=1e-9)
    assert sure == int(scored.all(axis=0).sum())


# -- the rules on hand-made cases ------------------------------------------------------------


def test_proven_when_no_grading_of_the_unjudged_chunks_can_reverse_it() -> None:
    qrels = {
        "q1": {"r": 1, "n": 0},  # x and y unjudged: d = (1 + x - y) / 2, from 0 to 1
        "q2": {"s": 1, "m": 0, "t": 0, "o": 0},  # fully judged: d = +0.5
    }
    run_a = {"q1": ["r", "x"], "q2": ["s", "t"]}
    run_b = {"q1": ["n", "y"], "q2": ["m", "o"]}
    decision = decide(qrels, run_a, run_b, "precision@2")
    assert decision.status == "proven"
    assert decision.winner == "A"
    assert (decision.low, decision.high) == (0.25, 0.75)  # (0 + 0.5) / 2, (1 + 0.5) / 2
    assert decision.pairs == ()  # nothing more to label once proven


def test_not_proven_while_one_grading_could_tie() -> None:
    qrels = {"q1": {"r": 1, "n": 0}}
    decision = decide(qrels, {"q1": ["r", "x"]}, {"q1": ["n", "y"]}, "precision@2")
    assert decision.status != "proven"
    assert (decision.low, decision.high) == (0.0, 1.0)
    assert {p.chunk for p in decision.pairs} == {"x", "y"}


def test_proven_for_b_and_a_proven_tie() -> None:
    qrels = {"q": {"a": 0, "b": 2}}
    decision = decide(qrels, {"q": ["a"]}, {"q": ["b"]}, "ndcg@1")
    assert (decision.status, decision.winner, decision.low) == ("proven", "B", -1.0)
    tie = decide({"q": {"a": 2}}, {"q": ["a"]}, {"q": ["a"]}.copy(), "mrr", budget=5)
    assert (tie.status, tie.winner, tie.low, tie.high) == ("proven", None, 0.0, 0.0)


def test_likely_before_proven_when_the_labels_make_the_unjudged_predictable() -> None:
    """Ten questions where A's top chunk is judged relevant and B's is not; twenty where A's
    top chunk is unjudged and B's is judged relevant. In the worst case all twenty of A's are
    irrelevant and B wins, so nothing is proven; but every one of A's top chunks judged so far
    was relevant, so the model expects these to be too, and A likely wins."""
    qrels, run_a, run_b = {}, {}, {}
    for i in range(10):
        qrels[f"w{i}"] = {f"a{i}": 2, f"b{i}": 0}
        run_a[f"w{i}"], run_b[f"w{i}"] = [f"a{i}"], [f"b{i}"]
    for i in range(20):
        qrels[f"u{i}"] = {f"d{i}": 2}
        run_a[f"u{i}"], run_b[f"u{i}"] = [f"c{i}"], [f"d{i}"]
    decision = decide(qrels, run_a, run_b, "precision@1")
    assert decision.low < 0 < decision.high
    assert (decision.status, decision.winner) == ("likely", "A")
    assert decision.probability >= 0.95
    assert "likely: A better than B with probability" in decision.sentence()


def test_open_with_no_labels_at_all_and_pairs_up_to_the_budget() -> None:
    run_a = {f"q{i}": [f"a{i}", f"s{i}"] for i in range(15)}
    run_b = {f"q{i}": [f"b{i}", f"s{i}"] for i in range(15)}
    decision = decide({}, run_a, run_b, "ndcg@2", budget=7)
    assert decision.status == "open"
    assert decision.winner is None
    assert decision.labelled == 0
    assert decision.pool == 45
    assert len(decision.pairs) == 7
    assert all(p.weight > 0 for p in decision.pairs)
    everything = decide({}, run_a, run_b, "ndcg@2", budget=None)
    assert len(everything.pairs) == 45


def test_the_json_has_exactly_the_documented_shape() -> None:
    decision = decide({}, {"q": ["a", "b"]}, {"q": ["b", "c"]}, "recall@2", budget=2)
    data = decision.as_dict()
    assert list(data) == ["status", "winner", "difference", "probability", "labelled", "pairs"]
    assert list(data["difference"]) == ["low", "high"]
    assert [list(p) for p in data["pairs"]] == [["question", "chunk", "weight"]] * 2


def test_next_pairs_move_the_difference_most_first() -> None:
    """nDCG@3 with no labels: a chunk one run ranks first and the other never returns moves
    the difference by its gain times 1 - 0 (discounts), the most. One both rank second
    leaves the numerator alone but scales the ideal DCG, so its grade still narrows the
    interval: it weighs more than nothing, though a formula of discounts alone gives it 0."""
    decision = decide({}, {"q": ["a", "s", "x"]}, {"q": ["b", "s", "y"]}, "ndcg@3", budget=None)
    weights = {p.chunk: p.weight for p in decision.pairs}
    assert {p.chunk for p in decision.pairs[:2]} == {"a", "b"}
    assert min(weights["a"], weights["b"]) > max(weights["x"], weights["y"], weights["s"])
    assert weights["s"] > 0


def test_questions_that_cannot_flip_the_sign_on_their_own_come_last() -> None:
    """ "swing" (nothing judged) moves from -1 to +1, more than the others add up to (about
    0.5 + 0.2): it can flip the sign alone. "steady" moves from 0 to 0.5 on top of the
    others' +0.5: it cannot, so its pair comes last, whatever its weight."""
    qrels = {
        "fixed": {"r": 1, "n1": 0, "n2": 0, "n3": 0},  # d = +0.5, fully judged
        "steady": {"n6": 0, "n4": 0, "n5": 0, "r9": 1},  # d = rel(z) / 2: from 0 to 0.5
    }
    run_a = {"fixed": ["r", "n3"], "swing": ["x1", "x2"], "steady": ["z", "n6"]}
    run_b = {"fixed": ["n1", "n2"], "swing": ["y1", "y2"], "steady": ["n4", "n5"]}
    decision = decide(qrels, run_a, run_b, "precision@2", budget=None)
    questions = [p.question for p in decision.pairs]
    assert questions == ["swing"] * 4 + ["steady"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"metric": "precision"}, "metric"),
        ({"metric": "hit_rate@3"}, "metric"),
        ({"metric": "ndcg@"}, "metric"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 0.5}, "confidence"),
        ({"budget": -1}, "budget"),
    ],
)
def test_bad_input_is_one_clear_error(kwargs, field) -> None:
    arguments = {"metric": "ndcg@10", **kwargs}
    metric = arguments.pop("metric")
    with pytest.raises(LabelerError) as error:
        decide({}, {"q": ["a"]}, {"q": ["b"]}, metric, **arguments)
    assert error.value.field == field


def test_the_same_run_twice_is_refused() -> None:
    from labeler.metrics.tables import Run

    run = Run.from_dict({"q": ["a"]}, name="bm25")
    with pytest.raises(LabelerError, match="not 'bm25' with itself"):
        decide({}, run, run, "mrr")


def test_grades_beyond_two_are_refused() -> None:
    with pytest.raises(LabelerError, match="grades 0, 1 and 2"):
        decide({"q": {"a": 3}}, {"q": ["a"]}, {"q": ["b"]}, "ndcg@3")


def test_the_same_inputs_give_the_same_decision() -> None:
    run_a = {f"q{i}": [f"a{i}", f"s{i}"] for i in range(6)}
    run_b = {f"q{i}": [f"s{i}", f"b{i}"] for i in range(6)}
    first = decide({"q0": {"a0": 2}}, run_a, run_b, "ndcg@2")
    again = decide({"q0": {"a0": 2}}, run_a, run_b, "ndcg@2")
    assert first.as_dict() == again.as_dict()


# -- calibration -----------------------------------------------------------------------------


def test_comparisons_called_likely_are_right_in_simulation() -> None:
    """Synthetic collections (not the model's own story: see tests/label_next_sim.py), pairs
    of runs from clearly apart to nearly equal, labelled from an oracle in label-next order
    until a winner is named. Of the winners named, 95 % or more must be right; more figures
    (and every metric) in tests/benchmarks/bench_label_next.py."""
    named = []
    for seed in range(6):
        corpus = sim.synthetic(60, depth=20, seed=500 + seed)
        for a, b in (("strong", "good"), ("good-b", "good"), ("weak", "good-b")):
            truth = sim.truth_sign(corpus.truth, corpus.runs[a], corpus.runs[b], "ndcg@10")
            start = sim.fresh(corpus.questions, corpus.runs[a], corpus.runs[b], "ndcg@10")
            oracle = sim.oracle_grades(start, corpus.truth)
            trace = sim.label_next(start, oracle, truth, stop_at_named=True, rounds=15)
            if trace.named:
                named.append(trace.named == truth)
    assert len(named) >= 10
    assert sum(named) / len(named) >= 0.95


@pytest.mark.parametrize("metric", ["ndcg@5", "map@5", "recall@5", "precision@3", "mrr@5"])
def test_the_bounds_kept_between_decisions_change_no_figure(metric) -> None:
    """Label next keeps each question's bounds, the moves of its slots from them and each
    slot's regraded bounds by what they read (decision._BOUNDS, _MOVES, _REGRADED): along a
    labelling session, every decision with them kept is the one worked out afresh."""
    rng = np.random.default_rng(3)
    chunks = [f"c{j}" for j in range(12)]
    questions = [f"q{i}" for i in range(8)]
    run_a = {q: list(rng.permutation(chunks)[:7]) for q in questions}
    run_b = {q: list(rng.permutation(chunks)[:7]) for q in questions}
    truth = {q: {c: int(rng.choice(3, p=[0.6, 0.25, 0.15])) for c in chunks} for q in questions}
    qrels: dict[str, dict[str, int]] = {q: {} for q in questions}
    for step in range(8):
        kept = decide(qrels, run_a, run_b, metric, budget=None, seed=step)
        decision._REGRADED.clear()
        decision._BOUNDS.clear()
        decision._MOVES.clear()
        afresh = decide(qrels, run_a, run_b, metric, budget=None, seed=step)
        assert kept.pairs == afresh.pairs
        assert (kept.low, kept.high, kept.probability) == (
            afresh.low,
            afresh.high,
            afresh.probability,
        )
        for pair in kept.pairs[:3]:
            qrels[pair.question][pair.chunk] = truth[pair.question][pair.chunk]
