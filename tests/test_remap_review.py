"""The review queue: proposals grouped by question and new chunk, decisions recorded under the
reviewer's name with the remap's provenance, deciding again, and the differences shown."""

from __future__ import annotations

import pytest

from labeler.errors import LabelerError
from labeler.remap import remap
from labeler.remap.review import decide, diff, queue, remaps, shared_in
from labeler.store import Store
from tests.remap_helpers import BOTH, P_GIFT, P_OPENED, P_UNOPENED, grade, setup


@pytest.fixture
def queued(store: Store) -> Store:
    """q1's passage split in two (two proposals); q2's merged with a passage graded otherwise
    (a conflict: one proposal from two labels); q3 carried on its own."""
    setup(
        store,
        {"a": BOTH, "g": P_GIFT, "u": P_UNOPENED, "o": P_OPENED},
        {"x": P_UNOPENED, "y": P_OPENED, "z": P_GIFT},
    )
    grade(store, "q1", "a", 2, reviewer="maria")
    grade(store, "q3", "g", 2, reviewer="tom")
    remap(store, "v1", "v2")
    return store


def test_proposals_come_by_question_then_grade_then_place(queued: Store) -> None:
    proposals = queue(queued, "v1", "v2")
    assert [(p.question_id, p.new_chunk, p.grade, p.reason) for p in proposals] == [
        ("q1", "x", 2, "split"),
        ("q1", "y", 0, "elsewhere"),  # the question asks about unopened items
    ]
    first = proposals[0]
    assert first.question == "How long do I have to return an unopened item?"
    assert first.new_text == P_UNOPENED
    assert [(s.reviewer, s.old_chunk, s.old_grade, s.old_text) for s in first.sources] == [
        ("maria", "a", 2, BOTH)
    ]
    assert not first.decided
    (summary,) = remaps(queued)
    assert (summary.label, summary.proposals, summary.decided) == ("v1 → v2", 2, 0)


def test_accepting_writes_the_reviewers_own_label_with_provenance(queued: Store) -> None:
    proposal = queue(queued, "v1", "v2")[0]
    assert decide(queued, proposal, "ana", "accept") == 2
    rows = queued.labels.question_labels("q1", "v2")
    assert [(r["chunk_id"], r["reviewer"], r["grade"]) for r in rows] == [("x", "ana", 2)]
    history = queued.labels.history("q1", "v2")
    assert [(e["reviewer"], e["action"], e["new_grade"]) for e in history] == [
        ("ana", "remap-review", 2)
    ]
    (provenance,) = queued.remaps.label_provenance("q1", "v2", "x", "ana")
    assert (provenance["reviewer"], provenance["old_chunk_id"], provenance["review"]) == (
        "maria",
        "a",
        "accepted",
    )
    assert provenance["reviewed_by"] == "ana"
    after = queue(queued, "v1", "v2")[0]
    assert (after.review, after.review_grade, after.reviewed_by) == ("accepted", 2, "ana")
    assert remaps(queued)[0].decided == 1


def test_changing_the_grade_and_rejecting(queued: Store) -> None:
    first, second = queue(queued, "v1", "v2")
    assert decide(queued, first, "ana", "change", grade=1) == 1
    assert decide(queued, second, "ana", "reject") is None
    rows = queued.labels.question_labels("q1", "v2")
    assert [(r["chunk_id"], r["grade"]) for r in rows] == [("x", 1)]
    decided = queue(queued, "v1", "v2")
    assert [(p.review, p.review_grade) for p in decided] == [("changed", 1), ("rejected", None)]
    actions = [(e["chunk_id"], e["action"]) for e in queued.labels.history("q1", "v2")]
    assert actions == [("x", "remap-review"), ("y", "remap-reject")]


def test_accept_with_another_grade_is_a_change(queued: Store) -> None:
    first = queue(queued, "v1", "v2")[0]
    decide(queued, first, "ana", "accept", grade=0)
    assert queue(queued, "v1", "v2")[0].review == "changed"


