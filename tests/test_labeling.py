import pytest

from labeler import labeling
from labeler.errors import LabelerError
from labeler.models import Grade
from labeler.store import Store


def test_open_question_shows_the_pool_with_my_grades(loaded: Store) -> None:
    labeling.grade(loaded, "q1", "rate-limits", "ana", 2)
    view = labeling.open_question(loaded, "q1", "ana")
    ids = {c.chunk.id for c in view.candidates}
    # bm25's four results plus full-text search hits on the question.
    assert {"error-codes", "pagination", "rate-limits", "webhooks"} <= ids
    grades = {c.chunk.id: c.grade for c in view.candidates}
    assert grades["rate-limits"] == Grade.ANSWERS
    assert grades["pagination"] is None
    assert view.graded == 1
    assert not view.complete


def test_others_grades_stay_hidden_until_i_finish_the_question(loaded: Store) -> None:
    view = labeling.open_question(loaded, "q2", "ben")
    for candidate in view.candidates:
        labeling.grade(loaded, "q2", candidate.chunk.id, "ben", 1)
    first = view.candidates[0].chunk.id
    labeling.grade(loaded, "q2", first, "ana", 2)
    assert all(not c.others for c in labeling.open_question(loaded, "q2", "ana").candidates)
    mine = labeling.open_question(loaded, "q2", "ben")
    assert mine.complete
    assert dict(next(c for c in mine.candidates if c.chunk.id == first).others) == {"ana": 2}


def test_progress_counts_fully_graded_questions_per_reviewer_and_for_everyone(
    loaded: Store,
) -> None:
    assert labeling.progress(loaded, "ana") == {"total": 3, "everyone": 0, "mine": 0, "today": 0}
    view = labeling.open_question(loaded, "q2", "ana")
    for candidate in view.candidates:
        labeling.grade(loaded, "q2", candidate.chunk.id, "ana", 0)
    labeling.mark(loaded, "q3", "ben", unanswerable=True)
    assert labeling.progress(loaded, "ana") == {
        "total": 3,
        "everyone": 2,
        "mine": 1,
        "today": len(view.candidates),
    }
    assert labeling.progress(loaded, "ben")["mine"] == 1


def test_adding_a_chunk_from_search_grows_the_pool_and_reopens_the_question(loaded: Store) -> None:
    view = labeling.open_question(loaded, "q2", "ana")
    for candidate in view.candidates:
        labeling.grade(loaded, "q2", candidate.chunk.id, "ana", 0)
    assert labeling.open_question(loaded, "q2", "ana").complete
    extra = next(
        c
        for c in ("authentication", "rate-limits", "error-codes")
        if c not in {x.chunk.id for x in view.candidates}
    )
    assert labeling.add_candidate(loaded, "q2", extra, "ana")
    assert not labeling.add_candidate(loaded, "q2", extra, "ana")
    again = labeling.open_question(loaded, "q2", "ana")
    assert extra in {c.chunk.id for c in again.candidates}
    assert not again.complete
    assert labeling.progress(loaded, "ana")["mine"] == 0


def test_unanswerable_completes_a_question_and_can_be_undone(loaded: Store) -> None:
    labeling.mark(loaded, "q3", "ana", unanswerable=True)
    view = labeling.open_question(loaded, "q3", "ana")
    assert view.unanswerable
    assert view.complete
    labeling.mark(loaded, "q3", "ana", unanswerable=False)
    assert not labeling.open_question(loaded, "q3", "ana").complete


def test_a_note_needs_a_grade(loaded: Store) -> None:
    with pytest.raises(LabelerError, match="grade the chunk before"):
        labeling.set_note(loaded, "q1", "pagination", "ana", "wrong topic")
    labeling.grade(loaded, "q1", "pagination", "ana", 0)
    labeling.set_note(loaded, "q1", "pagination", "ana", "wrong topic")
    view = labeling.open_question(loaded, "q1", "ana")
    assert next(c for c in view.candidates if c.chunk.id == "pagination").note == "wrong topic"


def test_opening_a_question_twice_writes_nothing_new(loaded: Store) -> None:
    labeling.open_question(loaded, "q1", "ana")
    before = loaded.conn.total_changes
    labeling.open_question(loaded, "q1", "ana")
    assert loaded.conn.total_changes == before


def test_unknown_question(loaded: Store) -> None:
    with pytest.raises(LabelerError, match="unknown question 'nope'"):
        labeling.open_question(loaded, "nope", "ana")
