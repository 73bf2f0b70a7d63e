import pytest

from labeler.errors import LabelerError
from labeler.grading import disputes, labeling, queues
from labeler.grading.cursor import after_grade, first_to_grade, move
from labeler.grading.queue import Queue, QueueFamily
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


# queues ----------------------------------------------------------------------------------------


def grade_all(store: Store, question_id: str, reviewer: str, value: int = 0) -> None:
    for candidate in labeling.open_question(store, question_id, reviewer).candidates:
        labeling.grade(store, question_id, candidate.chunk.id, reviewer, value)


def test_next_question_walks_the_queue_from_the_current_one(loaded: Store) -> None:
    assert queues.next_question(loaded, "ana", None) == "q1"
    assert queues.next_question(loaded, "ana", "q1") == "q2"
    assert queues.next_question(loaded, "ana", "q3") == "q1"  # wraps round


def test_next_question_skips_done_then_offers_skipped_ones(loaded: Store) -> None:
    grade_all(loaded, "q2", "ana")
    assert queues.next_question(loaded, "ana", "q1") == "q3"
    labeling.mark(loaded, "q3", "ana", skipped=True)
    assert queues.next_question(loaded, "ana", "q1") == "q3"  # skipped beats done
    grade_all(loaded, "q1", "ana")
    labeling.mark(loaded, "q3", "ana", unanswerable=True)
    # Everything done: simply the next one.
    assert queues.next_question(loaded, "ana", "q1") == "q2"
    assert queues.previous_question(loaded, "ana", "q1") == "q3"


def test_a_tag_narrows_the_queue(loaded: Store) -> None:
    assert queues.next_question(loaded, "ana", None, tag="errors") == "q3"
    assert queues.next_question(loaded, "ana", "q3", tag="errors") == "q3"
    assert queues.next_question(loaded, "ana", None, tag="nothing") is None


def test_another_queue_plugs_in(loaded: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A queue joins by a line in the one list (``queues.QUEUES``)."""

    def newest_first(store, chunking, reviewer, tag):
        rows = store.questions.queue(chunking, reviewer, tag=tag)
        return sorted(rows, key=lambda r: r["id"], reverse=True)

    newest = Queue("newest", "newest first", newest_first)
    with monkeypatch.context() as patched:
        patched.setitem(queues.QUEUES, "newest", newest)
        assert queues.get_queue("newest") is newest
        assert queues.next_question(loaded, "ana", None, queue="newest") == "q3"
        assert queues.next_question(loaded, "ana", "q3", queue="newest") == "q2"
    with pytest.raises(LabelerError, match="unknown queue 'newest'"):
        queues.next_question(loaded, "ana", None, queue="newest")


def test_a_family_of_queues_takes_an_argument(
    loaded: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tagged:errors`` is one queue of the family ``tagged``; its marked chunks come first."""

    def tagged(argument: str) -> Queue:
        def rows(store, chunking, reviewer, tag):
            return store.questions.queue(chunking, reviewer, tag=argument)

        def marked(store, chunking, question_id):
            return {"error-codes"} if question_id == "q3" else set()

        return Queue(f"tagged:{argument}", f"tagged {argument}", rows, marked)

    family = QueueFamily("tagged", "one tag", tagged)
    monkeypatch.setitem(queues.QUEUES, "tagged", family)
    assert family.named("errors") == "tagged:errors"
    assert queues.next_question(loaded, "ana", None, queue="tagged:errors") == "q3"
    assert queues.marked_chunks(loaded, "q3", queue="tagged:errors") == {"error-codes"}
    assert queues.marked_chunks(loaded, "q1", queue="tagged:errors") == frozenset()
    with pytest.raises(LabelerError, match="queue 'tagged' needs an argument"):
        queues.next_question(loaded, "ana", None, queue="tagged")
    with pytest.raises(LabelerError, match="queue 'by-id' takes no argument"):
        queues.next_question(loaded, "ana", None, queue="by-id:errors")


def test_the_list_of_queues_is_explicit_and_names_have_no_colon() -> None:
    """Every queue is listed once in ``QUEUES`` (not registered as a side effect of an
    import), under its own name; ':' separates a family's argument, so no name holds one."""
    assert list(queues.QUEUES) == ["assigned", "by-id", "decide"]
    assert all(name == queue.name and ":" not in name for name, queue in queues.QUEUES.items())


# the cursor ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("needs", "cursor", "expected"),
    [
        ([True, True, True], 0, 1),
        ([False, True, False, True], 1, 3),
        ([True, False, False, False], 2, 0),  # wraps round to the first still to grade
        ([False, False, False], 1, 2),  # nothing left: simply the next one
        ([False, False, False], 2, 2),  # ... staying on the last
        ([True], 0, 0),
        ([], 0, 0),
    ],
)
def test_after_a_grade_the_cursor_goes_to_the_next_chunk_to_grade(
    needs: list[bool], cursor: int, expected: int
) -> None:
    assert after_grade(needs, cursor) == expected


@pytest.mark.parametrize(
    ("needs", "prefer", "cursor", "expected"),
    [
        ([True, True, True, True], {3}, 0, 3),  # the marked one, past an unmarked one
        ([True, True, True, True], {0, 2}, 2, 0),  # wraps round to a marked one
        ([True, True, False, True], {2}, 0, 1),  # the marked one is graded: any to grade
        ([True, True, True], {1, 2}, 1, 2),  # the one just graded is not a candidate
        ([False, False, False], {1}, 0, 1),  # nothing left: simply the next one
        ([True, True], set(), 0, 1),  # nothing marked: as without
    ],
)
def test_after_a_grade_the_cursor_prefers_marked_chunks(
    needs: list[bool], prefer: set[int], cursor: int, expected: int
) -> None:
    assert after_grade(needs, cursor, prefer) == expected


