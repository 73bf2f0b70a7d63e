"""Labels and runs from the store for evaluation: consensus of current labels, imported runs,
run files checked as imports check them (and nothing stored)."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.grading.consensus import DisagreementError
from labeler.grading.current import current_labels, stored_run
from labeler.grading.decide import decide_runs, decision_queue
from labeler.importers import import_run
from labeler.sources import checked_run, next_pairs, resolve_run
from labeler.store import Store
from tests.conftest import table_counts

DENSE = """q1 Q0 rate-limits 1 0.9 dense
q1 Q0 error-codes 2 0.8 dense
q1 Q0 webhooks 3 0.7 dense
q2 Q0 pagination 1 0.9 dense
q2 Q0 authentication 2 0.5 dense
q3 Q0 error-codes 1 0.9 dense
q3 Q0 webhooks 2 0.4 dense
"""


@pytest.fixture
def dense(tmp_path: Path) -> Path:
    path = tmp_path / "dense.trec"
    path.write_text(DENSE, encoding="utf-8")
    return path


@pytest.fixture
def two_runs(loaded: Store, dense: Path) -> Store:
    import_run(loaded, dense)
    return loaded


def test_current_labels_settle_disagreements_as_an_export_would(loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q1", "default", "error-codes", "ana", 1)
    loaded.labels.set_grade("q1", "default", "rate-limits", "ben", 1)
    loaded.labels.set_mark("q3", "default", "ben", mark="unanswerable", value=True)
    with pytest.raises(DisagreementError, match="1 disagreement"):
        current_labels(loaded)
    labels = current_labels(loaded, policy="max")
    assert labels.qrels.to_dict() == {
        "q1": {"error-codes": 1, "rate-limits": 2},
        "q2": {},
        "q3": {},
    }
    assert labels.questions == ("q1", "q2", "q3")  # every accepted question, labelled or not
    assert labels.unanswerable == frozenset({"q3"})
    assert labels.qrels.marked_unanswerable == frozenset({"q3"})  # the engine counts it apart
    assert labels.settled == 1
    assert "settled by max" in labels.description


def test_an_imported_run_in_its_imported_order(two_runs: Store) -> None:
    run = stored_run(two_runs, "bm25")
    assert run.to_dict()["q1"] == ["error-codes", "pagination", "rate-limits", "webhooks"]
    with pytest.raises(LabelerError, match=r"no imported run named 'nope' \(runs: bm25, dense\)"):
        stored_run(two_runs, "nope")


def test_a_run_file_is_checked_like_an_import_and_nothing_is_stored(
    loaded: Store, tmp_path: Path
) -> None:
    before = table_counts(loaded)
    good = tmp_path / "good.trec"
    good.write_text("q2 Q0 webhooks 2 1.0 mine\nq2 Q0 pagination 1 2.0 mine\n", encoding="utf-8")
    run = checked_run(loaded, good)
    assert run.name == "mine"  # the TREC tag, as an import names it
    assert run.to_dict() == {"q2": ["pagination", "webhooks"]}  # ranked as an import ranks
    bad = tmp_path / "bad.trec"
    bad.write_text("q2 Q0 webhooks 1 1.0 x\nq9 Q0 webhooks 2 0.5 x\n", encoding="utf-8")
    with pytest.raises(LabelerError) as error:
        checked_run(loaded, bad)
    assert str(error.value) == (
        f"{bad}:2: field \"question_id\": unknown question id 'q9' (import the questions first)"
    )
    twice = tmp_path / "twice.trec"
    twice.write_text("q2 Q0 webhooks 1 1.0 x\nq2 Q0 webhooks 2 0.5 x\n", encoding="utf-8")
    with pytest.raises(LabelerError, match="appears twice for the same question"):
        checked_run(loaded, twice, shown_as="upload.trec")
    assert table_counts(loaded) == before


def test_runs_by_name_or_by_file(two_runs: Store, dense: Path) -> None:
    assert resolve_run(two_runs, "bm25").name == "bm25"
    assert resolve_run(two_runs, str(dense)).name == "dense"
    with pytest.raises(LabelerError, match="neither an imported run"):
        resolve_run(two_runs, "missing.trec")


def test_decide_from_no_labels_then_a_queue_of_questions(two_runs: Store) -> None:
    decision = decide_runs(two_runs, "dense", "bm25", "ndcg@3", budget=4)
    assert decision.status == "open"
    assert decision.labelled == 0
    assert len(decision.pairs) == 4
    queue = decision_queue(two_runs, "dense", "bm25", "ndcg@3")
    assert set(queue.questions) == {"q1", "q2", "q3"}
    # Every unjudged pair of the pool is in the queue exactly once.
    assert sum(len(c) for c in queue.chunks.values()) == queue.decision.pool
    assert queue.questions[0] == queue.decision.pairs[0].question


def test_grading_the_queue_settles_the_comparison(two_runs: Store) -> None:
    truth = {("q1", "rate-limits"): 2, ("q2", "pagination"): 2, ("q3", "error-codes"): 2}
    for _ in range(20):
        queue = decision_queue(two_runs, "dense", "bm25", "ndcg@3")
        if queue.decision.status == "proven":
            break
        question = queue.questions[0]
        for chunk in queue.chunks[question]:
            two_runs.labels.set_grade(
                question, "default", chunk, "ana", truth.get((question, chunk), 0)
            )
    assert queue.decision.status == "proven"
    assert queue.decision.winner == "dense"
    assert queue.questions == ()


def test_the_same_run_twice(two_runs: Store, dense: Path) -> None:
    with pytest.raises(LabelerError, match="not 'bm25' with itself"):
        decide_runs(two_runs, "bm25", "bm25", "mrr")
    with pytest.raises(LabelerError, match="both runs are named 'dense'"):
        next_pairs(two_runs, "dense", str(dense), "mrr")


def test_the_queue_is_kept_until_a_label_changes(two_runs: Store) -> None:
    first = decision_queue(two_runs, "dense", "bm25", "ndcg@3")
    assert decision_queue(two_runs, "dense", "bm25", "ndcg@3") is first
    two_runs.labels.set_grade(
        first.questions[0], "default", first.chunks[first.questions[0]][0], "ana", 0
    )
    again = decision_queue(two_runs, "dense", "bm25", "ndcg@3")
    assert again is not first
    assert again.decision.labelled == first.decision.labelled + 1
