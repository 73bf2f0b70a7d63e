"""The Results page in a real browser on the demo: it renders, and a click on a question (a row of
the table, a bar of the chart) opens that question on the grading page."""

import re
from urllib.parse import unquote

import pytest

from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def open_results(page, server) -> None:
    page.goto(f"{server.url}/results?reviewer=maria")
    wait_for_app(page)
    page.wait_for_selector(".st-key-results_questions [data-testid='stDataFrame']")
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
    table = page.locator(".st-key-results_questions [data-testid='stDataFrame']")
    table.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    screenshot(page, "results-questions")
    box = table.bounding_box()
    # The first row's selection box: left column, just under the header row.
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)
    page.wait_for_url(re.compile(r"127.0.0.1:\d+/\?.*question=[^&]+"))
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stButtonGroup']")  # the cards' grade buttons
    page.wait_for_timeout(500)
    question = unquote(re.search(r"question=([^&]+)", page.url).group(1))
    assert page.get_by_text(f"Question {question}", exact=False).count() >= 1
    screenshot(page, "results-row-to-grading")


def test_a_bar_of_the_chart_opens_its_question(demo_db, serve, page) -> None:
    server = serve(demo_db)
    open_results(page, server)
    chart = page.locator(".st-key-results_question_chart")
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    area = chart.bounding_box()
    # The tallest bar in hybrid's favour is the last one, at the right end of the plot area
    # (the legend takes the last tenth of the chart's width).
    page.mouse.click(area["x"] + area["width"] * 0.888, area["y"] + area["height"] * 0.33)
    page.wait_for_url(re.compile(r"127.0.0.1:\d+/\?.*question=[^&]+"), timeout=20_000)
    wait_for_app(page)
    assert page.locator("[data-testid='stException']").count() == 0
