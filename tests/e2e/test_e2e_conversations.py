"""A turn of one of the demo's support conversations in a real browser: the conversation above
it, the turn and its rewrite, a grade from the keyboard, another search, and N to the next
turn; and the Results page's figures by turn."""

import pytest

from labeler.store import Store
from tests.e2e.conftest import ready_for_keys, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

TURN = "fernleaf-rate-limits::4"


def test_a_turn_below_its_conversation(demo_db, serve, page) -> None:
    server = serve(demo_db)
    page.goto(f"{server.url}/?reviewer=kim&question={TURN}")
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_0")
    assert page.locator("[data-testid='stException']").count() == 0
    convo = page.locator(".lbl-convo")
    assert "And in the sandbox?" in convo.inner_text()
    assert "graded 2 for turn 2" in convo.inner_text()
    assert "graded 2 for turn 1" not in convo.inner_text()  # turn 1 is folded away
    assert (
        "Turn 4 of conversation fernleaf-rate-limits" in page.locator(".lbl-turn-now").inner_text()
    )
    assert (
        "How long should a client wait before retrying" in page.locator(".lbl-rewrite").inner_text()
    )
    screenshot(page, "conversation-turn")
    # The earlier turns fold away (the first of three here) and unfold on a click.
    page.locator(".lbl-convo summary").click()
    page.wait_for_timeout(200)
    assert "graded 2 for turn 1" in convo.inner_text()
    screenshot(page, "conversation-unfolded")
    ready_for_keys(page)
    page.keyboard.press("0")
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll('button[role=radio][aria-checked=true]').length >= 1"
    )
    with Store(demo_db) as store:
        mine = store.labels.question_labels(TURN, "default")
        assert [r["grade"] for r in mine if r["reviewer"] == "kim"] == [0]
    # Search with the turn alone: the pool is searched again.
    page.get_by_role("radio", name="the turn alone").click()
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_0")
    assert (
        "Searched: How long should I wait before trying again?"
        in page.locator(".lbl-caption").all_inner_texts()
    )
    screenshot(page, "conversation-search-turn-alone")
    with Store(demo_db) as store:
        assert store.questions.get(TURN).turn.search == "turn"
    ready_for_keys(page)
    page.keyboard.press("n")
    page.wait_for_function("() => location.search.includes('fernleaf-rate-limits%3A%3A5')")
    wait_for_app(page)
    assert "Turn 5 of conversation" in page.locator(".lbl-turn-now").inner_text()


def test_the_results_page_shows_the_runs_by_turn(demo_db, serve, page) -> None:
    server = serve(demo_db)
    page.goto(f"{server.url}/results?reviewer=maria")
    wait_for_app(page)
    grid = page.locator(".st-key-results_by_turn table")
    grid.wait_for()
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("By turn", exact=True).count() >= 1
    cells = grid.locator("td").all_inner_texts()
    assert "turn: first" in cells
    assert "turn: later" in cells
    screenshot(page, "results-by-turn")
