import pytest

from labeler.errors import LabelerError
from labeler.importers import import_questions
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
    a, b, d = store.get_question("a"), store.get_question("b"), store.get_question("d")
    assert (a.text, a.reference_answer) == ("Ragas style?", "yes")
    assert (b.text, b.tags) == ("DeepEval style?", ("x",))
    assert d.reference_answer == "old ragas"


def test_csv_tags_and_idempotence(store: Store, tmp_path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("id,question,tags\nq1,Why?,api; limits\nq2,How?,\n", encoding="utf-8")
    assert import_questions(store, path).added == 2
    assert store.get_question("q1").tags == ("api", "limits")
    assert not import_questions(store, path).changed
    assert store.all_tags() == [("api", 1), ("limits", 1)]
    path.write_text("id,question,tags\nq1,Why?,api\nq2,How exactly?,\n", encoding="utf-8")
    report = import_questions(store, path)
    assert (report.added, report.updated) == (0, 2)
    assert store.all_tags() == [("api", 1)]


def test_an_update_without_a_reference_keeps_the_stored_one(store: Store, tmp_path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [{"id": "q", "question": "Why?", "reference_answer": "So."}])
    import_questions(store, tmp_path / "a.jsonl")
    write_jsonl(tmp_path / "b.jsonl", [{"id": "q", "question": "Why?"}])
    assert not import_questions(store, tmp_path / "b.jsonl").changed
    assert store.get_question("q").reference_answer == "So."


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
