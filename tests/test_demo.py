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


def test_the_demo_has_support_conversations_graded_in_part(store: Store) -> None:
    load_demo(store, DEMO_DIR)
    assert store.conversations.counts() == {"conversations": 4, "turns": 15}
    assert [n for n, _ in store.conversations.turns("fernleaf-rate-limits")] == [1, 2, 3, 4, 5]
    second = store.questions.get("fernleaf-rate-limits::2")
    assert (second.text, second.turn.rewrite) == (
        "And in the sandbox?",
        "What is the Orders API rate limit in the sandbox?",
    )
    assert [m.role for m in second.turn.history] == ["user", "assistant"]
    assert "multi-turn:Follow-up" in second.tags
    # MTRAG's bare NaN for a first turn's missing Multi-Turn tag: no tag.
    first = store.questions.get("fernleaf-rate-limits::1")
    assert not [t for t in first.tags if t.startswith("multi-turn:")]
    turns = [q for q in store.questions.ids() if "::" in q]
    graded = {q for q in turns if store.labels.question_labels(q, "default")}
    assert len(graded) == 6  # of 15: the grading page opens on a conversation's next turn
    done = {r["id"] for r in store.questions.queue("default", "tom") if r["state"] == "done"}
    assert {f"fernleaf-rate-limits::{n}" for n in (1, 2, 3)} <= done
    assert "fernleaf-rate-limits::4" not in done
