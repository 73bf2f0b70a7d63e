"""The judge pages in a real browser on the demo: the blind spot-check by keys, adjudication by
keys, and the report; each leaves screenshots in tests/e2e/screenshots/ to look at."""

import json

import pytest

from labeler.store import Store
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def _press(page, key: str) -> None:
    page.locator("[data-testid='stApp']").click(position={"x": 0, "y": 0})
    page.keyboard.press(key)
    wait_for_app(page)


def _outside_requests(page) -> list[str]:
    seen: list[str] = []
    page.on(
        "request",
        lambda request: (
            seen.append(request.url)
            if not request.url.startswith(("http://127.0.0.1", "data:", "blob:"))
            else None
        ),
    )
    return seen


def test_blind_spot_check_by_keys(demo_db, serve, page) -> None:
    server = serve(demo_db)
    outside = _outside_requests(page)
    page.goto(f"{server.url}/judge_review?reviewer=ana&plan=faithfulness+spot-check")
    wait_for_app(page)
    page.wait_for_selector(".st-key-judge_toolbar")
    assert page.get_by_text("appear once you have given yours").count() == 1
    assert page.locator(".st-key-judge_reveal").count() == 0
    screenshot(page, "judge-review-blind")
    item = page.evaluate("() => new URL(location.href).searchParams.get('item')")
    _press(page, "1")
    page.wait_for_selector(".st-key-judge_reveal")
    reveal = page.locator(".st-key-judge_reveal").inner_text()
    assert "You: pass" in reveal
    screenshot(page, "judge-review-revealed")
    with Store(demo_db) as store:
        given = [
            r
            for r in store.ratings.item_ratings("Faithfulness", item, "default")
            if r["rater"] == "ana"
        ]
    assert [(r["value"], r["passed"]) for r in given] == [(1.0, 1)]
    _press(page, "n")
    page.wait_for_function(
        "item => new URL(location.href).searchParams.get('item') !== item", arg=item
    )
    assert page.locator(".st-key-judge_reveal").count() == 0
    # Markdown in a judge's rationale is text: the image it names is never fetched.
    assert not [u for u in outside if "example.invalid" in u]


def test_relevance_spot_check_writes_a_label(demo_db, serve, page) -> None:
    server = serve(demo_db)
    page.goto(f"{server.url}/judge_review?reviewer=ana&plan=relevance+spot-check")
    wait_for_app(page)
    page.wait_for_selector(".st-key-judge_chunk")
    item = page.evaluate("() => new URL(location.href).searchParams.get('item')")
    question_id, chunk_id = json.loads(item)
    _press(page, "0")
    page.wait_for_selector(".st-key-judge_reveal")
    screenshot(page, "judge-review-relevance")
    with Store(demo_db) as store:
        labels = store.labels.question_labels(question_id, "default")
    assert {(r["chunk_id"], r["grade"]) for r in labels if r["reviewer"] == "ana"} == {
        (chunk_id, 0)
    }


def test_adjudicate_by_keys(demo_db, serve, page) -> None:
    server = serve(demo_db)
    page.goto(f"{server.url}/adjudicate?reviewer=lead")
    wait_for_app(page)
    page.wait_for_selector(".st-key-adjudicate_toolbar")
    page.get_by_text("Final grade").first.wait_for()  # the card has drawn its grade buttons
    wait_for_app(page)
    screenshot(page, "adjudicate")
    question = page.evaluate("() => new URL(location.href).searchParams.get('question')")
    _press(page, "1")
    page.wait_for_timeout(300)
    wait_for_app(page)
    with Store(demo_db) as store:
        settled = store.adjudications.rows("default")
    assert [(q, row["grade"], row["reviewer"]) for (q, _), row in settled.items()] == [
        (question, 1, "lead")
    ]
    screenshot(page, "adjudicate-settled")
    assert page.get_by_text("Settled: 1 of 5 disputed chunks").count() == 1


def test_report_page(demo_db, serve, page) -> None:
    server = serve(demo_db)
    outside = _outside_requests(page)
    page.goto(f"{server.url}/judge_report?reviewer=lead&metric=relevance")
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stVegaLiteChart']")
    page.wait_for_timeout(500)
    text = page.locator("[data-testid='stMain']").inner_text()
    assert "too lenient" in text
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "judge-report-relevance")
    page.goto(f"{server.url}/judge_report?reviewer=lead&metric=Faithfulness")
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stVegaLiteChart']")
    page.wait_for_timeout(500)
    screenshot(page, "judge-report-faithfulness")
    assert not [u for u in outside if "example.invalid" in u]
