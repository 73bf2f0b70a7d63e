"""From the Results page to the grading page's queue "decide A vs B" in a real browser, on the
demo: the link opens the most decisive question with its deciding chunks marked, keys grade
them, and N moves to the next question of the queue."""

import re

import pytest

from labeler.demo import load_demo
from labeler.store import Store
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


@pytest.fixture
def demo_db(tmp_path, monkeypatch):
    monkeypatch.setenv("LABELER_EXPORTS", str(tmp_path / "exports"))
    with Store(tmp_path / "demo.db") as store:
        load_demo(store)
        return store.path


def test_results_link_opens_the_queue_and_keys_grade_it(demo_db, serve, page) -> None:
    server = serve(demo_db)
    page.goto(f"{server.url}/results?reviewer=maria")
    wait_for_app(page)
    link = page.get_by_text("Grade them: decide hybrid vs bm25 on the grading page")
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_url(re.compile(r"decide=hybrid"))
    wait_for_app(page)
    page.wait_for_selector(".lbl-decides")
    page.wait_for_timeout(500)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("pairs in", exact=False).count() >= 1  # the status line
    first = re.search(r"question=(q\d+)", page.url).group(1)
    marked = page.locator(".lbl-decides").count()
    assert marked >= 1
    screenshot(page, "decide-queue")
    page.mouse.move(700, 400)
    page.mouse.wheel(0, -5000)  # the page scrolled to the highlighted card: back to the top
    page.wait_for_timeout(600)
    screenshot(page, "decide-queue-status")
    # Grade the highlighted (deciding) chunk from the keyboard, then the next question.
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    page.keyboard.press("0")
    wait_for_app(page)
    page.keyboard.press("n")
    page.wait_for_function(
        f"() => !location.search.includes('question={first}&')"
        f" && !location.search.endsWith('question={first}')"
    )
    wait_for_app(page)
    page.wait_for_selector(".lbl-decides")
    page.wait_for_timeout(500)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "decide-queue-next")
