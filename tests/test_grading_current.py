"""The current labels as the metric engine takes them, kept question by question: after any
change the history records, the consensus kept and updated is the one worked out afresh."""

from __future__ import annotations

import pytest

from labeler.grading import current
from labeler.grading.current import current_labels, settled
from labeler.store import Store


def afresh(store: Store, policy: str | None):
    current._SETTLED.clear()
    return settled(store, policy=policy)


def same(store: Store, policy: str | None) -> None:
    kept = settled(store, policy=policy)
    assert kept == afresh(store, policy)


@pytest.mark.parametrize("policy", ["median", None])
def test_the_consensus_kept_per_question_follows_every_kind_of_change(
    loaded: Store, policy
) -> None:
    labels = loaded.labels
    same(loaded, policy)  # nothing labelled yet
    labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    same(loaded, policy)
    labels.set_grade("q1", "default", "rate-limits", "ben", 1 if policy else 2)  # a second view
    labels.set_grade("q2", "default", "pagination", "ana", 1)
    same(loaded, policy)
    labels.set_mark("q3", "default", "ben", mark="unanswerable", value=True)
    same(loaded, policy)
    loaded.adjudications.set("q1", "default", "rate-limits", 0, "lead")
    same(loaded, policy)
    labels.set_mark("q3", "default", "ben", mark="unanswerable", value=False)
    labels.set_grade("q1", "default", "error-codes", "ana", 2)
    same(loaded, policy)
    loaded.labels.make_stale("default", ["pagination"])  # its text changed: q2's label goes
    questions, agreed = settled(loaded, policy=policy)
    assert "q2" not in agreed.grades
    assert (questions, agreed) == afresh(loaded, policy)
    # A question leaves the queue (review status): everything is settled again.
    loaded.conn.execute("UPDATE questions SET review_status = 'pending' WHERE id = 'q1'")
    questions, agreed = settled(loaded, policy=policy)
    assert "q1" not in questions
    assert "q1" not in agreed.grades
    assert (questions, agreed) == afresh(loaded, policy)


def test_only_the_questions_the_history_names_are_settled_again(loaded: Store, monkeypatch):
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 1)
    settled(loaded, policy="median")
    asked: list = []
    real = current._parts

    def parts(store, chunking, policy, questions, accepted=None):
        asked.append(questions)
        return real(store, chunking, policy, questions, accepted)

    monkeypatch.setattr(current, "_parts", parts)
    loaded.labels.set_grade("q2", "default", "webhooks", "ana", 0)
    labels = current_labels(loaded, policy="median")
    assert asked == [{"q2"}]
    assert labels.qrels.to_dict()["q2"] == {"pagination": 1, "webhooks": 0}
    assert labels.qrels.to_dict()["q1"] == {"rate-limits": 2}


def test_a_database_put_in_place_of_another_is_settled_afresh(loaded: Store, tmp_path) -> None:
    """Same path, as many changes in its history, other grades: nothing kept is used."""
    import shutil

    copy = tmp_path / "copy.db"
    with Store(copy) as other:
        loaded.conn.backup(other.conn)
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    assert settled(loaded, policy="median")[1].grades["q1"] == {"rate-limits": 2}
    with Store(copy) as other:
        other.labels.set_grade("q1", "default", "rate-limits", "ana", 0)
        assert other.labels.last_event() == loaded.labels.last_event()
    loaded.close()
    shutil.move(copy, loaded.path)
    with Store(loaded.path) as reopened:
        assert settled(reopened, policy="median")[1].grades["q1"] == {"rate-limits": 0}
