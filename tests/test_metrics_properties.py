"""Properties on random qrels and runs: agreement with pytrec_eval (trec_eval inside), with the
plain-Python definitions, and the invariants every metric must keep.

The inputs have score ties, questions missing from the run, run questions outside the test set,
unlabelled chunks and grades 0-4. pytrec_eval reads scores as float32, so scores are halves,
which float32 holds exactly; chunk ids mix upper and lower case so that tie-breaking by id is
exercised.
"""

from __future__ import annotations

import random

import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeler.metrics.evaluation import evaluate
from labeler.metrics.reference import reference_evaluate
from labeler.metrics.registry import metric_spellings, parse_metrics, trec_eval_name

CHUNKS = ["a", "b", "c", "d", "e", "A", "B", "C", "doc-1", "doc-10", "doc-2", "z9"]
QUESTIONS = ["q1", "q2", "q3", "q4", "q5"]
KS = (1, 2, 3, 5, 10)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every metric at every cutoff; those trec_eval has, and how pytrec_eval is asked for them.
ALL_METRICS = parse_metrics(metric_spellings(), ks=KS)
TREC_METRICS = tuple(m for m in ALL_METRICS if trec_eval_name(m))
PYTREC_MEASURES = {"map", "recip_rank", "ndcg", "Rprec"} | {
    f"{family}.{','.join(map(str, KS))}"
    for family in ("P", "recall", "success", "ndcg_cut", "map_cut")
}


@st.composite
def qrels_and_run(draw: st.DrawFn) -> tuple[dict, dict]:
    questions = draw(st.lists(st.sampled_from(QUESTIONS), min_size=1, max_size=5, unique=True))
    qrels = {
        q: draw(st.dictionaries(st.sampled_from(CHUNKS), st.integers(0, 4), max_size=8))
        for q in questions
    }
    in_run = draw(st.lists(st.sampled_from([*QUESTIONS, "stray"]), max_size=6, unique=True))
    run = {
        q: draw(
            st.dictionaries(
                st.sampled_from(CHUNKS),
                st.integers(0, 8).map(lambda x: x / 2),
                min_size=1,
                max_size=10,
            )
        )
        for q in in_run
    }
    return qrels, run


@SETTINGS
@given(data=qrels_and_run(), min_grade=st.integers(1, 3))
def test_equal_to_pytrec_eval(data: tuple[dict, dict], min_grade: int) -> None:
    qrels, run = data
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES, relevance_level=min_grade)
    theirs = evaluator.evaluate(run)
    ours = evaluate(qrels, run, TREC_METRICS, order="score", min_grade=min_grade)
    compared = 0
    for i, question in enumerate(ours.questions):
        for metric in TREC_METRICS:
            value = ours.values[str(metric)][i]
            if question in theirs:
                assert value == pytest.approx(theirs[question][trec_eval_name(metric)], abs=1e-9)
                compared += 1
            else:  # trec_eval -c: a question missing from the run scores 0
                assert value == 0.0
    assert compared == sum(1 for q in ours.questions if q in theirs) * len(TREC_METRICS)


@SETTINGS
@given(data=qrels_and_run())
def test_exp_gains_equal_pytrec_eval_on_transformed_grades(data: tuple[dict, dict]) -> None:
    """trec_eval's gain is the grade; giving it grades 2^g - 1 must match our exp gains."""
    qrels, run = data
    transformed = {q: {c: 2**g - 1 for c, g in labels.items()} for q, labels in qrels.items()}
    theirs = pytrec_eval.RelevanceEvaluator(transformed, {"ndcg", "ndcg_cut.3"}).evaluate(run)
    ours = evaluate(qrels, run, "ndcg,ndcg@3", order="score", gains="exp")
    for i, question in enumerate(ours.questions):
        if question in theirs:
            assert ours.values["ndcg"][i] == pytest.approx(theirs[question]["ndcg"], abs=1e-9)
            assert ours.values["ndcg@3"][i] == pytest.approx(
                theirs[question]["ndcg_cut_3"], abs=1e-9
            )


@SETTINGS
@given(
    data=qrels_and_run(),
    min_grade=st.integers(1, 3),
    order=st.sampled_from(["rank", "score"]),
    depth=st.one_of(st.none(), st.integers(1, 6)),
    gains=st.sampled_from(["linear", "exp"]),
)
def test_vectorised_equals_reference(data, min_grade, order, depth, gains) -> None:
    qrels, run = data
    options = {"min_grade": min_grade, "order": order, "depth": depth, "gains": gains}
    fast = evaluate(qrels, run, ALL_METRICS, **options)
    slow = reference_evaluate(qrels, run, ALL_METRICS, **options)
    for name in fast.metric_names:
        assert fast.per_question(name, scored_only=False) == pytest.approx(slow[name], abs=1e-12)


@SETTINGS
@given(data=qrels_and_run(), order=st.sampled_from(["rank", "score"]))
def test_every_metric_is_between_0_and_1(data, order) -> None:
    qrels, run = data
    result = evaluate(qrels, run, ALL_METRICS, order=order)
    for name in result.metric_names:
        values = result.values[name]
        assert ((values >= 0) & (values <= 1 + 1e-12)).all(), name


@SETTINGS
@given(data=qrels_and_run(), gains=st.sampled_from(["linear", "exp"]))
def test_the_ideal_ranking_scores_one_on_ndcg(data, gains) -> None:
    qrels, _ = data
    ideal = {q: sorted(labels, key=lambda c: -labels[c]) for q, labels in qrels.items() if labels}
    result = evaluate(qrels, ideal, "ndcg,ndcg@1,ndcg@3,ndcg@10", gains=gains)
    for name in result.metric_names:
        for question, value in result.per_question(name).items():
            assert value == pytest.approx(1.0), (name, question)


@SETTINGS
@given(data=qrels_and_run(), seed=st.integers(0, 1000))
def test_the_order_questions_come_in_does_not_matter(data, seed) -> None:
    qrels, run = data
    rng = random.Random(seed)
    shuffled_qrels = dict(rng.sample(list(qrels.items()), len(qrels)))
    shuffled_run = dict(rng.sample(list(run.items()), len(run)))
    one = evaluate(qrels, run, ALL_METRICS, order="score")
    two = evaluate(shuffled_qrels, shuffled_run, ALL_METRICS, order="score")
    for name in one.metric_names:
        assert one.per_question(name, scored_only=False) == two.per_question(
            name, scored_only=False
        )
        assert one.mean(name) == pytest.approx(two.mean(name))


@SETTINGS
@given(data=qrels_and_run(), seed=st.integers(0, 1000))
def test_in_score_order_the_order_of_lines_does_not_matter(data, seed) -> None:
    """With order='score' the ranking comes from the scores, not from how the file lists them."""
    qrels, run = data
    rng = random.Random(seed)
    shuffled = {q: dict(rng.sample(list(r.items()), len(r))) for q, r in run.items()}
    one = evaluate(qrels, run, ALL_METRICS, order="score")
    two = evaluate(qrels, shuffled, ALL_METRICS, order="score")
    for name in one.metric_names:
        assert one.values[name].tolist() == two.values[name].tolist()
