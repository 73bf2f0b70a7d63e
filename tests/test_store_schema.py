"""The schema's indexes, read as the app reads: a run in the engine's order by one scan of an
index (migration 0017), and the accepted questions counted from an index (0018)."""

from labeler.store import Store


def test_a_run_reads_back_by_question_then_position(loaded: Store) -> None:
    assert loaded.runs.ranking("bm25")[:3] == [
        ("q1", "error-codes", 1),
        ("q1", "pagination", 2),
        ("q1", "rate-limits", 3),
    ]


def test_reading_a_run_is_one_scan_of_a_covering_index_with_no_sort(loaded: Store) -> None:
    """Migration 0017: at 200,000 results the lookups and the sort were half the read."""
    plan = loaded.conn.execute(
        "EXPLAIN QUERY PLAN SELECT question_id, chunk_id, position FROM run_results"
        " WHERE run = ? ORDER BY question_id, position",
        ("bm25",),
    ).fetchall()
    details = " / ".join(row[-1] for row in plan)
    assert "COVERING INDEX run_results_by_run" in details
    assert "TEMP B-TREE" not in details


def test_counting_the_accepted_questions_reads_an_index_only(loaded: Store) -> None:
    """Migration 0018: the grading page's progress line counts them after every grade."""
    plan = loaded.conn.execute(
        "EXPLAIN QUERY PLAN SELECT count(*) FROM questions WHERE review_status = 'accepted'"
    ).fetchall()
    assert "COVERING INDEX questions_by_status" in plan[-1][-1]
