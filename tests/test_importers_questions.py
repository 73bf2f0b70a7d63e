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
