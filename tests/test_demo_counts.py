"""#7 item 12, on the demo: what `labeler export` counts and what `labeler eval --testset`
reports about the same version agree, and name "unanswerable" (a reviewer's mark) and "no
relevant label" (labels all below min_grade) apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.demo import DEMO_DIR, load_demo
from labeler.store import Store


@pytest.mark.parametrize(
    ("min_grade", "counts"),
    [
        # 29 graded questions and 6 graded turns of the support conversations.
        (1, {"unanswerable": 4, "no_relevant_label": 1, "scored": 35}),
        (2, {"unanswerable": 4, "no_relevant_label": 1, "scored": 35}),
    ],
)
def test_export_and_eval_count_the_same_questions(tmp_path: Path, monkeypatch, min_grade, counts):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "demo.db"
    with Store(db) as store:
        load_demo(store, DEMO_DIR)
        # The case the issue found: a question whose every label is 0. Nobody marked it
        # unanswerable, so it is not; it has no relevant label.
        unjudged = store.scalar(
            "SELECT id FROM questions WHERE review_status = 'accepted' AND id NOT IN"
            " (SELECT question_id FROM labels) AND id NOT IN (SELECT question_id FROM"
            " question_marks) ORDER BY id LIMIT 1"
        )
        store.labels.set_grade(unjudged, "default", "handbook-annual-leave#1", "maria", 0)
    runner = CliRunner()
    name = f"demo-{min_grade}"
    exported = runner.invoke(
        main,
        [
            "export",
            name,
            "--db",
            str(db),
            "--policy",
            "majority",
            "--min-grade",
            str(min_grade),
            "--format",
            "json",
        ],
    )
    assert exported.exit_code == 0, exported.output
    made = json.loads(exported.stdout)["counts"]
    run = str(DEMO_DIR / "runs" / "hybrid.trec")
    evaluated = runner.invoke(
        main,
        [
            "eval",
            "--testset",
            f"exports/{name}",
            "--run",
            run,
            "--min-grade",
            str(min_grade),
            "--format",
            "json",
        ],
    )
    assert evaluated.exit_code == 0, evaluated.output
    figures = json.loads(evaluated.stdout)["runs"]["hybrid"]
    assert (made["unanswerable"], made["no_relevant_label"]) == (
        counts["unanswerable"],
        counts["no_relevant_label"],
    )
    assert (figures["unanswerable"], figures["no_relevant_label"], figures["questions"]) == (
        counts["unanswerable"],
        counts["no_relevant_label"],
        counts["scored"],
    )
    assert made["questions"] == sum(counts.values())
    text = runner.invoke(
        main, ["eval", "--testset", f"exports/{name}", "--run", run, "--min-grade", str(min_grade)]
    ).stdout
    assert (
        f"Questions: {counts['scored']} scored; left out of the averages:"
        f" {counts['unanswerable']} unanswerable (marked so by a reviewer),"
        f" {counts['no_relevant_label']} with no relevant label (none graded {min_grade} or more)."
    ) in text
