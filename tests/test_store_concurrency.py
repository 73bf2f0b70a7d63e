"""Two processes grading at the same time: WAL, a busy timeout and BEGIN IMMEDIATE mean every
write lands, with its history row."""

import subprocess
import sys
import textwrap

from labeler.grading import labeling
from labeler.store import Store

QUESTIONS = 4
CHUNKS = 60

# Each worker grades everything as itself, and half of it as a shared reviewer (two tabs of one
# person), through the page's own core function; all start together when the go-file appears.
WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from labeler.grading import labeling
    from labeler.store import Store

    path, reviewer, parity, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():
        time.sleep(0.005)
    with Store(path) as store:
        for q in range(QUESTIONS):
            for c in range(CHUNKS):
                labeling.grade(store, f"q{q}", f"c{c}", reviewer, (q + c) % 3)
                if c % 2 == parity:
                    labeling.grade(store, f"q{q}", f"c{c}", "tab", 2)
    """
)


def test_two_processes_writing_grades_lose_nothing(tmp_path) -> None:
    path = str(tmp_path / "shared.db")
    with Store(path) as store:
        store.corpus.ensure_chunking("default")
        store.corpus.upsert_chunks(
            "default", [{"id": f"c{c}", "text": f"chunk {c}"} for c in range(CHUNKS)]
        )
        store.questions.upsert([{"id": f"q{q}", "text": f"question {q}"} for q in range(QUESTIONS)])
    go = tmp_path / "go"
    code = f"QUESTIONS, CHUNKS = {QUESTIONS}, {CHUNKS}\n" + WORKER
    workers = [
        subprocess.Popen([sys.executable, "-c", code, path, name, str(parity), str(go)])
        for parity, name in enumerate(("ana", "ben"))
    ]
    go.touch()
    for worker in workers:
        assert worker.wait(timeout=120) == 0
    with Store(path) as store:
        per_reviewer = dict(
            store.conn.execute("SELECT reviewer, count(*) FROM labels GROUP BY reviewer")
        )
        assert per_reviewer == {
            "ana": QUESTIONS * CHUNKS,
            "ben": QUESTIONS * CHUNKS,
            "tab": QUESTIONS * CHUNKS,
        }
        assert store.scalar("SELECT count(*) FROM label_events") == 3 * QUESTIONS * CHUNKS
        wrong = store.scalar(
            "SELECT count(*) FROM labels WHERE reviewer != 'tab'"
            " AND grade != (CAST(substr(question_id, 2) AS INT)"
            " + CAST(substr(chunk_id, 2) AS INT)) % 3"
        )
        assert wrong == 0
        # Progress agrees with the labels: both finished every question.
        done = store.scalar(
            "SELECT count(*) FROM progress WHERE complete = 1 AND reviewer IN ('ana', 'ben')"
        )
        assert done == 2 * QUESTIONS


# One tab regrades a chunk round and round (0, 1, 2, 0, ...) while another tab of the same
# reviewer saves notes on it. A note must never change the grade: every grade change in the
# history is one step of the cycle, and the last grade is the last one given.
REGRADER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from labeler.grading import labeling
    from labeler.store import Store

    path, rounds, go = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    while not go.exists():
        time.sleep(0.005)
    with Store(path) as store:
        for step in range(1, rounds + 1):
            labeling.grade(store, "q0", "c0", "ana", step % 3)
    """
)
NOTER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from labeler.grading import labeling
    from labeler.store import Store

    path, rounds, go = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    while not go.exists():
        time.sleep(0.005)
    with Store(path) as store:
        for step in range(rounds):
            labeling.set_note(store, "q0", "c0", "ana", f"note {step}")
    """
)


def test_a_note_saved_while_regrading_never_reverts_the_grade(tmp_path) -> None:
    rounds = 1500
    path = str(tmp_path / "shared.db")
    with Store(path) as store:
        store.corpus.ensure_chunking("default")
        store.corpus.upsert_chunks("default", [{"id": "c0", "text": "chunk 0"}])
        store.questions.upsert([{"id": "q0", "text": "question 0"}])
        labeling.grade(store, "q0", "c0", "ana", 0)
    go = tmp_path / "go"
    workers = [
        subprocess.Popen([sys.executable, "-c", code, path, str(rounds), str(go)])
        for code in (REGRADER, NOTER)
    ]
    go.touch()
    for worker in workers:
        assert worker.wait(timeout=300) == 0
    with Store(path) as store:
        changes = [
            (e["old_grade"], e["new_grade"])
            for e in store.labels.history("q0")
            if e["old_grade"] is not None and e["old_grade"] != e["new_grade"]
        ]
        label = store.labels.question_labels("q0", "default")[0]
    backwards = [change for change in changes if change[1] != (change[0] + 1) % 3]
    assert backwards == []
    assert len(changes) == rounds
    assert label["grade"] == rounds % 3
