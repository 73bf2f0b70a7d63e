"""Decisions on generated questions (labeler.review.decisions): accept, reject, edit, skip,
undo and batches, with the history, the conflict check and source grades, asserted in the
store."""

import json

import pytest

from labeler import review
from labeler.errors import ConflictError, LabelerError, NotFoundError
from labeler.grading.candidates import pool
from labeler.importers import import_questions
from labeler.store import Store
from tests.conftest import write_jsonl

GENERATED = [
    {
        "id": "g1",
        "origin": "generated",
        "generator": "ragas",
        "question": "How long does an API key wait after a 429?",
        "reference": "As many seconds as Retry-After says.",
        "contexts": ["rate-limits"],
        "metadata": {"synthesizer_name": "single_hop", "persona_name": "developer"},
    },
    {
        "id": "g2",
        "origin": "generated",
        "generator": "ragas",
        "question": "What does a 404 from the API mean?",
        "reference": "The order does not exist.",
        "contexts": [
            "404 means the order does not exist. 429 means too many requests: wait and retry."
        ],
    },
    {
        "id": "g3",
        "origin": "generated",
        "generator": "in-house",
        "question": "How are webhooks signed?",
        "reference": "With HMAC SHA-256.",
        "contexts": ["webhooks", "pagination"],
    },
]


@pytest.fixture
def reviewing(loaded: Store, tmp_path) -> Store:
    """The worked-example corpus, its three human questions, and three generated ones."""
    import_questions(loaded, write_jsonl(tmp_path / "generated.jsonl", GENERATED))
    return loaded


def events(store: Store, question_id: str) -> list[tuple]:
    return [
        (e["reviewer"], e["action"], e["old_status"], e["new_status"], e["reason"])
        for e in store.reviews.history(question_id)
    ]


def test_accept_puts_the_question_in_the_grading_queue_with_its_sources(
    reviewing: Store,
) -> None:
    assert [r["id"] for r in reviewing.questions.queue("default", "ana")] == ["q1", "q2", "q3"]
    decision = review.accept(reviewing, "g1", "maria", seconds=4.5)
    assert (decision.status, decision.revision, decision.graded_sources) == ("accepted", 1, ())
    assert "g1" in [r["id"] for r in reviewing.questions.queue("default", "ana")]
    entries = {
        e.chunk_id: e.sources for e in pool(reviewing, reviewing.questions.get("g1"), "default")
    }
    assert "generator" in {source.kind for source in entries["rate-limits"]}
    # No label is given on accept: the reviewer grades the sources (blind) like any chunk.
    assert reviewing.labels.question_labels("g1", "default") == []
    assert events(reviewing, "g1") == [("maria", "accept", "pending", "accepted", None)]
    assert reviewing.reviews.history("g1")[0]["seconds"] == 4.5


def test_accept_with_sources_grades_each_source_2_as_the_reviewer(reviewing: Store) -> None:
    result = review.accept(reviewing, "g3", "maria", confirm_sources=True)
    assert result.graded_sources == ("webhooks", "pagination")
    labels = reviewing.labels.question_labels("g3", "default")
    assert [(r["chunk_id"], r["reviewer"], r["grade"]) for r in labels] == [
        ("pagination", "maria", 2),
        ("webhooks", "maria", 2),
    ]
    actions = {e["action"] for e in reviewing.labels.history("g3")}
    assert actions == {"review:sources"}
    assert reviewing.reviews.history("g3")[0]["sources"] == ["webhooks", "pagination"]


def test_reject_needs_a_known_reason_and_other_needs_a_note(reviewing: Store) -> None:
    with pytest.raises(LabelerError, match="a rejection needs a reason"):
        review.reject(reviewing, "g2", "maria", "")
    with pytest.raises(LabelerError, match="unknown reason 'boring'"):
        review.reject(reviewing, "g2", "maria", "boring")
    with pytest.raises(LabelerError, match="needs a note"):
        review.reject(reviewing, "g2", "maria", "other", note="  ")
    assert reviewing.reviews.history("g2") == []
    review.reject(reviewing, "g2", "maria", "other", note="asks two things")
    state = reviewing.reviews.state("g2")
    assert (state["status"], state["reason"], state["note"], state["decided_by"]) == (
        "rejected",
        "other",
        "asks two things",
        "maria",
    )


