"""Two processes grading at the same time: WAL, a busy timeout and BEGIN IMMEDIATE mean every
write lands, with its history row."""

import multiprocessing

from labeler.store import Store

QUESTIONS = 4
CHUNKS = 60


def grade_all(path: str, reviewer: str, shared: str, parity: int, start) -> None:
    from labeler import labeling

    start.wait()
    with Store(path) as store:
        for q in range(QUESTIONS):
            for c in range(CHUNKS):
                # Each process grades everything as itself, and half of it as a shared
                # reviewer (two tabs of one person), through the page's own core function.
                labeling.grade(store, f"q{q}", f"c{c}", reviewer, (q + c) % 3)
                if c % 2 == parity:
                    labeling.grade(store, f"q{q}", f"c{c}", shared, 2)


def test_two_processes_writing_grades_lose_nothing(tmp_path) -> None:
    path = str(tmp_path / "shared.db")
    with Store(path) as store:
        store.ensure_chunking("default")
        store.upsert_chunks("default", [{"id": f"c{c}", "text": f"chunk {c}"} for c in range(CHUNKS)])
        store.upsert_questions([{"id": f"q{q}", "text": f"question {q}"} for q in range(QUESTIONS)])
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [
        context.Process(target=grade_all, args=(path, name, "tab", parity, start))
        for parity, name in enumerate(("ana", "ben"))
    ]
    for worker in workers:
        worker.start()
    start.set()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    with Store(path) as store:
        per_reviewer = dict(
            store.conn.execute("SELECT reviewer, count(*) FROM labels GROUP BY reviewer")
        )
        assert per_reviewer == {"ana": QUESTIONS * CHUNKS, "ben": QUESTIONS * CHUNKS,
                                "tab": QUESTIONS * CHUNKS}
        assert store.scalar("SELECT count(*) FROM label_events") == 3 * QUESTIONS * CHUNKS
        wrong = store.scalar(
            "SELECT count(*) FROM labels WHERE reviewer != 'tab'"
            " AND grade != (CAST(substr(question_id, 2) AS INT) + CAST(substr(chunk_id, 2) AS INT)) % 3"
        )
        assert wrong == 0
        # Progress agrees with the labels: both finished every question.
        done = store.scalar("SELECT count(*) FROM progress WHERE complete = 1 AND reviewer IN ('ana', 'ben')")
        assert done == 2 * QUESTIONS
