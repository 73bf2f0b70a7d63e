"""The Results page in a real browser on the demo: it renders its tables whole, each bar of the
question chart names its question, and "Open" takes a question to the grading page."""

import re
from urllib.parse import unquote

import pytest

from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def open_results(page, server) -> None:
    page.goto(f"{server.url}/results?reviewer=maria")
    wait_for_app(page)
    page.wait_for_selector(".st-key-results_questions table")
    page.wait_for_timeout(500)


def test_results_page_and_a_row_opens_the_grading_page(demo_db, serve, page) -> None:
    server = serve(demo_db)
    open_results(page, server)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("proven range").count() >= 1
    # Issue #23: no metric name is cut; the pills wrap instead of scrolling past the edge.
    pills = page.locator(".st-key-results_metrics [role='toolbar']")
    scroll, client = pills.evaluate("t => [t.scrollWidth, t.clientWidth]")
    assert scroll <= client
    for button in pills.locator("button").all():
        box, row = button.bounding_box(), pills.bounding_box()
        assert box["x"] + box["width"] <= row["x"] + row["width"] + 1
    screenshot(page, "results-top")
    table = page.locator(".st-key-results_questions table")
    table.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    screenshot(page, "results-questions")
    # The table is plain HTML: every question's text whole, nothing cut.
    cells = table.locator("td").all_inner_texts()
    assert "Can I swap a gift card for cash?" in cells
    # "Open a question" lists the largest differences first; Open goes to the grading page.
    page.locator(".st-key-results_open button").click()
    page.wait_for_url(re.compile(r"127.0.0.1:\d+/\?.*question=[^&]+"))
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stButtonGroup']")  # the cards' grade buttons
    page.wait_for_timeout(500)
    question = unquote(re.search(r"question=([^&]+)", page.url).group(1))
    assert question == "fernleaf-gift-card::1"  # hybrid - bm25 = -0.500, the largest
    assert "Turn 1 of conversation" in page.locator(".lbl-turn-now").inner_text()
    screenshot(page, "results-open-question")


def test_each_bar_of_the_chart_names_its_question(demo_db, serve, page) -> None:
    server = serve(demo_db)
    open_results(page, server)
    bars = page.locator(".lbl-bars .lbl-bar-col")
    titles = [bars.nth(i).get_attribute("title") for i in range(bars.count())]
    assert len(titles) == 35  # the demo's scored questions, one bar each
    assert titles[0] == "fernleaf-gift-card::1: -0.500"
    values = [float(t.rpartition(": ")[2]) for t in titles]
    assert values == sorted(values)
    chart = page.locator(".lbl-bars")
    chart.scroll_into_view_if_needed()
    assert chart.bounding_box()["height"] >= 150
    page.wait_for_timeout(300)
    screenshot(page, "results-question-chart")
