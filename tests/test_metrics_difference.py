"""Each question's difference A - B under any grading of the unjudged pool, and its bounds, held
to brute force: every grading of the unjudged chunks, scored by ``evaluate`` itself."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.metrics import evaluate
from labeler.metrics.contest import build_contest
from labeler.metrics.difference import EXACT_AP_UNJUDGED, Frame, difference_of
from labeler.metrics.types import Options

CHUNKS = [f"c{i}" for i in range(6)]
METRICS = ["ndcg@3", "ndcg", "precision@3", "recall@3", "mrr", "mrr@2", "map", "map@3"]


@st.composite
def cases(draw, chunks=CHUNKS, questions=2):
    """A few questions, two runs and some labels over a handful of chunks."""
    qrels, run_a, run_b = {}, {}, {}
    for q in range(draw(st.integers(1, questions))):
        qid = f"q{q}"
        run_a[qid] = draw(st.permutations(chunks).map(lambda p: p[: draw(st.integers(0, 4))]))
        run_b[qid] = draw(st.permutations(chunks).map(lambda p: p[: draw(st.integers(0, 4))]))
        labels = draw(st.dictionaries(st.sampled_from(chunks), st.sampled_from([0, 1, 2])))
        qrels[qid] = labels
    return qrels, run_a, run_b


def brute_force(contest, qrels, run_a, run_b, metric, min_grade, gains):
    """Per question: (least, greatest) d over the gradings that leave it scored; None if none
    does. Every unjudged pool chunk takes every grade."""
    out = {}
    for qi, qid in enumerate(contest.questions):
        slots = range(contest.starts[qi], contest.starts[qi + 1])
        free = [i for i in slots if contest.grade[i] < 0]
        values = []
        for combo in itertools.product((0, 1, 2), repeat=len(free)):
            labels = dict(qrels.get(qid, {}))
            labels.update({contest.chunk_id(i): g for i, g in zip(free, combo, strict=True)})
            options = {"min_grade": min_grade, "gains": gains}
            a = evaluate({qid: labels}, {qid: run_a.get(qid, [])}, metric, **options)
            b = evaluate({qid: labels}, {qid: run_b.get(qid, [])}, metric, **options)
            if a.scored[0]:
                values.append(a.values[metric][0] - b.values[metric][0])
        out[qid] = (min(values), max(values)) if values else None
    return out


@settings(max_examples=60, deadline=None)
@given(
    case=cases(),
    metric=st.sampled_from(METRICS),
    min_grade=st.sampled_from([1, 2]),
    gains=st.sampled_from(["linear", "exp"]),
)
def test_bounds_are_the_extremes_over_every_grading(case, metric, min_grade, gains) -> None:
    qrels, run_a, run_b = case
    contest = build_contest(
        qrels, run_a, run_b, metric, options=Options(min_grade=min_grade, gains=gains)
    )
    frame = Frame.of(contest)
    difference = difference_of(contest)
    bounds = difference.bounds(frame)
    expected = brute_force(contest, qrels, run_a, run_b, metric, min_grade, gains)
    at_low, _ = difference.evaluate(frame, bounds.arg_low[None])
    at_high, _ = difference.evaluate(frame, bounds.arg_high[None])
    for i, question in enumerate(contest.questions):
        want = expected[question]
        assert bool(bounds.can_score[i]) == (want is not None)
        if want is None:
            continue
        assert bounds.exact[i]  # small cases: every metric is exact here
        assert bounds.low[i] == pytest.approx(want[0], abs=1e-9)
        assert bounds.high[i] == pytest.approx(want[1], abs=1e-9)
        # The gradings offered as reaching the bounds do reach them.
        assert at_low[0, i] == pytest.approx(want[0], abs=1e-9)
        assert at_high[0, i] == pytest.approx(want[1], abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(case=cases(), metric=st.sampled_from(METRICS), min_grade=st.sampled_from([1, 2]))
def test_evaluate_agrees_with_the_engine_under_random_gradings(case, metric, min_grade) -> None:
    qrels, run_a, run_b = case
    contest = build_contest(qrels, run_a, run_b, metric, options=Options(min_grade=min_grade))
    frame = Frame.of(contest)
    rng = np.random.default_rng(len(contest.questions) + contest.size)
    grading = np.where(contest.grade >= 0, contest.grade, rng.integers(0, 3, contest.size))
    d, scored = difference_of(contest).evaluate(frame, grading.astype(np.int8)[None])
    for i, question in enumerate(contest.questions):
        labels = dict(qrels.get(question, {}))
        for slot in range(contest.starts[i], contest.starts[i + 1]):
            labels[contest.chunk_id(slot)] = int(grading[slot])
        a = evaluate(
            {question: labels}, {question: run_a.get(question, [])}, metric, min_grade=min_grade
        )
        b = evaluate(
            {question: labels}, {question: run_b.get(question, [])}, metric, min_grade=min_grade
        )
        assert bool(scored[0, i]) == bool(a.scored[0])
        expected = a.values[metric][0] - b.values[metric][0] if a.scored[0] else 0.0
        assert d[0, i] == pytest.approx(expected, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(case=cases(), metric=st.sampled_from(METRICS))
def test_single_changes_are_whole_evaluations(case, metric) -> None:
    """The formula the additive metrics use for one regraded slot equals evaluating the whole
    grading with that slot changed."""
    qrels, run_a, run_b = case
    contest = build_contest(qrels, run_a, run_b, metric)
    frame = Frame.of(contest)
    difference = difference_of(contest)
    grading = np.maximum(contest.grade, 0).astype(np.int8)
    slots = np.arange(contest.size)
    changed = difference.single_changes(frame, grading, slots)
    for slot in slots:
        for row, level in enumerate(difference.levels()):
            g = grading.copy()
            g[slot] = level
            d, _ = difference.evaluate(frame, g[None])
            assert changed[row, slot] == pytest.approx(d[0, contest.question[slot]], abs=1e-12)


@st.composite
def long_cases(draw):
    """One question with many unjudged chunks: average precision's sound bound."""
    chunks = [f"c{i}" for i in range(14)]
    labels = draw(st.dictionaries(st.sampled_from(chunks), st.sampled_from([0, 1, 2]), max_size=3))
    run_a = draw(st.permutations(chunks).map(lambda p: p[:7]))
    run_b = draw(st.permutations(chunks).map(lambda p: p[:7]))
    return {"q": labels}, {"q": run_a}, {"q": run_b}


