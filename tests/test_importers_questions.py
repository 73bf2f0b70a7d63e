import shutil

import pytest

from labeler.errors import LabelerError
from labeler.importers import import_questions
from labeler.importers.generated import stable_id
from labeler.store import Store
from tests.conftest import table_counts, write_jsonl


def test_accepts_the_names_other_tools_write(store: Store, tmp_path) -> None:
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {"id": "a", "user_input": "Ragas style?", "reference": "yes"},
            {"id": "b", "input": "DeepEval style?", "expected_output": "yes", "tags": ["x"]},
            {"id": "c", "query": "BEIR style?"},
            {"id": "d", "text": "Plain?", "ground_truth": "old ragas"},
        ],
    )
    assert import_questions(store, path).added == 4
    a, b, d = (
        store.questions.get("a"),
        store.questions.get("b"),
        store.questions.get("d"),
    )
    assert (a.text, a.reference_answer) == ("Ragas style?", "yes")
    assert (b.text, b.tags) == ("DeepEval style?", ("x",))
    assert d.reference_answer == "old ragas"


def test_csv_tags_and_idempotence(store: Store, tmp_path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("id,question,tags\nq1,Why?,api; limits\nq2,How?,\n", encoding="utf-8")
    assert import_questions(store, path).added == 2
    assert store.questions.get("q1").tags == ("api", "limits")
    assert not import_questions(store, path).changed
    assert store.questions.all_tags() == [("api", 1), ("limits", 1)]
    path.write_text("id,question,tags\nq1,Why?,api\nq2,How exactly?,\n", encoding="utf-8")
    report = import_questions(store, path)
    assert (report.added, report.updated) == (0, 2)
    assert store.questions.all_tags() == [("api", 1)]


def test_an_update_without_a_reference_keeps_the_stored_one(store: Store, tmp_path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [{"id": "q", "question": "Why?", "reference_answer": "So."}])
    import_questions(store, tmp_path / "a.jsonl")
    write_jsonl(tmp_path / "b.jsonl", [{"id": "q", "question": "Why?"}])
    assert not import_questions(store, tmp_path / "b.jsonl").changed
    assert store.questions.get("q").reference_answer == "So."


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"id": "a", "question": "x"}, {"id": "b"}], r'q.jsonl:2: field "question": no question'),
        ([{"id": "a", "question": "x"}, {"id": "a", "question": "y"}], r"q.jsonl:2: .*duplicate"),
        ([{"id": "a", "question": "x", "tags": "[1"}], r'q.jsonl:1: field "tags": expected a JSON'),
        ([{"id": "a", "question": "x", "tags": [1]}], r'q.jsonl:1: field "tags": expected a list'),
    ],
)
def test_bad_questions_write_nothing(store: Store, tmp_path, rows, message) -> None:
    path = write_jsonl(tmp_path / "q.jsonl", rows)
    with pytest.raises(LabelerError, match=message):
        import_questions(store, path)
    assert table_counts(store)["questions"] == 0


# generated questions from any generator (origin: generated) ---------------------------------


def test_generated_records_come_in_to_review_with_their_contexts(loaded: Store, tmp_path) -> None:
    path = write_jsonl(
        tmp_path / "gen.jsonl",
        [
            {"id": "h9", "question": "A human one?"},
            {
                "id": "g1",
                "origin": "generated",
                "generator": "acme-qgen",
                "question": "How do I fetch the next page?",
                "reference": "Use next_cursor.",
                "contexts": ["pagination", "A text no chunk has, from a page long removed."],
                "metadata": {"synthesizer_name": "extract-v2", "persona": "developer", "k": 1},
                "tags": ["batch-7"],
            },
            {
                "origin": "generated",
                "question": "What signs webhooks?",
                "contexts": ["Webhooks are signed with HMAC SHA-256 so you can verify the sender."],
                "synthesizer": "short-form",
            },
        ],
    )
    result = import_questions(loaded, path)
    assert (result.report.added, result.by_id, result.exact, result.unmatched_total) == (3, 1, 1, 1)
    assert "3 added" in result.summary()
    g1 = loaded.questions.get("g1")
    assert (g1.origin, g1.review_status, g1.generator, g1.source_chunk_ids, g1.tags) == (
        "generated",
        "pending",
        "acme-qgen",
        ("pagination",),
        ("batch-7",),
    )
    assert loaded.reviews.generation("g1") == {
        "synthesizer": "extract-v2",
        "persona": "developer",
        "metadata": {"synthesizer_name": "extract-v2", "persona": "developer", "k": 1},
    }
    contexts = loaded.reviews.question_contexts("g1")
    assert [(c["how"], c["chunk_ids"]) for c in contexts] == [("id", ["pagination"]), ("none", [])]
    assert contexts[0]["text"].startswith("Use the next_cursor field")
    derived = stable_id("gen", "What signs webhooks?")
    assert loaded.questions.get(derived).source_chunk_ids == ("webhooks",)
    assert loaded.reviews.generation(derived)["synthesizer"] == "short-form"
    assert loaded.questions.get("h9").origin == "human"
    again = import_questions(loaded, path)
    assert not again.report.changed


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"origin": "robot", "question": "x"}, r'gen.jsonl:1: field "origin": expected one of'),
        (
            {"origin": "generated", "question": "x", "metadata": [1]},
            r'gen.jsonl:1: field "metadata": expected an object, got a list',
        ),
        (
            {"origin": "generated", "question": "x", "contexts": [{"a": 1}]},
            r'gen.jsonl:1: field "contexts": expected a list of texts',
        ),
        ({"origin": "generated", "text": ""}, r'gen.jsonl:1: field "question": no question'),
        (
            {"origin": "generated", "question": "x", "generator": ["a"]},
            r'gen.jsonl:1: field "generator": expected text',
        ),
    ],
)
def test_bad_generated_records_write_nothing(store: Store, tmp_path, row, message) -> None:
    path = write_jsonl(tmp_path / "gen.jsonl", [row])
    with pytest.raises(LabelerError, match=message):
        import_questions(store, path)
    assert table_counts(store)["questions"] == 0
    assert store.scalar("SELECT count(*) FROM question_contexts") == 0


