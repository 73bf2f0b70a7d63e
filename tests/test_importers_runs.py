import pytest

from labeler.errors import LabelerError
from labeler.importers import import_run
from labeler.store import Store
from tests.conftest import table_counts, write_jsonl


def results(store: Store, run: str) -> list[tuple]:
    return [
        tuple(r)
        for r in store.conn.execute(
            "SELECT question_id, position, chunk_id, rank, score FROM run_results WHERE run = ?"
            " ORDER BY question_id, position",
            (run,),
        )
    ]


def test_trec_run_takes_its_name_from_the_tag_and_keeps_its_ranks(loaded: Store) -> None:
    assert loaded.runs.names() == ["bm25"]
    assert results(loaded, "bm25")[:3] == [
        ("q1", 1, "error-codes", 1, 4.0),
        ("q1", 2, "pagination", 2, 3.0),
        ("q1", 3, "rate-limits", 3, 2.0),
    ]


def test_reimport_is_a_no_op_and_a_changed_run_replaces_the_old(loaded: Store, files) -> None:
    report = import_run(loaded, files["run"])
    assert report.summary() == "run: nothing changed (6 already present)"
    files["run"].write_text(
        "q1 Q0 rate-limits 1 9 bm25\nq1 Q0 error-codes 2 4 bm25\nq3 Q0 error-codes 1 1 bm25\n",
        encoding="utf-8",
    )
    report = import_run(loaded, files["run"])
    assert (report.added, report.updated, report.unchanged) == (1, 2, 0)
    assert results(loaded, "bm25") == [
        ("q1", 1, "rate-limits", 1, 9.0),
        ("q1", 2, "error-codes", 2, 4.0),
        ("q3", 1, "error-codes", 1, 1.0),
    ]


def test_jsonl_with_scores_only_is_ordered_by_score_ties_by_id_descending(
    loaded: Store, tmp_path
) -> None:
    path = write_jsonl(
        tmp_path / "dense.jsonl",
        [
            {"question_id": "q1", "chunk_id": "pagination", "score": 0.5},
            {"question_id": "q1", "chunk_id": "error-codes", "score": 0.9},
            {"question_id": "q1", "chunk_id": "webhooks", "score": 0.5},
        ],
    )
    report = import_run(loaded, path)
    assert "run 'dense'" in report.summary()
    assert [r[2] for r in results(loaded, "dense")] == ["error-codes", "webhooks", "pagination"]


def test_file_order_breaks_rank_ties(loaded: Store, tmp_path) -> None:
    path = tmp_path / "zero.trec"
    path.write_text("q1 Q0 webhooks 1 1 z\nq1 Q0 error-codes 1 5 z\n", encoding="utf-8")
    import_run(loaded, path)
    assert [r[2] for r in results(loaded, "z")] == ["webhooks", "error-codes"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("q1 Q0 pagination 1 2.0\n", r"run.trec:1: expected at least 6 fields"),
        ("q1 Q0 pagination one 2.0 x\n", r'run.trec:1: field "rank": expected a whole number'),
        ("q1 Q0 pagination 1 high x\n", r'run.trec:1: field "score": expected a number'),
        (
            "q1 Q0 pagination 1 2 x\nq7 Q0 pagination 1 2 x\n",
            r'run.trec:2: field "question_id": unknown question id \'q7\'',
        ),
        (
            "q1 Q0 pagination 1 2 x\nq1 Q0 nope 2 1 x\n",
            r'run.trec:2: field "chunk_id": unknown chunk id \'nope\'',
        ),
        ("q1 Q0 pagination 1 2 x\nq1 Q0 pagination 2 1 x\n", r"run.trec:2: .*appears twice"),
        ("", r"run.trec: the file is empty: it holds no results"),
    ],
)
def test_bad_runs_write_nothing(loaded: Store, tmp_path, text, message) -> None:
    path = tmp_path / "run.trec"
    path.write_text(text, encoding="utf-8")
    before = table_counts(loaded)
    with pytest.raises(LabelerError, match=message):
        import_run(loaded, path)
    assert table_counts(loaded) == before


def test_jsonl_needs_rank_or_score(loaded: Store, tmp_path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [{"question_id": "q1", "chunk_id": "pagination"}])
    with pytest.raises(LabelerError, match=r'r.jsonl:1: field "rank": needs a rank or a score'):
        import_run(loaded, path)


def test_a_new_run_reopens_questions_already_graded(loaded: Store, tmp_path) -> None:
    from labeler.grading import labeling

    view = labeling.open_question(loaded, "q2", "ana")
    for candidate in view.candidates:
        labeling.grade(loaded, "q2", candidate.chunk.id, "ana", 0)
    assert labeling.progress(loaded, "ana")["mine"] == 1
    path = tmp_path / "more.trec"
    path.write_text("q2 Q0 authentication 1 1 more\n", encoding="utf-8")
    import_run(loaded, path)
    assert labeling.progress(loaded, "ana")["mine"] == 0
