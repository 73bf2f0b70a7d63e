"""The store's reads and writes for exports: judged questions, adjudications, the version log,
and the chunk lookups of the generated-question importers."""

import pytest

from labeler.errors import LabelerError, NotFoundError
from labeler.store import Store
from labeler.store.base import text_hash


def test_the_migration_adds_its_tables_and_the_text_hash_index(store: Store) -> None:
    names = {r["name"] for r in store.query("SELECT name FROM sqlite_master")}
    assert {"testset_versions", "adjudications", "chunks_by_text_hash"} <= names


def test_judged_questions_are_those_with_a_label_or_an_unanswerable_mark(loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 0)
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    loaded.labels.set_mark("q2", "default", "ana", mark="skipped", value=True)  # not a judgement
    rows = loaded.labels.judged_questions("default", ["accepted"])
    assert [(r["id"], r["tags"]) for r in rows] == [("q1", ["api"]), ("q3", ["errors"])]
    assert loaded.labels.judged_questions("other-chunking", ["accepted"]) == []


def test_judged_questions_follow_the_review_status(loaded: Store) -> None:
    loaded.questions.upsert([{"id": "g1", "text": "Generated?", "origin": "generated"}])
    loaded.labels.set_grade("g1", "default", "webhooks", "ana", 2)
    assert [r["id"] for r in loaded.labels.judged_questions("default", ["accepted"])] == []
    pending = loaded.labels.judged_questions("default", ["accepted", "pending"])
    assert [(r["id"], r["review_status"]) for r in pending] == [("g1", "pending")]
    loaded.corpus.ensure_chunking("v2")
    loaded.corpus.upsert_chunks("v2", [{"id": "w", "text": "Webhooks."}])
    loaded.labels.set_grade("q1", "v2", "w", "ana", 1)
    assert list(loaded.labels.chunking_labels("default")) == [("g1", "webhooks", "ana", 2)]


def test_unanswerable_marks_list_only_set_marks(loaded: Store) -> None:
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    loaded.labels.set_mark("q3", "default", "ben", mark="unanswerable", value=True)
    loaded.labels.set_mark("q3", "default", "ben", mark="unanswerable", value=False)
    assert loaded.labels.unanswerable_marks("default") == [("q3", "ana")]


def test_an_adjudication_is_kept_with_its_history(loaded: Store) -> None:
    first = loaded.adjudications.set("q1", "default", "rate-limits", 2, "lead", note="says so")
    assert first is None
    assert loaded.adjudications.set("q1", "default", "rate-limits", 1, "lead") == 2
    assert loaded.adjudications.current("default") == {("q1", "rate-limits"): 1}
    assert loaded.adjudications.get("q1", "default", "rate-limits")["reviewer"] == "lead"
    assert loaded.adjudications.set("q1", "default", "rate-limits", None, "lead") == 1
    assert loaded.adjudications.current("default") == {}
    events = [
        (e["reviewer"], e["action"], e["old_grade"], e["new_grade"], e["note"])
        for e in loaded.labels.history("q1")
    ]
    assert events == [
        ("lead", "adjudicate", None, 2, "says so"),
        ("lead", "adjudicate", 2, 1, None),
        ("lead", "unadjudicate", 1, None, None),
    ]


def test_clearing_what_is_not_adjudicated_changes_nothing(loaded: Store) -> None:
    assert loaded.adjudications.set("q1", "default", "rate-limits", None, "lead") is None
    assert loaded.labels.history("q1") == []


@pytest.mark.parametrize(
    ("question", "chunk", "grade", "error"),
    [
        ("nope", "rate-limits", 2, NotFoundError),
        ("q1", "nope", 2, NotFoundError),
        ("q1", "rate-limits", 3, LabelerError),
    ],
)
def test_an_adjudication_needs_known_ids_and_a_grade(
    loaded: Store, question: str, chunk: str, grade: int, error: type
) -> None:
    with pytest.raises(error):
        loaded.adjudications.set(question, "default", chunk, grade, "lead")
    assert loaded.adjudications.current("default") == {}
    assert loaded.scalar("SELECT count(*) FROM label_events") == 0


def test_the_version_log_records_and_overwrites_by_name_and_number(store: Store) -> None:
    common = {"chunking": "default", "counts": {"questions": 2}, "selection": {"tags": []}}
    store.versions.record(
        name="faq",
        version=1,
        content_hash="sha256:a",
        parent=None,
        path="/x/faq/v1",
        created_at="t1",
        **common,
    )
    store.versions.record(
        name="faq",
        version=1,
        content_hash="sha256:b",
        parent=None,
        path="/y/faq/v1",
        created_at="t2",
        **common,
    )
    recorded = store.versions.recorded("faq")
    assert list(recorded) == [1]
    assert recorded[1]["content_hash"] == "sha256:b"
    assert recorded[1]["counts"] == {"questions": 2}
    assert store.versions.testset_names() == ["faq"]
    assert store.versions.recorded("other") == {}


def test_chunks_are_found_by_the_hash_of_their_exact_text(loaded: Store) -> None:
    text = "Use the next_cursor field to get the next page of orders."
    found = loaded.corpus.chunk_ids_by_text_hash("default", [text_hash(text), text_hash("nothing")])
    assert found == {text_hash(text): ["pagination"]}
    assert loaded.corpus.chunk_ids_by_text_hash("v2", [text_hash(text)]) == {}


def test_existing_question_ids_and_chunk_texts(loaded: Store) -> None:
    assert loaded.questions.existing_ids(["q1", "q9", "q3"]) == {"q1", "q3"}
    rows = loaded.corpus.chunk_texts("default", ["webhooks", "nope"])
    assert [(r["id"], r["doc_id"], r["title"]) for r in rows] == [("webhooks", "hooks", "Webhooks")]
    assert [i for i, _ in loaded.corpus.iter_chunk_texts("default")] == [
        "authentication",
        "error-codes",
        "pagination",
        "rate-limits",
        "webhooks",
    ]
    assert loaded.corpus.chunking_exists("default")
    assert not loaded.corpus.chunking_exists("v9")


def test_a_snapshot_sees_one_state_of_the_database(loaded: Store, tmp_path) -> None:
    other = Store(loaded.path)
    try:
        with loaded.snapshot():
            before = loaded.questions.count()
            other.questions.upsert([{"id": "q9", "text": "Added meanwhile?"}])
            assert loaded.questions.count() == before
        assert loaded.questions.count() == before + 1
    finally:
        other.close()
