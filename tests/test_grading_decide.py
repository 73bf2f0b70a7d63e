"""The queue "decide A vs B" as a grading-loop queue: ``labeling`` walks it, marks its chunks
and the pool worker follows it, all in label-next order (``decision_queue``'s)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.grading import labeling, queues
from labeler.grading.decide import DECIDE, Comparison, decision_queue
from labeler.grading.worker import PoolWorker
from labeler.store import Store

NAME = "decide:dense,bm25,ndcg@3,median"


@pytest.fixture
def two_runs(loaded: Store, tmp_path: Path) -> Store:
    from labeler.importers import import_run
    from tests.test_sources import DENSE

    path = tmp_path / "dense.trec"
    path.write_text(DENSE, encoding="utf-8")
    import_run(loaded, path)
    return loaded


def order(store: Store) -> tuple[str, ...]:
    return decision_queue(store, "dense", "bm25", "ndcg@3", policy="median").questions


def test_a_comparison_names_its_queue_and_reads_it_back() -> None:
    comparison = Comparison("dense", "bm25", "ndcg@3", "median")
    assert comparison.queue_name == NAME
    assert Comparison("dense", "bm25", "ndcg@3").queue_name == "decide:dense,bm25,ndcg@3"
    assert Comparison.parse("dense, bm25 ,ndcg@3,median") == comparison
    assert Comparison.parse("dense,bm25,ndcg@3,max").policy == "max"
    assert queues.QUEUES["decide"] is DECIDE
    assert queues.get_queue(NAME).title == "decide dense vs bm25 on ndcg@3"
    for wrong in ("dense,bm25", "dense,,ndcg@3", "a,b,c,d,e"):
        with pytest.raises(LabelerError, match="expected RUN_A,RUN_B,METRIC"):
            queues.get_queue(f"decide:{wrong}")
    with pytest.raises(LabelerError, match="queue 'decide' needs an argument"):
        queues.get_queue("decide")


def test_the_queue_walks_label_next_order_and_marks_the_deciding_chunks(two_runs: Store) -> None:
    expected = order(two_runs)
    assert expected == ("q2", "q1", "q3")  # not the order of ids
    rows = queues.queue_rows(two_runs, "ana", queue=NAME)
    assert [r["id"] for r in rows] == list(expected)
    assert queues.next_question(two_runs, "ana", None, queue=NAME) == "q2"
    assert queues.next_question(two_runs, "ana", "q2", queue=NAME) == "q1"
    assert queues.previous_question(two_runs, "ana", "q2", queue=NAME) == "q3"
    queue = decision_queue(two_runs, "dense", "bm25", "ndcg@3", policy="median")
    assert queues.marked_chunks(two_runs, "q3", queue=NAME) == set(queue.chunks["q3"])
    assert queues.marked_chunks(two_runs, "q3") == frozenset()  # by id: nothing marked
    # A tag narrows it as it narrows any queue; the order stays label-next's.
    assert [r["id"] for r in queues.queue_rows(two_runs, "ana", queue=NAME, tag="api")] == [
        "q2",
        "q1",
    ]


def test_a_question_leaves_the_queue_once_its_deciding_chunks_are_graded(two_runs: Store) -> None:
    first = order(two_runs)[0]
    for chunk in queues.marked_chunks(two_runs, first, queue=NAME):
        labeling.grade(two_runs, first, chunk, "ben", 0)  # anyone's grade counts
    assert first not in order(two_runs)
    # From the question just finished, Next opens the head of the queue worked out again.
    assert queues.next_question(two_runs, "ana", first, queue=NAME) == order(two_runs)[0]
    assert queues.marked_chunks(two_runs, first, queue=NAME) == frozenset()


def test_a_bad_comparison_is_a_clear_error(two_runs: Store) -> None:
    with pytest.raises(LabelerError, match="'recall' needs a cutoff"):
        queues.next_question(two_runs, "ana", None, queue="decide:dense,bm25,recall")
    with pytest.raises(LabelerError, match="missing"):
        queues.queue_rows(two_runs, "ana", queue="decide:dense,missing,ndcg@3")


def test_the_pool_worker_computes_ahead_in_the_queue_s_order(two_runs: Store) -> None:
    """The reviewer on the queue's first question: the worker puts the pools of the next ones
    in line in label-next order (a worker without its thread, to read its list)."""
    worker = PoolWorker.__new__(PoolWorker)
    worker._pending, worker._positions, worker._followed = [], {}, {}
    worker._cond = threading.Condition()
    expected = order(two_runs)
    worker.follow("default", "ana", expected[0], queue=NAME)
    worker._resolve(two_runs, worker._positions)
    assert worker.pending() == [("default", q) for q in expected[1:]]