def test_a_human_question_has_no_review(reviewing: Store) -> None:
    with pytest.raises(LabelerError, match="q1 is not a generated question"):
        review.accept(reviewing, "q1", "maria")
    with pytest.raises(NotFoundError, match="unknown question 'nope'"):
        review.reject(reviewing, "nope", "maria", "ambiguous")
    assert reviewing.questions.get("q1").review_status == "accepted"


def test_a_decision_on_an_older_revision_is_a_conflict_not_an_overwrite(reviewing: Store) -> None:
    seen = reviewing.reviews.state("g1")["revision"]  # both reviewers open g1
    review.reject(reviewing, "g1", "tom", "ambiguous", expected_revision=seen)
    with pytest.raises(ConflictError, match=r"tom \(reject"):
        review.accept(reviewing, "g1", "maria", expected_revision=seen, confirm_sources=True)
    state = reviewing.reviews.state("g1")
    assert (state["status"], state["decided_by"], state["reason"]) == (
        "rejected",
        "tom",
        "ambiguous",
    )
    assert reviewing.labels.question_labels("g1", "default") == []  # the source grade rolled back
    # Having seen tom's decision, maria may change it deliberately.
    review.accept(reviewing, "g1", "maria", expected_revision=state["revision"])
    assert events(reviewing, "g1") == [
        ("tom", "reject", "pending", "rejected", "ambiguous"),
        ("maria", "accept", "rejected", "accepted", None),
    ]


def test_edit_keeps_the_original_and_records_the_change(reviewing: Store) -> None:
    review.edit(reviewing, "g2", "maria", text="What does 404 mean?", reference="  ")
    review.edit(reviewing, "g2", "tom", text="What does status 404 mean?", reference="Not found.")
    question = reviewing.questions.get("g2")
    assert (question.text, question.reference_answer) == (
        "What does status 404 mean?",
        "Not found.",
    )
    state = reviewing.reviews.state("g2")
    assert (state["original_text"], state["original_reference"], state["edited_by"]) == (
        "What does a 404 from the API mean?",
        "The order does not exist.",
        "tom",
    )
    assert state["status"] == "pending"
    history = reviewing.reviews.history("g2")
    assert [(e["reviewer"], e["old_text"], e["new_text"]) for e in history] == [
        ("maria", "What does a 404 from the API mean?", "What does 404 mean?"),
        ("tom", "What does 404 mean?", "What does status 404 mean?"),
    ]
    assert history[0]["new_reference"] is None


def test_an_edit_that_empties_the_question_changes_nothing(reviewing: Store) -> None:
    with pytest.raises(LabelerError, match="the question cannot be empty"):
        review.edit(reviewing, "g2", "maria", text="   ", reference="x")
    assert reviewing.questions.get("g2").text == "What does a 404 from the API mean?"
    assert reviewing.reviews.history("g2") == []


def test_undo_reverts_the_last_decision_and_withdraws_its_grades(reviewing: Store) -> None:
    review.reject(reviewing, "g1", "maria", "duplicate")
    review.accept(reviewing, "g3", "maria", confirm_sources=True)
    undone = review.undo(reviewing, "maria")
    assert (undone.question_ids, undone.action) == (("g3",), "accept")
    assert reviewing.questions.get("g3").review_status == "pending"
    assert reviewing.labels.question_labels("g3", "default") == []
    withdrawn = [e for e in reviewing.labels.history("g3") if e["action"] == "review:undo"]
    assert [(e["chunk_id"], e["old_grade"], e["new_grade"]) for e in withdrawn] == [
        ("webhooks", 2, None),
        ("pagination", 2, None),
    ]
    review.undo(reviewing, "maria")
    assert reviewing.questions.get("g1").review_status == "pending"
    assert reviewing.reviews.state("g1")["reason"] is None
    with pytest.raises(LabelerError, match="nothing to undo"):
        review.undo(reviewing, "maria")