def test_deciding_again_replaces_the_decision(queued: Store) -> None:
    first = queue(queued, "v1", "v2")[0]
    decide(queued, first, "ana", "accept")
    decide(queued, queue(queued, "v1", "v2")[0], "ana", "reject")
    # The label the acceptance wrote, untouched since, goes with the rejection.
    assert queued.labels.question_labels("q1", "v2") == []
    assert queue(queued, "v1", "v2")[0].review == "rejected"
    actions = [(e["action"], e["old_grade"]) for e in queued.labels.history("q1", "v2")]
    assert actions == [("remap-review", None), ("remap-reject", 2)]


def test_another_reviewers_label_stays_when_a_proposal_is_rejected(queued: Store) -> None:
    first = queue(queued, "v1", "v2")[0]
    decide(queued, first, "ana", "accept")
    decide(queued, queue(queued, "v1", "v2")[0], "ben", "reject")
    assert [r["reviewer"] for r in queued.labels.question_labels("q1", "v2")] == ["ana"]


def test_decisions_survive_a_repeated_remap(queued: Store) -> None:
    decide(queued, queue(queued, "v1", "v2")[0], "ana", "accept")
    again = remap(queued, "v1", "v2")
    assert not again.changed
    assert again.reviewed == 1
    assert queue(queued, "v1", "v2")[0].reviewed_by == "ana"


def test_only_my_labels(queued: Store) -> None:
    assert queue(queued, "v1", "v2", reviewer="tom") == []
    assert len(queue(queued, "v1", "v2", reviewer="maria")) == 2


def test_bad_decisions(queued: Store) -> None:
    first = queue(queued, "v1", "v2")[0]
    with pytest.raises(LabelerError, match='field "action"'):
        decide(queued, first, "ana", "maybe")
    with pytest.raises(LabelerError, match='field "grade"'):
        decide(queued, first, "ana", "change", grade=3)
    with pytest.raises(LabelerError, match='field "reviewer"'):
        decide(queued, first, " ", "accept")
    assert queued.labels.question_labels("q1", "v2") == []


def test_a_conflict_is_one_proposal_from_every_label_landing_there(store: Store) -> None:
    setup(store, {"a": P_UNOPENED, "b": P_OPENED}, {"m": BOTH})
    grade(store, "q1", "a", 2)
    grade(store, "q1", "b", 1)
    remap(store, "v1", "v2")
    (proposal,) = queue(store, "v1", "v2")
    assert (proposal.new_chunk, proposal.grade, proposal.reason) == ("m", 2, "conflict")
    assert [(s.old_chunk, s.old_grade) for s in proposal.sources] == [("a", 2), ("b", 1)]


# the differences shown ----------------------------------------------------------------------


def test_diff_marks_what_is_not_in_the_other_text() -> None:
    old = "Opened items can be returned within 14 days. Ask the team lead first."
    new = "Opened items can be returned within 30 days. Ask the team lead first."
    left, right = diff(old, new)
    assert left == [
        ("Opened items can be returned within ", True),
        ("14 ", False),
        ("days. Ask the team lead first.", True),
    ]
    assert right[1] == ("30 ", False)
    assert "".join(t for t, _ in left) == old
    assert "".join(t for t, _ in right) == new


def test_a_repeated_heading_does_not_steal_the_sentence_it_belongs_to() -> None:
    old = "# Rate limits\n\nRate limits protect the API from floods."
    new = "Rate limits protect the API from floods."
    left, right = diff(old, new)
    assert left == [
        ("# Rate limits\n\n", False),
        ("Rate limits protect the API from floods.", True),
    ]
    assert right == [(new, True)]


def test_a_lone_common_word_is_not_shown_as_shared() -> None:
    left, _ = diff("the cat sat on the mat", "the dog ran to the park")
    assert left == [("the cat sat on the mat", False)]


def test_shared_with_any_of_several_passages() -> None:
    pieces = shared_in(BOTH + " Extra words at the end.", [P_UNOPENED, P_OPENED])
    assert pieces[-1] == ("Extra words at the end.", False)
    assert all(same for _, same in pieces[:-1])
