"""The adjudication core: which chunks reviewers dispute, and settling them for exports."""

import pytest

from labeler.errors import LabelerError
from labeler.grading import disputes, labeling
from labeler.grading.consensus import consensus
from labeler.store import Store


@pytest.fixture
def disputed(loaded: Store) -> Store:
    labeling.grade(loaded, "q1", "rate-limits", "ana", 2, note="answers it")
    labeling.grade(loaded, "q1", "rate-limits", "bo", 1, note="only the limit")
    labeling.grade(loaded, "q1", "pagination", "ana", 0)
    labeling.grade(loaded, "q1", "pagination", "bo", 0)
    labeling.grade(loaded, "q2", "pagination", "ana", 2)
    labeling.mark(loaded, "q2", "cy", unanswerable=True)
    return loaded


def test_disputed_chunks_with_each_reviewers_grade_and_note(disputed: Store) -> None:
    found = disputes.disputes(disputed)
    assert [q.question_id for q in found.questions] == ["q1", "q2"]
    [chunk] = found.questions[0].chunks
    assert chunk.chunk_id == "rate-limits"
    assert [(v.reviewer, v.grade, v.note) for v in chunk.votes] == [
        ("ana", 2, "answers it"),
        ("bo", 1, "only the limit"),
    ]
    # cy's unanswerable mark counts as a 0 against ana's 2 (the export's rule)
    [implied] = found.questions[1].chunks
    assert [(v.reviewer, v.how, v.label) for v in implied.votes] == [
        ("ana", "grade", "2 answers it"),
        ("cy", "unanswerable", "unanswerable (0)"),
    ]
    assert (found.chunks, found.settled, found.reviewers) == (2, 0, ("ana", "bo", "cy"))


def test_filters(disputed: Store) -> None:
    assert [q.question_id for q in disputes.disputes(disputed, pair=("ana", "bo")).questions] == [
        "q1"
    ]
    assert [q.question_id for q in disputes.disputes(disputed, tag="paging").questions] == ["q2"]


def test_settling_is_what_the_export_uses(disputed: Store) -> None:
    disputes.adjudicate(disputed, "q1", "rate-limits", 1, "lead", note="partial")
    found = disputes.disputes(disputed)
    chunk = found.questions[0].chunks[0]
    assert (chunk.settled, chunk.settled_by, chunk.settled_note) == (1, "lead", "partial")
    assert found.questions[0].done
    assert found.next_open() == "q2"
    agreed = consensus(
        disputed.labels.chunking_labels("default"),
        disputed.labels.unanswerable_marks("default"),
        disputed.adjudications.current("default"),
    )
    assert agreed.grades["q1"]["rate-limits"] == 1
    history = disputed.labels.history("q1")
    assert history[-1]["action"] == "adjudicate"
    disputes.adjudicate(disputed, "q1", "rate-limits", None, "lead")
    assert disputes.disputes(disputed).settled == 0


def test_settling_needs_a_name(disputed: Store) -> None:
    with pytest.raises(LabelerError, match="a reviewer name"):
        disputes.adjudicate(disputed, "q1", "rate-limits", 2, " ")
