"""The remap queue page through AppTest, run as a single page; every decision is checked in the
store afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.remap import remap
from labeler.remap.review import queue
from labeler.store import Store
from tests.conftest import captions, notes
from tests.remap_helpers import BOTH, P_GIFT, P_OPENED, P_UNOPENED, grade, setup

PAGE = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "app_pages" / "remap.py")


@pytest.fixture
def queued(store: Store) -> Store:
    setup(store, {"a": BOTH, "g": P_GIFT}, {"x": P_UNOPENED, "y": P_OPENED, "z": P_GIFT})
    grade(store, "q1", "a", 2)
    grade(store, "q3", "g", 2)
    remap(store, "v1", "v2")
    return store


def page(store: Store, monkeypatch) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(store.path))
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.session_state["reviewer"] = "ana"
    return at.run()


def html_text(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.html)


def position(at: AppTest) -> str:
    """The caption naming the proposal on screen (escaped HTML: it holds ids)."""
    return next((text for text in captions(at) if text.startswith("Proposal")), "")


def test_without_a_remap_the_page_says_how_to_make_one(store: Store, monkeypatch) -> None:
    at = page(store, monkeypatch)
    assert not at.exception
    assert at.title[0].value == "Remap queue"
    assert "labeler remap --from OLD --to NEW" in at.markdown[0].value


def test_the_first_proposal_side_by_side(queued: Store, monkeypatch) -> None:
    at = page(queued, monkeypatch)
    assert not at.exception
    assert position(at) == "Proposal 1 of 2 · question q1 · v1 → v2"
    body = html_text(at)
    assert "How long do I have to return an unopened item?" in body
    assert "Old passage · a" in body
    assert "Proposed chunk · x" in body
    # The part of the old passage that is not in the proposed chunk is marked.
    assert '<span class="rm-gone">Opened items can be returned' in body
    assert "coverage <b>49%</b> of the passage is in this chunk" in body
    assert at.info[0].value.startswith("Split: the passage is split across new chunks.")
    assert at.button(key="remap_key_a").label == "Accept · 2 · answers it"
    assert "0 of 2 proposals decided" in [p.proto.text for p in at.get("progress")]


def test_accept_records_my_label_and_moves_on(queued: Store, monkeypatch) -> None:
    at = page(queued, monkeypatch)
    at.button(key="remap_key_a").click().run()
    assert not at.exception
    rows = queued.labels.question_labels("q1", "v2")
    assert [(r["chunk_id"], r["reviewer"], r["grade"]) for r in rows] == [("x", "ana", 2)]
    assert position(at) == "Proposal 2 of 2 · question q1 · v1 → v2"
    assert "1 of 2 proposals decided" in [p.proto.text for p in at.get("progress")]


def test_a_grade_key_changes_the_grade_and_x_rejects(queued: Store, monkeypatch) -> None:
    at = page(queued, monkeypatch)
    at.button(key="remap_key_0").click().run()
    at.button(key="remap_key_x").click().run()
    assert [(r["chunk_id"], r["grade"]) for r in queued.labels.question_labels("q1", "v2")] == [
        ("x", 0)
    ]
    assert [(p.review, p.review_grade) for p in queue(queued, "v1", "v2")] == [
        ("changed", 0),
        ("rejected", None),
    ]
    assert not at.exception
    assert notes(at)[0].startswith("All 2 proposals of v1 → v2 are decided")


def test_previous_shows_a_decided_proposal_to_decide_again(queued: Store, monkeypatch) -> None:
    at = page(queued, monkeypatch)
    at.button(key="remap_key_a").click().run()
    at.button(key="remap_key_p").click().run()
    assert position(at).startswith("Proposal 1 of 2")
    assert notes(at) == ["Accepted with grade 2 by ana. Press a key to decide again."]
    at.button(key="remap_key_x").click().run()
    assert queued.labels.question_labels("q1", "v2") == []


def test_only_my_own_labels(queued: Store, monkeypatch) -> None:
    at = page(queued, monkeypatch)
    at.toggle(key="remap_mine").set_value(True).run()
    assert not at.exception
    assert notes(at)[0].startswith("No proposal of v1 → v2 comes from your own labels")


def test_untrusted_text_is_shown_as_text(store: Store, monkeypatch) -> None:
    hostile = "Use <b>bold</b> and ![x](http://example.invalid/p.png) here, then more words."
    text = "# Notes\n\n" + hostile + "\n\nA second paragraph follows the first one here.\n"
    setup(
        store,
        {"a": hostile + "\n\nA second paragraph follows the first one here."},
        {"x": hostile},
        text=text,
    )
    grade(store, "q1", "a", 2)
    remap(store, "v1", "v2")
    at = page(store, monkeypatch)
    body = html_text(at)
    assert "&lt;b&gt;bold&lt;/b&gt;" in body
    assert "<b>bold</b>" not in body
    assert "<img" not in body


def test_ids_are_shown_as_text_not_markdown(store: Store, monkeypatch) -> None:
    # Chunk ids with "~" would strike through as Markdown; an id with markup stays text.
    text = "# D\n\n" + P_UNOPENED + "\n\n" + P_OPENED + "\n"
    setup(store, {"a": BOTH}, {"d~1": P_UNOPENED, "d~2*<i>x</i>": P_OPENED}, text=text)
    grade(store, "q1", "a", 2)
    remap(store, "v1", "v2")
    at = page(store, monkeypatch)
    body = html_text(at)
    assert "The rest is proposed with: d~2*&lt;i&gt;x&lt;/i&gt;" in body
    assert "<i>x</i>" not in body
    assert not [c.value for c in at.caption if "~" in c.value]
