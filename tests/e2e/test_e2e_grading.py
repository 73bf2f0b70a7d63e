"""The main flow in a real browser: name, three grades from the keyboard, reload, still there."""

import pytest

from labeler.store import Store
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def checked_grades(page) -> list[str]:
    """The grade shown on each card, in page order ('' where none is selected)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[class*="st-key-label_card_"]')].map(card => {
            const on = card.querySelector('button[role=radio][aria-checked=true]');
            return on ? on.innerText.trim()[0] : '';
        })"""
    )


def test_name_grade_three_from_the_keyboard_reload(loaded: Store, serve, page) -> None:
    server = serve(loaded.path)
    page.goto(f"{server.url}/?question=q1")
    wait_for_app(page)
    page.get_by_label("Your name").fill("maria")
    page.get_by_role("button", name="Start grading").click()
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_0")
    screenshot(page, "grade-before")
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    for key in ("2", "0", "1"):
        page.keyboard.press(key)
        wait_for_app(page)
    page.wait_for_function(
        """() => document.querySelectorAll('button[role=radio][aria-checked=true]').length >= 3"""
    )
    screenshot(page, "grade-after-three-keys")
    labels = loaded.question_labels("q1", "default")
    assert sorted(r["grade"] for r in labels) == [0, 1, 2]
    assert {r["reviewer"] for r in labels} == {"maria"}
    shown = checked_grades(page)
    page.reload()
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_0")
    page.wait_for_function(
        """() => document.querySelectorAll('button[role=radio][aria-checked=true]').length >= 3"""
    )
    assert checked_grades(page) == shown
    assert sorted(g for g in shown if g) == ["0", "1", "2"]
    # The name survived the reload too: no prompt, grading straight away.
    assert page.get_by_label("Your name").count() == 0
