"""evaluate(): the conventions, one at a time, on tiny inputs worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from labeler.errors import LabelerError
from labeler.metrics import strings, tables
from labeler.metrics.evaluation import evaluate
from labeler.metrics.reference import reference_evaluate
from labeler.metrics.registry import metric_spellings
from labeler.metrics.tables import Qrels, Run


def test_reads_the_run_in_its_stated_rank_order_by_default() -> None:
    run = Run.from_rows("r", ["q", "q", "q"], ["x", "a", "y"], ranks=[3, 1, 2], scores=[9, 1, 5])
    by_rank = evaluate({"q": {"a": 1}}, run, "mrr")
    by_score = evaluate({"q": {"a": 1}}, run, "mrr", order="score")
    assert by_rank.mean("mrr") == 1.0  # a has rank 1
    assert by_score.mean("mrr") == pytest.approx(1 / 3)  # a has the lowest score


def test_equal_ranks_keep_the_file_order() -> None:
    run = Run.from_rows("r", ["q"] * 3, ["x", "a", "y"], ranks=[1, 1, 1])
    assert evaluate({"q": {"a": 1}}, run, "mrr").mean("mrr") == 0.5


def test_without_ranks_the_file_order_is_the_ranking() -> None:
    result = evaluate({"q": {"a": 1}}, {"q": ["x", "y", "a"]}, "mrr")
    assert result.mean("mrr") == pytest.approx(1 / 3)


def test_score_ties_break_by_chunk_id_descending_bytewise() -> None:
    # trec_eval: equal scores are ordered by docno, descending (strcmp). "b" > "B" > "A" in bytes.
    run = Run.from_rows("r", ["q"] * 3, ["A", "b", "B"], scores=[1.0, 1.0, 1.0])
    qrels = {"q": {"A": 1}}
    assert evaluate(qrels, run, "mrr", order="score").mean("mrr") == pytest.approx(1 / 3)
    qrels = {"q": {"b": 1}}
    assert evaluate(qrels, run, "mrr", order="score").mean("mrr") == 1.0


def test_score_ties_with_non_ascii_ids_follow_utf8_bytes() -> None:
    # "é" (C3 A9) sorts after "z" (7A) byte-wise: it comes first in descending order.
    run = Run.from_rows("r", ["q", "q"], ["z", "é"], scores=[2.0, 2.0])
    assert evaluate({"q": {"é": 1}}, run, "mrr", order="score").mean("mrr") == 1.0


def test_order_score_needs_scores() -> None:
    with pytest.raises(LabelerError, match="has no scores"):
        evaluate({"q": {"a": 1}}, {"q": ["a"]}, "mrr", order="score")


def test_depth_cuts_every_ranking_like_trec_eval_M() -> None:
    result = evaluate({"q": {"a": 1, "b": 1}}, {"q": ["x", "a", "b"]}, "recall@3,map", depth=2)
    assert result.mean("recall@3") == 0.5
    assert result.mean("map") == pytest.approx(0.5 / 2)  # precision 1/2 at rank 2, over R = 2


def test_question_missing_from_the_run_scores_zero_and_counts() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    result = evaluate(qrels, {"q1": ["a"]}, "recall@1,ndcg")
    assert result.missing == 1
    assert result.per_question("recall@1") == {"q1": 1.0, "q2": 0.0}
    assert result.mean("recall@1") == 0.5


def test_questions_without_a_relevant_label_are_left_out_and_counted_apart() -> None:
    """#7 item 12: "unanswerable" is a reviewer's mark; a question whose labels are all below
    min_grade is something else, and both are counted, apart."""
    qrels = Qrels.from_dict({"q1": {"a": 1}, "q2": {"b": 0}, "q3": {}, "q4": {}})
    qrels = qrels.with_questions([], unanswerable=["q4"])
    result = evaluate(
        qrels, {"q1": ["a"], "q2": ["b"], "q3": ["c"], "q4": ["d"]}, "mrr,ndcg,judged@1"
    )
    assert result.left_out == 3
    assert result.unanswerable == 1  # q4, marked
    assert result.no_relevant_label == 2  # q2 has only a 0, q3 no label at all
    assert result.num_scored == 1
    assert result.mean("mrr") == 1.0
    assert result.per_question("mrr") == {"q1": 1.0}
    # trec_eval averages q2 in as 0 (q3 has no qrels line, so trec_eval does not know it).
    assert result.trec_eval_mean("mrr") == 0.5


def test_min_grade_decides_relevance_but_not_ndcg_gains() -> None:
    qrels = {"q": {"partial": 1, "answer": 2}}
    run = {"q": ["partial", "answer"]}
    one = evaluate(qrels, run, "mrr,ndcg", min_grade=1)
    two = evaluate(qrels, run, "mrr,ndcg", min_grade=2)
    assert one.mean("mrr") == 1.0
    assert two.mean("mrr") == 0.5
    assert one.mean("ndcg") == two.mean("ndcg")
    # DCG 1 + 2/log2(3); ideal 2 + 1/log2(3)
    assert one.mean("ndcg") == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))


def test_a_question_with_only_partial_chunks_has_no_relevant_label_at_min_grade_2() -> None:
    result = evaluate({"q": {"a": 1}}, {"q": ["a"]}, "ndcg", min_grade=2)
    assert (result.no_relevant_label, result.unanswerable) == (1, 0)
    assert result.mean("ndcg") is None


def test_exp_gains() -> None:
    qrels = {"q": {"a": 1, "b": 2}}
    run = {"q": ["a", "b"]}
    # gains 2^g - 1: a 1, b 3. DCG 1 + 3/log2(3); ideal 3 + 1/log2(3).
    expected = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert evaluate(qrels, run, "ndcg", gains="exp").mean("ndcg") == pytest.approx(expected)


def test_negative_grades_count_as_no_label_like_trec_eval() -> None:
    qrels = {"q": {"a": 1, "unjudged": -1}}
    result = evaluate(qrels, {"q": ["unjudged", "a"]}, "mrr,judged@2,ndcg")
    assert result.mean("mrr") == 0.5
    assert result.mean("judged@2") == 0.5
    assert result.mean("ndcg") == pytest.approx(1 / math.log2(3))


def test_judged_divides_by_the_results_returned() -> None:
    qrels = {"q": {"a": 1, "b": 0}}
    assert evaluate(qrels, {"q": ["a", "b"]}, "judged@10").mean("judged@10") == 1.0
    assert evaluate(qrels, {"q": ["a", "x", "b", "y"]}, "judged@2").mean("judged@2") == 0.5


def test_precision_divides_by_k_even_for_short_rankings() -> None:
    assert evaluate({"q": {"a": 1}}, {"q": ["a"]}, "precision@5").mean("precision@5") == 0.2


def test_run_questions_outside_the_test_set_are_ignored_and_listed() -> None:
    result = evaluate({"q": {"a": 1}}, {"q": ["a"], "stray": ["a"], "other": ["b"]}, "mrr")
    assert result.ignored == ("stray", "other")
    assert result.mean("mrr") == 1.0


def test_mrr_at_k_is_zero_past_the_cutoff() -> None:
    result = evaluate({"q": {"a": 1}}, {"q": ["x", "y", "a"]}, "mrr@2,mrr@3,mrr")
    assert result.means() == {
        "mrr@2": 0.0,
        "mrr@3": pytest.approx(1 / 3),
        "mrr": pytest.approx(1 / 3),
    }


def test_r_precision_and_map() -> None:
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    result = evaluate(qrels, {"q": ["a", "x", "b", "y", "c"]}, "r_precision,map,map@3")
    assert result.mean("r_precision") == pytest.approx(2 / 3)
    assert result.mean("map") == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    assert result.mean("map@3") == pytest.approx((1 + 2 / 3) / 3)


def test_a_chunk_listed_twice_is_an_error() -> None:
    with pytest.raises(LabelerError, match="chunk a is listed twice"):
        evaluate({"q": {"a": 1}}, {"q": ["a", "b", "a"]}, "mrr")


def test_a_chunk_labelled_twice_is_an_error() -> None:
    qrels = Qrels.from_rows(["q", "q"], ["a", "a"], [1, 2])
    with pytest.raises(LabelerError, match="chunk a is labelled twice"):
        evaluate(qrels, {"q": ["a"]}, "mrr")


def test_same_chunk_id_under_two_questions_is_fine() -> None:
    result = evaluate({"q1": {"a": 1}, "q2": {"a": 0}}, {"q1": ["a"], "q2": ["a"]}, "mrr")
    assert result.per_question("mrr", scored_only=False) == {"q1": 1.0, "q2": 0.0}


def test_unknown_metric_names_the_valid_ones() -> None:
    with pytest.raises(LabelerError, match=r"unknown metric 'ndgc@10'; valid metrics: hit_rate@k"):
        evaluate({"q": {"a": 1}}, {"q": ["a"]}, "ndgc@10")


def test_hash_collisions_fall_back_to_exact_matching(monkeypatch: pytest.MonkeyPatch) -> None:
    """Matching is by hash, then checked byte for byte; with every hash equal the exact path
    must give the same figures."""
    qrels = {f"q{i}": {f"c{j}": (i + j) % 3 for j in range(6)} for i in range(5)}
    run = {f"q{i}": [f"c{(j * 7 + i) % 9}" for j in range(6)] for i in range(5)}
    metrics = "ndcg@3,map,mrr,recall@5,judged@5"
    honest = evaluate(qrels, run, metrics)

    def constant(column: strings.Strings) -> np.ndarray:
        return np.zeros(len(column), dtype=np.uint64)

    monkeypatch.setattr(tables, "hash64", constant)
    colliding = evaluate(qrels, run, metrics)
    for name in honest.metric_names:
        assert colliding.values[name].tolist() == honest.values[name].tolist()
    with pytest.raises(LabelerError, match="listed twice"):
        evaluate(qrels, {"q0": ["c1", "c2", "c1"]}, metrics)


def test_dict_inputs_accept_scored_mappings_and_whole_number_ids() -> None:
    result = evaluate({1: {10: 1}}, {1: {20: 0.9, 10: 0.5}}, "mrr", order="score")
    assert result.questions == ("1",)
    assert result.mean("mrr") == 0.5


@pytest.mark.parametrize(
    "bad_run",
    [{"q": "abc"}, {"q": ["a", None]}, {"q": {"a": "high"}}, {"q": {"a": float("nan")}}],
)
def test_bad_dict_runs_raise(bad_run) -> None:
    with pytest.raises(LabelerError):
        evaluate({"q": {"a": 1}}, bad_run, "mrr")


def test_bad_options_raise() -> None:
    for options in ({"min_grade": 0}, {"order": "random"}, {"depth": 0}, {"gains": "log"}):
        with pytest.raises(LabelerError):
            evaluate({"q": {"a": 1}}, {"q": ["a"]}, "mrr", **options)


def test_reference_and_vectorised_agree_on_a_mixed_case() -> None:
    qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"d": 1}, "q3": {"e": 0}, "q4": {"f": 2}}
    run = {"q1": ["c", "a", "x", "b"], "q2": ["y", "z"], "q3": ["e"], "extra": ["a"]}
    metrics = metric_spellings()
    fast = evaluate(qrels, run, metrics, ks=(1, 2, 3, 10))
    slow = reference_evaluate(qrels, run, metrics, ks=(1, 2, 3, 10))
    for name in fast.metric_names:
        assert fast.per_question(name, scored_only=False) == pytest.approx(slow[name]), name


def test_a_run_keyed_while_read_matches_a_test_set_in_another_order() -> None:
    """A reader sorts a run's (question, chunk) keys by the run's own numbering of its questions
    (``Run.pair_keys``); a test set that lists the questions in another order re-numbers them
    (``keys.rekeyed``): the figures are those worked out by hand, and a chunk listed twice is
    still found."""
    qrels = {"q3": {"a": 2, "b": 1}, "q1": {"c": 1}, "q2": {"a": 1, "d": 2}}
    run = Run.from_dict({"q1": ["x", "c"], "q2": ["x", "y", "d"], "q3": ["a", "z"]}, name="r")
    run.pair_keys()
    result = evaluate(qrels, run, "mrr,recall@2")
    assert result.questions == ("q3", "q1", "q2")
    assert result.per_question("mrr") == {"q3": 1.0, "q1": 0.5, "q2": pytest.approx(1 / 3)}
    assert result.per_question("recall@2") == {"q3": 0.5, "q1": 1.0, "q2": 0.0}
    twice = Run.from_dict({"q1": ["c", "y"], "q2": ["d"], "q3": ["a", "z", "a"]}, name="r")
    twice.pair_keys()
    with pytest.raises(LabelerError, match="question q3: chunk a is listed twice"):
        evaluate(qrels, twice, "mrr")
