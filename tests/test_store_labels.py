import pytest

from labeler.errors import LabelerError, NotFoundError
from labeler.store import Store


def events(store: Store) -> list[tuple]:
    return [
        (r["chunk_id"], r["reviewer"], r["action"], r["old_grade"], r["new_grade"])
        for r in store.query("SELECT * FROM label_events ORDER BY id")
    ]


def test_every_change_appends_to_the_history(loaded: Store) -> None:
    assert loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 1) is None
    assert loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2) == 1
    assert loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2) == 2  # no change
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2, note="states the limit")
    assert events(loaded) == [
        ("rate-limits", "ana", "grade", None, 1),
        ("rate-limits", "ana", "grade", 1, 2),
        ("rate-limits", "ana", "note", 2, 2),
    ]


def test_a_label_keeps_the_passage_and_its_offsets(loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    row = loaded.query("SELECT * FROM labels")[0]
    assert row["passage_text"].startswith("Each API key may send 100 requests")
    assert (row["doc_id"], row["start"], row["end"]) == ("api", 0, 103)
    assert row["reviewer"] == "ana"
    assert row["created_at"] <= row["updated_at"]


def test_two_reviewers_keep_their_own_grades(loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    grades = {(r["reviewer"], r["grade"]) for r in loaded.labels.question_labels("q1", "default")}
    assert grades == {("ana", 2), ("ben", 0)}


@pytest.mark.parametrize("grade", [-1, 3, "2", None])
def test_grades_outside_0_to_2_are_refused(loaded: Store, grade) -> None:
    with pytest.raises(LabelerError, match="expected 0, 1 or 2"):
        loaded.labels.set_grade("q1", "default", "rate-limits", "ana", grade)
    assert loaded.scalar("SELECT count(*) FROM labels") == 0


def test_unknown_ids_and_bad_reviewer_names_are_refused(loaded: Store) -> None:
    with pytest.raises(NotFoundError, match="unknown chunk 'nope'"):
        loaded.labels.set_grade("q1", "default", "nope", "ana", 1)
    with pytest.raises(NotFoundError, match="unknown question 'q9'"):
        loaded.labels.set_grade("q9", "default", "pagination", "ana", 1)
    for name in ("", "   ", "*", "x" * 81):
        with pytest.raises(LabelerError, match="reviewer name"):
            loaded.labels.set_grade("q1", "default", "pagination", name, 1)


def test_history_cannot_be_rewritten(loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    with pytest.raises(Exception, match="append-only"):
        loaded.conn.execute("DELETE FROM label_events")
    with pytest.raises(Exception, match="append-only"):
        loaded.conn.execute("UPDATE label_events SET new_grade = 0")


def test_marks_are_recorded_with_history(loaded: Store) -> None:
    assert loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    assert not loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    assert loaded.labels.marks("q3", "default") == {"ana": {"unanswerable": True, "skipped": False}}
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=False)
    assert [e[2] for e in events(loaded)] == ["unanswerable", "answerable"]


def grade_then_fail(store: Store) -> None:
    with store.write():
        store.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
        store.labels.set_grade("q1", "default", "missing", "ana", 2)


def test_a_failed_write_rolls_back_everything_in_it(loaded: Store) -> None:
    with pytest.raises(NotFoundError):
        grade_then_fail(loaded)
    assert loaded.scalar("SELECT count(*) FROM labels") == 0
    assert loaded.scalar("SELECT count(*) FROM label_events") == 0
