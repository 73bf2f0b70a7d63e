"""The counts of ``labeler.grading.counts``: worked out by hand on a small project, and the
demo's figures the same on every face (``labeler status``, the Data page, the grading page's
progress line, the Results page, the README's tour)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from streamlit.testing.v1 import AppTest

from labeler.cli import main
from labeler.demo import DEMO_DIR, load_demo
from labeler.grading.counts import COUNTS, project_counts
from labeler.grading.policy import project_policy, set_project_policy
from labeler.store import Store
from tests.conftest import captions

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "labeler" / "app" / "streamlit_app.py")
DEMO_FIGURES = {"questions": 108, "waiting": 32, "turns": 15, "graded": 39, "answerable": 35}


def test_counts_by_hand(loaded: Store) -> None:
    # Three questions; q1's two chunks graded by ana (one relevant), q3 marked unanswerable.
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 0)
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    counts = project_counts(loaded)
    assert (counts.questions, counts.waiting, counts.turns, counts.answerable) == (3, 0, 0, 1)
    assert counts.unanswerable == 1
    assert counts.policy == "majority"


def test_answerable_follows_the_projects_policy(loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 1)
    loaded.labels.set_grade("q1", "default", "rate-limits", "bob", 0)
    assert project_counts(loaded).answerable == 0  # majority: a tie goes to the lower grade
    assert set_project_policy(loaded, "max") == "majority"
    assert project_policy(loaded) == "max"
    assert project_counts(loaded).answerable == 1


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("demo") / "demo.db"
    with Store(db) as store:
        load_demo(store, DEMO_DIR)
    return db


def test_the_core_counts_the_demo(demo: Path) -> None:
    with Store(demo) as store:
        counts = project_counts(store).as_dict()
    assert {c.key: counts[c.key] for c in COUNTS} == DEMO_FIGURES


def test_status_says_the_same(demo: Path) -> None:
    result = CliRunner().invoke(main, ["status", "--db", str(demo), "--format", "json"])
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)["counts"]
    assert {c.key: counts[c.key] for c in COUNTS} == DEMO_FIGURES
    text = CliRunner().invoke(main, ["status", "--db", str(demo)]).stdout
    for count in COUNTS:
        assert f"{count.label.capitalize()}: {DEMO_FIGURES[count.key]}\n" in text


def open_page(demo: Path, monkeypatch, page: str | None) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(demo))
    monkeypatch.setenv("LABELER_EXPORTS", str(demo.parent / "exports"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = "newcomer"
    if page:
        at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_data_page_says_the_same(demo: Path, monkeypatch) -> None:
    at = open_page(demo, monkeypatch, "app_pages/data.py")
    shown = {m.label: m.value for m in at.metric}
    assert shown["Questions"] == "108"
    assert shown["Fully graded"] == "39"
    assert (
        "108 questions (39 fully graded, 35 answerable, 4 marked unanswerable) · 32 generated"
        " questions waiting for review · 3 rejected · 15 turns" in captions(at)
    )


def test_the_grading_page_says_the_same(demo: Path, monkeypatch) -> None:
    at = open_page(demo, monkeypatch, None)
    line = " ".join(p.proto.text for p in at.get("progress"))
    assert "you: 0 of 108 questions fully graded · everyone: 39" in line


def test_the_results_page_says_the_same(demo: Path, monkeypatch) -> None:
    at = open_page(demo, monkeypatch, "app_pages/results.py")
    assert at.caption[0].value.startswith("Means over the 35 answerable questions")


def test_the_readme_tour_says_the_same() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = readme.split("## A five-minute tour of the demo", 1)[1].split("\n## ", 1)[0]
    tour = " ".join(tour.split())
    assert re.search(r"\b108 questions about them\b", tour)
    assert "15 turns of four support conversations" in tour
    assert "32 generated questions waiting for review" in tour
    assert "39 questions are fully graded (6 of them turns), 35 of them answerable" in tour


def test_the_readme_tour_says_what_the_remap_did(demo: Path) -> None:
    """The Remap queue's sidebar and the README's tour: the mappings carried and the proposals
    left (labeler.remap.review.remaps, which the page reads)."""
    from labeler.remap import review

    with Store(demo) as store:
        (summary,) = review.remaps(store)
    tour = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    applied = summary.counts["applied"]
    assert f"carried {applied} label mappings across on its own" in tour
    assert f"the {summary.proposals} proposals it would not decide" in tour