def test_undo_keeps_a_grade_changed_since_and_an_edit_comes_back(reviewing: Store) -> None:
    review.accept(reviewing, "g3", "maria", confirm_sources=True)
    reviewing.labels.set_grade("g3", "default", "pagination", "maria", 0)  # graded again, by hand
    review.undo(reviewing, "maria")
    assert [
        (r["chunk_id"], r["grade"]) for r in reviewing.labels.question_labels("g3", "default")
    ] == [("pagination", 0)]
    review.edit(reviewing, "g2", "maria", text="Edited?", reference=None)
    review.undo(reviewing, "maria")
    assert reviewing.questions.get("g2").text == "What does a 404 from the API mean?"
    assert reviewing.reviews.state("g2")["original_text"] is None


def test_undo_leaves_a_question_someone_changed_since(reviewing: Store) -> None:
    review.accept(reviewing, "g1", "maria")
    review.reject(reviewing, "g1", "tom", "ambiguous")
    with pytest.raises(ConflictError, match="tom changed it since"):
        review.undo(reviewing, "maria")
    assert reviewing.questions.get("g1").review_status == "rejected"


def test_a_batch_is_all_or_nothing_on_bad_ids_and_undone_as_one(reviewing: Store) -> None:
    with pytest.raises(NotFoundError, match="unknown question 'gX'"):
        review.decide_many(reviewing, ["g1", "gX"], "maria", "reject", reason="duplicate")
    with pytest.raises(LabelerError, match="q1 is not a generated question"):
        review.decide_many(reviewing, ["g1", "q1"], "maria", "accept")
    with pytest.raises(LabelerError, match="unknown reason"):
        review.decide_many(reviewing, ["g1"], "maria", "reject", reason="bad")
    assert all(reviewing.reviews.history(q) == [] for q in ("g1", "g2", "g3"))
    result = review.decide_many(
        reviewing, ["g1", "g2", "g3"], "maria", "reject", reason="duplicate"
    )
    assert (result.done, result.unchanged, result.conflicts) == (("g1", "g2", "g3"), (), ())
    again = review.decide_many(reviewing, ["g1", "g2"], "maria", "reject", reason="duplicate")
    assert again.unchanged == ("g1", "g2")
    undone = review.undo(reviewing, "maria")
    assert sorted(undone.question_ids) == ["g1", "g2", "g3"]
    assert {reviewing.questions.get(q).review_status for q in ("g1", "g2", "g3")} == {"pending"}


def test_a_batch_confirmed_on_revisions_leaves_what_changed_since(reviewing: Store) -> None:
    revisions = {q: reviewing.reviews.state(q)["revision"] for q in ("g1", "g2", "g3")}
    review.accept(reviewing, "g2", "tom")  # meanwhile
    result = review.decide_many(
        reviewing, list(revisions), "maria", "reject", reason="ambiguous", revisions=revisions
    )
    assert (result.done, result.conflicts) == (("g1", "g3"), ("g2",))
    assert reviewing.questions.get("g2").review_status == "accepted"
    assert result.summary("rejected") == (
        "2 rejected, 1 left alone: someone else decided them meanwhile"
    )


def test_skip_only_writes_the_history(reviewing: Store) -> None:
    review.skip(reviewing, "g1", "maria", seconds=2.0)
    assert reviewing.questions.get("g1").review_status == "pending"
    assert reviewing.reviews.state("g1")["revision"] == 0
    assert events(reviewing, "g1") == [("maria", "skip", "pending", "pending", None)]


def test_the_history_is_append_only(reviewing: Store) -> None:
    review.accept(reviewing, "g1", "maria")
    with pytest.raises(Exception, match="append-only"):
        reviewing.conn.execute("UPDATE review_events SET reviewer = 'x'")
    with pytest.raises(Exception, match="append-only"):
        reviewing.conn.execute("DELETE FROM review_events")


def test_generation_details_are_kept_from_the_import(reviewing: Store) -> None:
    assert reviewing.reviews.generation("g1") == {
        "synthesizer": "single_hop",
        "persona": "developer",
        "metadata": {"synthesizer_name": "single_hop", "persona_name": "developer"},
    }
    contexts = reviewing.reviews.question_contexts("g3")
    assert [(c["how"], c["chunk_ids"]) for c in contexts] == [
        ("id", ["webhooks"]),
        ("id", ["pagination"]),
    ]
    assert contexts[0]["text"].startswith("Webhooks are signed")  # the chunk's text, not its id
    assert json.loads(json.dumps(reviewing.reviews.question_contexts("g2")))[0]["how"] == "exact"