@settings(max_examples=40, deadline=None)
@given(
    case=long_cases(), metric=st.sampled_from(["map", "map@5"]), min_grade=st.sampled_from([1, 2])
)
def test_average_precision_bound_is_sound_beyond_exact_enumeration(case, metric, min_grade) -> None:
    qrels, run_a, run_b = case
    contest = build_contest(qrels, run_a, run_b, metric, options=Options(min_grade=min_grade))
    frame = Frame.of(contest)
    difference = difference_of(contest)
    bounds = difference.bounds(frame)
    free = np.flatnonzero(contest.grade < 0)
    assert bounds.exact[0] == (len(free) <= EXACT_AP_UNJUDGED)
    # Average precision is binary: relevant (2) or not (0) covers every grading.
    patterns = (np.arange(2 ** len(free))[:, None] >> np.arange(len(free))) & 1
    gradings = np.repeat(np.maximum(contest.grade, 0).astype(np.int8)[None], len(patterns), 0)
    gradings[:, free] = patterns * 2
    d, scored = difference.evaluate(frame, gradings)
    values = d[scored[:, 0], 0]
    assert bounds.low[0] <= values.min() + 1e-12
    assert bounds.high[0] >= values.max() - 1e-12
    if bounds.exact[0]:
        assert bounds.low[0] == pytest.approx(values.min())
        assert bounds.high[0] == pytest.approx(values.max())


def test_ndcg_bound_counts_the_ideal_dcg_a_new_relevant_chunk_raises() -> None:
    """A leads with its judged grade-2 chunk first; B has an unjudged chunk first. If that
    chunk is relevant, B gains and so does the ideal DCG: neither "all unjudged irrelevant"
    nor "all relevant" alone gives the least difference."""
    qrels = {"q": {"a": 2}}
    contest = build_contest(qrels, {"q": ["a", "x"]}, {"q": ["y", "a"]}, "ndcg@2")
    frame = Frame.of(contest)
    bounds = difference_of(contest).bounds(frame)
    # Hand-worked, ideal DCG@2 = 2 + 2/log2 3 = 3.262 whenever x or y is graded 2.
    # All unjudged 0: A = 2/2 = 1, B = (2/log2 3)/2 = 0.631: d = +0.369.
    # All unjudged 2: A = B = 3.262/3.262: d = 0.
    # x 2, y 0: A = 3.262/3.262 = 1, B = 1.262/3.262 = 0.387: d = +0.613, the greatest.
    # y 2, x 0: A = 2/3.262 = 0.613, B = 1: d = -0.387, the least.
    ideal = 2 + 2 / np.log2(3)
    assert bounds.high[0] == pytest.approx(2 / ideal)
    assert bounds.low[0] == pytest.approx(2 / ideal - 1)
    assert bounds.high[0] > 1 - 1 / np.log2(3)  # more than "all unjudged irrelevant"


def test_a_question_without_relevant_labels_can_drop_out() -> None:
    contest = build_contest({"q": {"a": 0}}, {"q": ["a", "b"]}, {"q": ["c"]}, "precision@2")
    bounds = difference_of(contest).bounds(Frame.of(contest))
    assert bounds.can_score[0]
    assert bounds.can_drop[0]
    # Scored only if b or c is relevant: b alone gives +0.5, c alone -0.5.
    assert (bounds.low[0], bounds.high[0]) == (-0.5, 0.5)