# a new text for a graded question (#19 item 2) ---------------------------------------------


@pytest.fixture
def judged(loaded: Store) -> Store:
    """q1 graded by ana and ben, q2 unanswerable for ana, q3 untouched."""
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q1", "default", "error-codes", "ben", 1)
    loaded.adjudications.set("q1", "default", "rate-limits", 2, "lead")
    loaded.labels.set_mark("q2", "default", "ana", mark="unanswerable", value=True)
    return loaded


def retexted(tmp_path, q1: str = "How to retry a 429?", q3: str = "What is 404?"):
    return write_jsonl(
        tmp_path / "new.jsonl",
        [
            {"id": "q3", "question": q3},
            {"id": "q1", "question": q1},
            {"id": "q2", "question": "How do I get the next page of orders?"},  # the same
        ],
    )


def history(store: Store, question_id: str) -> list[tuple]:
    return [
        tuple(r)
        for r in store.conn.execute(
            "SELECT chunk_id, reviewer, action, old_grade, new_grade, note FROM label_events"
            " WHERE question_id = ? ORDER BY id",
            (question_id,),
        )
    ]


def test_a_new_text_for_a_graded_question_is_refused(judged: Store, tmp_path) -> None:
    before = table_counts(judged)
    events = history(judged, "q1")
    with pytest.raises(LabelerError) as caught:
        import_questions(judged, retexted(tmp_path))
    assert str(caught.value) == (
        f'{tmp_path / "new.jsonl"}:2: field "question": changes the text of 1 question already'
        " graded: q1 (2 labels). Their labels were given for the old text: import the new text"
        " under a new id, or pass --replace-text to replace it and mark those labels stale"
        " (left out of exports until a reviewer confirms or changes them)"
    )
    assert table_counts(judged) == before
    assert judged.questions.get("q1").text == "How should a client retry after a 429 response?"
    assert judged.questions.get("q3").text == "What does error 404 mean?"  # nothing written
    assert history(judged, "q1") == events


def test_an_unanswerable_mark_is_a_judgement_too(judged: Store, tmp_path) -> None:
    path = write_jsonl(tmp_path / "q2.jsonl", [{"id": "q2", "question": "Next page?"}])
    with pytest.raises(LabelerError, match=r"q2 \(0 labels\)"):
        import_questions(judged, path)


def test_replace_text_makes_its_judgements_stale(judged: Store, tmp_path) -> None:
    report = import_questions(judged, retexted(tmp_path), replace_text=True)
    assert (report.added, report.updated, report.unchanged) == (0, 2, 1)
    assert report.detail == "1 graded question got a new text: 2 labels now stale"
    assert judged.questions.get("q1").text == "How to retry a 429?"
    states = {
        (label["chunk_id"], label["reviewer"]): label["state"]
        for label in judged.labels.question_labels("q1", "default")
    }
    assert states == {("error-codes", "ben"): "stale", ("rate-limits", "ana"): "stale"}
    assert judged.adjudications.current("default") == {}
    note = "the question text was replaced"
    assert history(judged, "q1")[-3:] == [
        ("error-codes", "ben", "stale", 1, 1, note),
        ("rate-limits", "ana", "stale", 2, 2, note),
        ("rate-limits", "lead", "stale adjudication", 2, 2, note),
    ]


def test_replace_text_withdraws_an_unanswerable_mark(judged: Store, tmp_path) -> None:
    path = write_jsonl(tmp_path / "q2.jsonl", [{"id": "q2", "question": "Next page?"}])
    import_questions(judged, path, replace_text=True)
    assert judged.labels.marks("q2", "default")["ana"]["unanswerable"] is False
    assert history(judged, "q2")[-1] == (
        None,
        "ana",
        "answerable",
        None,
        None,
        "the question text was replaced",
    )


def test_an_export_after_replace_text_leaves_the_stale_labels_out(judged: Store, tmp_path) -> None:
    from labeler.export import export_testset

    import_questions(judged, retexted(tmp_path), replace_text=True)
    result = export_testset(judged, "orders", out=tmp_path / "exports")
    assert list(result.plan.content.questions) == ["q2"]  # q1: nothing current left to export
    assert result.plan.stale_labels == 2
    judged.labels.set_grade("q1", "default", "rate-limits", "ana", 2)  # confirmed for the new text
    again = export_testset(judged, "orders", out=tmp_path / "exports")
    assert again.plan.content.questions["q1"].text == "How to retry a 429?"
    assert again.plan.content.qrels["q1"] == {"rate-limits": 2}


def test_the_same_check_stops_an_import_testset(judged: Store, tmp_path) -> None:
    """A version whose question q1 has another text than this database's graded q1."""
    from labeler.export import export_testset
    from labeler.importers.testset import import_testset

    judged.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copy(judged.path, tmp_path / "copy.db")
    with Store(tmp_path / "copy.db") as copy:
        copy.questions.upsert([{"id": "q1", "text": "Reworded?"}], replace_text=True)
        copy.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
        exported = export_testset(copy, "orders", out=tmp_path / "exports")
    before = table_counts(judged)
    with pytest.raises(LabelerError, match=r"questions\.jsonl:1: .*changes the text of 1 question"):
        import_testset(judged, exported.path)
    assert table_counts(judged) == before
