import pytest

from labeler.errors import LabelerError
from labeler.importers import import_beir, import_qrels, parse_grade_map
from labeler.store import Store
from tests.conftest import table_counts, write_jsonl


def test_qrels_become_a_reviewers_labels_with_history(loaded: Store, tmp_path) -> None:
    path = tmp_path / "judged.qrels"
    path.write_text("q1 0 rate-limits 2\nq1 0 error-codes 1\nq1 0 webhooks 0\n", encoding="utf-8")
    report = import_qrels(loaded, path, reviewer="trec")
    assert (report.added, report.updated, report.unchanged) == (3, 0, 0)
    assert not import_qrels(loaded, path, reviewer="trec").changed
    path.write_text("q1 0 rate-limits 1\n", encoding="utf-8")
    report = import_qrels(loaded, path, reviewer="trec")
    assert (report.added, report.updated, report.unchanged) == (0, 1, 0)
    grades = {r["chunk_id"]: r["grade"] for r in loaded.labels.question_labels("q1", "default")}
    # The file no longer names error-codes and webhooks: an import never deletes a label.
    assert grades == {"rate-limits": 1, "error-codes": 1, "webhooks": 0}
    history = [
        (r["chunk_id"], r["action"], r["old_grade"], r["new_grade"])
        for r in loaded.labels.history("q1")
    ]
    assert history[-1] == ("rate-limits", "import", 2, 1)
    assert len(history) == 4


def test_grade_map_maps_a_0_to_4_scale_and_skips_unjudged(loaded: Store, tmp_path) -> None:
    assert parse_grade_map("4:2,3:2,2:1,1:1,0:0,-1:skip") == {
        4: 2,
        3: 2,
        2: 1,
        1: 1,
        0: 0,
        -1: None,
    }
    path = tmp_path / "graded.qrels"
    path.write_text("q1 0 rate-limits 4\nq1 0 error-codes 2\nq1 0 webhooks -1\n", encoding="utf-8")
    report = import_qrels(loaded, path, grade_map=parse_grade_map("4:2,3:2,2:1,1:1,0:0,-1:skip"))
    assert (report.added, report.skipped) == (2, 1)
    grades = {r["chunk_id"]: r["grade"] for r in loaded.labels.question_labels("q1", "default")}
    assert grades == {"rate-limits": 2, "error-codes": 1}


@pytest.mark.parametrize("text", ["4:3", "a:b", "4-2"])
def test_bad_grade_maps(text) -> None:
    with pytest.raises(LabelerError, match="grade-map"):
        parse_grade_map(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 0 rate-limits 3\n", r'q.qrels:1: field "grade": expected 0, 1 or 2, got 3'),
        ("q1 0 rate-limits\n", r"q.qrels:1: expected 4 fields"),
        ("q1 0 rate-limits 2\nq1 0 ghost 1\n", r"q.qrels:2: field \"chunk_id\": unknown chunk id"),
        ("q1 0 rate-limits 2\nq5 0 pagination 1\n", r"q.qrels:2: field \"question_id\": unknown"),
        (
            "q1 0 rate-limits 2\nq1 0 rate-limits 1\n",
            r"q.qrels:2: .*labelled twice \(lines 1 and 2\)",
        ),
    ],
)
def test_bad_qrels_write_nothing(loaded: Store, tmp_path, text, message) -> None:
    path = tmp_path / "q.qrels"
    path.write_text(text, encoding="utf-8")
    before = table_counts(loaded)
    with pytest.raises(LabelerError, match=message):
        import_qrels(loaded, path)
    assert table_counts(loaded) == before


def test_grade_outside_the_map(loaded: Store, tmp_path) -> None:
    path = tmp_path / "q.qrels"
    path.write_text("q1 0 rate-limits 7\n", encoding="utf-8")
    with pytest.raises(LabelerError, match="grade 7 is not in --grade-map"):
        import_qrels(loaded, path, grade_map={0: 0})


def test_beir_folder(store: Store, tmp_path) -> None:
    folder = tmp_path / "scifact"
    (folder / "qrels").mkdir(parents=True)
    write_jsonl(
        folder / "corpus.jsonl",
        [{"_id": "d1", "title": "T1", "text": "alpha"}, {"_id": "d2", "title": "", "text": "beta"}],
    )
    write_jsonl(
        folder / "queries.jsonl",
        [
            {"_id": "1", "text": "alpha?"},
            {"_id": "2", "text": "beta?"},
            {"_id": "9", "text": "train"},
        ],
    )
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td2\t2\n", encoding="utf-8"
    )
    reports = import_beir(store, folder)
    assert [(r.kind, r.added) for r in reports] == [("chunks", 2), ("questions", 2), ("qrels", 2)]
    assert store.questions.get("9") is None
    assert store.corpus.get_chunk("default", "d1").title == "T1"
    assert [r.changed for r in import_beir(store, folder)] == [False, False, False]
    with pytest.raises(LabelerError, match=r"no qrels for split 'dev' \(found: test\)"):
        import_beir(store, folder, split="dev")
