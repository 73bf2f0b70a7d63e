"""The pool of two runs that label-next reasons about, built from plain qrels and runs."""

from __future__ import annotations

import numpy as np
import pytest

from labeler.errors import LabelerError
from labeler.metrics.contest import build_contest
from labeler.metrics.registry import parse_label_next_metric
from labeler.metrics.types import Metric, Options


def slots(contest) -> list[tuple]:
    ids = contest.chunk_ids(np.arange(contest.size))
    return [
        (
            contest.questions[contest.question[i]],
            ids[i],
            int(contest.pos_a[i]),
            int(contest.pos_b[i]),
            int(contest.rank_a[i]),
            int(contest.rank_b[i]),
            int(contest.grade[i]),
        )
        for i in range(contest.size)
    ]


def test_the_pool_is_the_union_of_both_top_k_with_ranks_at_any_depth() -> None:
    qrels = {"q": {"a": 2, "z": 1, "far": 2}}
    run_a = {"q": ["a", "b", "c", "z"]}
    run_b = {"q": ["c", "d", "a", "b"]}
    contest = build_contest(qrels, run_a, run_b, "ndcg@2")
    # (question, chunk, place in A's top 2, in B's, rank in A, in B, grade); by best place.
    assert slots(contest) == [
        ("q", "a", 0, -1, 1, 3, 2),
        ("q", "c", -1, 0, 3, 1, -1),
        ("q", "b", 1, -1, 2, 4, -1),
        ("q", "d", -1, 1, 0, 2, -1),
    ]
    # Labels outside the pool still count (z at A's rank 4, far never returned): one 2, one 1.
    assert contest.out_grades.tolist() == [[0, 1, 1]]
    assert contest.labelled == 1
    assert contest.size == 4
    # The relevance model learns from labelled chunks at any depth: a, z (not far).
    rank_a, rank_b, grades, _ = contest.observations
    assert sorted(zip(rank_a.tolist(), rank_b.tolist(), grades.tolist(), strict=True)) == [
        (1, 3, 2),
        (4, 0, 1),
    ]


def test_without_a_cutoff_the_whole_rankings_are_in_play_up_to_depth() -> None:
    run_a = {"q": ["a", "b", "c"]}
    run_b = {"q": ["c"]}
    assert build_contest({}, run_a, run_b, "mrr").size == 3
    assert build_contest({}, run_a, run_b, "mrr", options=Options(depth=1)).size == 2


def test_questions_default_to_the_labels_and_both_runs_and_can_be_chosen() -> None:
    qrels = {"q1": {"a": 1}, "q4": {}}
    contest = build_contest(qrels, {"q2": ["a"]}, {"q3": ["b"]}, "mrr")
    assert contest.questions == ("q1", "q4", "q2", "q3")
    chosen = build_contest(qrels, {"q2": ["a"]}, {"q3": ["b"]}, "mrr", questions=["q3", "q1"])
    assert chosen.questions == ("q1", "q3")  # in the labels' order, then the runs'
    assert [s[0] for s in slots(chosen)] == ["q3"]


def test_an_unanswerable_question_has_no_unjudged_chunk() -> None:
    contest = build_contest(
        {"q": {}}, {"q": ["a", "b"]}, {"q": ["c"]}, "ndcg@2", unanswerable=["q"]
    )
    assert contest.grade.tolist() == [0, 0, 0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [("ndcg@10", Metric("ndcg", 10)), ("NDCG", Metric("ndcg")), ("map@5", Metric("map", 5))],
)
def test_metric_names(text, expected) -> None:
    assert parse_label_next_metric(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("recall", "'recall' needs a cutoff, e.g. recall@10"),
        ("precision@", "give a cutoff after '@'"),
        ("r_precision", "label next supports recall@k, precision@k, mrr, mrr@k, map, map@k, ndcg"),
        ("bleu@3", "unknown metric 'bleu@3'"),
        ("ndcg@0", "k must be a positive whole number"),
    ],
)
def test_metric_errors(text, message) -> None:
    with pytest.raises(LabelerError, match=message) as error:
        parse_label_next_metric(text)
    assert error.value.field == "metric"


def test_a_chunk_listed_twice_by_a_run_is_an_error() -> None:
    with pytest.raises(LabelerError, match="chunk a is listed twice"):
        build_contest({}, {"q": ["a", "a"]}, {"q": ["b"]}, "mrr")


def arrays(contest) -> dict:
    fields = ("question", "pos_a", "pos_b", "rank_a", "rank_b", "grade", "starts", "out_grades")
    out = {f: getattr(contest, f).tolist() for f in fields}
    out["observations"] = [o.tolist() for o in contest.observations]
    out["chunks"] = contest.chunk_ids(np.arange(contest.size))
    out["questions"] = contest.questions
    return out


@pytest.mark.parametrize("options", [Options(), Options(depth=6, min_grade=2)])
def test_the_pool_kept_while_only_labels_change_gives_the_contest_built_afresh(options) -> None:
    """Label next builds a contest after every grade from the same two runs: the pool (what the
    runs decide) is kept, and every contest equals the one built with nothing kept."""
    from labeler.metrics import contest as module
    from labeler.metrics.tables import as_run

    rng = np.random.default_rng(11)
    chunks = [f"doc-{j}#part{j % 3}" for j in range(14)]
    questions = [f"q{i}" for i in range(6)]
    run_a = as_run({q: list(rng.permutation(chunks)[:9]) for q in questions}, name="A")
    run_b = as_run({q: list(rng.permutation(chunks)[:9]) for q in questions}, name="B")
    qrels: dict[str, dict[str, int]] = {q: {} for q in questions}
    module._POOLS.clear()
    for step in range(12):
        question = questions[step % 6]
        qrels[question][chunks[int(rng.integers(14))]] = int(rng.integers(3))
        args = (qrels, run_a, run_b, "ndcg@5")
        kept = build_contest(*args, questions=questions, unanswerable=["q5"], options=options)
        module._POOLS.clear()
        afresh = build_contest(*args, questions=questions, unanswerable=["q5"], options=options)
        assert arrays(kept) == arrays(afresh)
    assert len(module._POOLS) == 1  # one pool, for the same runs throughout