def test_the_cursor_starts_on_the_first_chunk_to_grade_and_moves_round(loaded: Store) -> None:
    view = labeling.open_question(loaded, "q1", "ana")
    assert first_to_grade(view) == 0
    labeling.grade(loaded, "q1", view.candidates[0].chunk.id, "ana", 1)
    assert first_to_grade(labeling.open_question(loaded, "q1", "ana")) == 1
    # A queue's marked chunks first, while they need a grade.
    view = labeling.open_question(loaded, "q1", "ana")
    ids = [c.chunk.id for c in view.candidates]
    assert first_to_grade(view, {ids[3], ids[2]}) == 2
    assert first_to_grade(view, {ids[0]}) == 1  # graded already: the first to grade
    assert first_to_grade(view, {"not-a-candidate"}) == 1
    count = len(view.candidates)
    assert move(count, 0, -1) == count - 1
    assert move(count, count - 1, 1) == 0
    assert move(0, 0, 1) == 0


# notes and adjudication ------------------------------------------------------------------------


def test_a_note_keeps_the_grade_and_is_recorded(loaded: Store) -> None:
    labeling.grade(loaded, "q1", "pagination", "ana", 1)
    assert labeling.set_note(loaded, "q1", "pagination", "ana", "  partly  ")
    assert not labeling.set_note(loaded, "q1", "pagination", "ana", "partly")
    history = loaded.labels.history("q1")
    assert [(e["action"], e["old_grade"], e["new_grade"], e["note"]) for e in history] == [
        ("grade", None, 1, None),
        ("note", 1, 1, "partly"),
    ]


def test_adjudicate_settles_with_history(loaded: Store) -> None:
    assert disputes.adjudicate(loaded, "q1", "rate-limits", 2, "lead", "answers it") is None
    assert disputes.adjudicate(loaded, "q1", "rate-limits", 1, "lead2") == 2
    assert disputes.adjudicate(loaded, "q1", "rate-limits", None, "lead") == 1
    history = disputes.adjudication_history(loaded, "q1", "rate-limits")
    assert [(e["reviewer"], e["action"], e["old_grade"], e["new_grade"]) for e in history] == [
        ("lead", "adjudicate", None, 2),
        ("lead2", "adjudicate", 2, 1),
        ("lead", "unadjudicate", 1, None),
    ]
    assert history[0]["note"] == "answers it"
    with pytest.raises(LabelerError, match="unknown chunk"):
        disputes.adjudicate(loaded, "q1", "nope", 2, "lead")


def test_adjudicate_uses_the_current_chunking(loaded: Store) -> None:
    assert disputes.adjudicate(loaded, "q1", "rate-limits", 2, "lead") is None
    assert loaded.adjudications.current("default") == {("q1", "rate-limits"): 2}


# blind grading -------------------------------------------------------------------------------


def _grade_all(store: Store, question: str, reviewer: str, value: int) -> list[str]:
    view = labeling.open_question(store, question, reviewer)
    for candidate in view.candidates:
        labeling.grade(store, question, candidate.chunk.id, reviewer, value)
    return [c.chunk.id for c in view.candidates]


def test_marking_unanswerable_does_not_show_others_grades(loaded: Store) -> None:
    chunks = _grade_all(loaded, "q2", "ben", 1)
    labeling.mark(loaded, "q2", "ana", unanswerable=True)
    view = labeling.open_question(loaded, "q2", "ana")
    assert view.complete  # the mark finishes the question for progress ...
    assert not view.others_visible  # ... but shows nothing of ben's
    assert all(not c.others for c in view.candidates)
    assert not loaded.labels.has_seen_others("q2", "default", "ana")
    # Grading every candidate shows them, and the history says when.
    for chunk in chunks:
        labeling.grade(loaded, "q2", chunk, "ana", 0)
    view = labeling.open_question(loaded, "q2", "ana")
    assert view.others_visible
    assert {c.chunk.id: dict(c.others) for c in view.candidates} == {c: {"ben": 1} for c in chunks}
    assert [e["action"] for e in loaded.labels.history("q2")][-1] == "saw others"


def test_a_change_after_seeing_others_is_a_revision_in_the_history(loaded: Store) -> None:
    chunks = _grade_all(loaded, "q2", "ben", 2)
    _grade_all(loaded, "q2", "ana", 0)
    labeling.open_question(loaded, "q2", "ana")  # ben's 2s are shown to ana
    labeling.grade(loaded, "q2", chunks[0], "ana", 2)
    history = loaded.labels.history("q2")
    ana = [
        (e["action"], e["new_grade"], e["seen_others"]) for e in history if e["reviewer"] == "ana"
    ]
    assert ana == [("grade", 0, 0)] * len(chunks) + [("saw others", None, 0), ("grade", 2, 1)]
    # Agreement reads ana's grade as it stood before she saw ben's: 0, not 2.
    blind = {(q, c, r): g for q, c, r, g in loaded.labels.blind_labels("default")}
    assert blind[("q2", chunks[0], "ana")] == 0
    assert blind[("q2", chunks[0], "ben")] == 2
    current = {(q, c, r): g for q, c, r, g in loaded.labels.chunking_labels("default")}
    assert current[("q2", chunks[0], "ana")] == 2


def test_nothing_to_see_records_nothing(loaded: Store) -> None:
    _grade_all(loaded, "q2", "ana", 1)
    assert labeling.open_question(loaded, "q2", "ana").others_visible
    assert not loaded.labels.has_seen_others("q2", "default", "ana")  # nobody else graded
