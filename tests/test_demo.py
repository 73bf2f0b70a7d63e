import subprocess
import sys

from labeler.demo import DEMO_DIR, load_demo
from labeler.grading import labeling
from labeler.grading.counts import project_counts
from labeler.store import Store
from tests.conftest import REPO


def test_the_committed_demo_is_what_the_builder_makes() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "data" / "build_demo.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_demo_opens_with_work_done_and_work_to_do(store: Store) -> None:
    reports = load_demo(store, DEMO_DIR)
    assert all(r.changed for r in reports)
    status = store.status()
    assert status["chunkings"]["default"] >= 300
    assert status["documents"] >= 40
    counts = project_counts(store)
    assert counts.questions >= 60
    assert sorted(status["runs"]) == ["bm25", "hybrid", "weak"]
    assert set(status["labels"]["by_reviewer"]) == {"maria", "tom"}
    done = labeling.progress(store, None)["everyone"]
    # Of the questions to grade: generated ones wait for review first.
    assert done == counts.graded
    assert 0.3 * counts.questions <= done <= 0.6 * counts.questions
    assert not any(r.changed for r in load_demo(store, DEMO_DIR))


def test_the_demo_reviewers_disagree_somewhere(store: Store) -> None:
    load_demo(store, DEMO_DIR)
    disagreements = store.scalar(
        "SELECT count(*) FROM (SELECT question_id, chunk_id FROM labels"
        " GROUP BY question_id, chunk_id HAVING count(DISTINCT grade) > 1)"
    )
    assert disagreements >= 3


def test_the_demo_has_generated_questions_to_review(store: Store) -> None:
    from labeler import review
    from labeler.importers.generated import stable_id
    from labeler.store import QueueFilter

    load_demo(store, DEMO_DIR)
    review.ensure_flags(store)
    stats = review.review_stats(store)
    assert stats["total"] == 40
    assert (stats["accepted"], stats["rejected"]) == (5, 3)
    assert stats["remaining"] == 32
    assert {g["value"] for g in stats["by_generator"]} == {"ragas", "acme-qgen"}
    flagged = store.flags.flag_counts("pending")
    for name in (
        "duplicate",
        "answer_leak",
        "copied_from_source",
        "unsupported_reference",
        "context_not_found",
        "too_short",
        "too_long",
    ):
        assert flagged.get(name, 0) >= 1, name
    # The builder names Ragas questions as the importer does.
    first = review.list_questions(store, QueueFilter(status=None, generator="ragas"))[0]
    assert first["id"] == stable_id("ragas", first["text"])
