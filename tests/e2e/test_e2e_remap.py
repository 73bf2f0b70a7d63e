"""The remap queue in a real browser, on the demo: a proposal side by side, decided from the
keyboard, the decisions in the store afterwards; screenshots for a person to look at."""

import pytest

from labeler.remap.review import queue
from labeler.store import Store
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def caption(page) -> str:
    return page.locator("[data-testid='stMain'] .lbl-caption").first.inner_text()


def test_decide_proposals_from_the_keyboard(demo_db, serve, page) -> None:
    server = serve(demo_db)
    page.goto(f"{server.url}/remap?reviewer=maria")
    wait_for_app(page)
    page.wait_for_selector(".st-key-remap_new")
    assert caption(page).startswith("Proposal 1 of")
    screenshot(page, "remap-queue-first")
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    page.keyboard.press("x")  # the first proposal's chunk does not hold the answer
    wait_for_app(page)
    page.wait_for_function(
        """() => document.querySelector("[data-testid='stMain'] .lbl-caption")
                 ?.innerText.startsWith("Proposal 2 of")"""
    )
    page.keyboard.press("a")
    wait_for_app(page)
    page.wait_for_function(
        """() => document.querySelector("[data-testid='stMain'] .lbl-caption")
                 ?.innerText.startsWith("Proposal 3 of")"""
    )
    with Store(demo_db) as store:
        decided = [p for p in queue(store, "default", "sentences") if p.decided]
        assert [(p.review, p.reviewed_by) for p in decided] == [
            ("rejected", "maria"),
            ("accepted", "maria"),
        ]
        accepted = decided[1]
        labels = store.labels.question_labels(accepted.question_id, "sentences")
        assert (accepted.new_chunk, "maria", accepted.grade) in [
            (r["chunk_id"], r["reviewer"], r["grade"]) for r in labels
        ]
    assert page.locator("[data-testid='stException']").count() == 0


def test_an_edited_passage_shows_what_changed(demo_db, serve, page) -> None:
    server = serve(demo_db)
    page.goto(f"{server.url}/remap?reviewer=maria&question=q029&chunk=customer-care-refunds~2")
    wait_for_app(page)
    page.wait_for_selector(".st-key-remap_new")
    assert "q029" in caption(page)
    gone = page.locator("[data-testid='stMain'] .rm-gone").first.inner_text()
    new = page.locator("[data-testid='stMain'] .rm-new").first.inner_text()
    assert gone.startswith("Refunds always go to the original payment method.")
    assert new.startswith("Every refund goes back to the payment method")
    screenshot(page, "remap-queue-edited")
