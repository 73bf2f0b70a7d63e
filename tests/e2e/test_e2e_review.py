"""The review page in a real browser, on the demo: decisions from the keyboard (reject with a
reason, accept with sources, edit, undo), a batch, a conflict between two reviewers, the stats,
nothing loaded from another host. Screenshots are left in tests/e2e/screenshots/."""

import pytest

from labeler import review
from labeler.demo import load_demo
from labeler.store import Store
from tests.e2e.conftest import ready_for_keys, screenshot, wait_for_app

pytestmark = pytest.mark.e2e


@pytest.fixture
def demo(tmp_path) -> Store:
    with Store(tmp_path / "demo.db") as store:
        load_demo(store)
        yield store


def shown(page) -> str:
    """The id of the question on screen (the first part of its header line)."""
    return page.locator(".rv-head").first.inner_text().split(" · ")[0]


def press(page, key: str) -> None:
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    page.keyboard.press(key)
    wait_for_app(page)


def choose(page, within, label: str, option: str) -> None:
    """Pick an option of a selectbox (a combobox in Streamlit 1.67): open it, click it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = within.get_by_role("combobox", name=label)
    wanted = page.get_by_role("option", name=option, exact=True)
    for _ in range(5):  # a rerun landing as the list opens closes it again: open it anew
        wait_for_app(page)
        box.scroll_into_view_if_needed()
        box.locator("xpath=..").get_by_role("button", name="Open").click()
        try:
            wanted.wait_for(state="visible", timeout=3000)
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    wanted.click()
    wait_for_app(page)
    assert box.input_value() == option


def open_review(page, server, question: str = "") -> None:
    page.goto(f"{server.url}/review?reviewer=maria" + (f"&question={question}" if question else ""))
    page.wait_for_selector(".rv-head")
    ready_for_keys(page)


def test_decide_from_the_keyboard(demo: Store, serve, page) -> None:
    outside = []
    local = ("http://127.0.0.1", "data:", "blob:")
    # The app's favicon (set_page_config's material icon, the app shell's) is fetched from
    # Google's font host by Streamlit; that is the shell's to fix, not this page's.
    favicon = "materialsymbolsrounded/checklist/"
    page.on(
        "request",
        lambda r: None if r.url.startswith(local) or favicon in r.url else outside.append(r.url),
    )
    server = serve(demo.path)
    open_review(page, server)
    first = shown(page)
    assert first.startswith("ragas-")
    screenshot(page, "review-queue")
    # X opens the reasons, 3 rejects as a duplicate; the next question comes up.
    press(page, "x")
    page.wait_for_selector(".st-key-review_reject_panel")
    screenshot(page, "review-reject-reasons")
    press(page, "3")
    page.wait_for_function(
        f"() => !document.querySelector('.rv-head').textContent.startsWith('{first}')"
    )
    state = demo.reviews.state(first)
    assert (state["status"], state["reason"], state["decided_by"]) == (
        "rejected",
        "duplicate",
        "maria",
    )
    second = shown(page)
    # Shift+A accepts and grades the sources 2.
    sources = review.source_chunks(demo, second, "default")
    press(page, "Shift+A")
    page.wait_for_function(
        f"() => !document.querySelector('.rv-head').textContent.startsWith('{second}')"
    )
    assert demo.questions.get(second).review_status == "accepted"
    assert sorted(
        r["chunk_id"]
        for r in demo.labels.question_labels(second, "default")
        if r["reviewer"] == "maria"
    ) == sorted(sources)
    # U undoes it: back on the question, pending again, grades withdrawn.
    press(page, "u")
    page.wait_for_function(
        f"() => document.querySelector('.rv-head').textContent.startsWith('{second}')"
    )
    assert demo.questions.get(second).review_status == "pending"
    assert not [
        r for r in demo.labels.question_labels(second, "default") if r["reviewer"] == "maria"
    ]
    # E edits; Ctrl+Enter saves; the original is kept and the change shown.
    press(page, "e")
    box = page.locator(".st-key-review_edit_text textarea")
    box.fill(box.input_value().rstrip("?") + " today?")
    box.press("Control+Enter")
    wait_for_app(page)
    page.wait_for_selector(".lbl-diff ins")
    screenshot(page, "review-edited")
    assert demo.questions.get(second).text.endswith(" today?")
    assert demo.reviews.state(second)["original_text"] is not None
    assert not outside, outside


def test_a_conflict_between_two_reviewers(demo: Store, serve, page) -> None:
    server = serve(demo.path)
    open_review(page, server)
    question = shown(page)
    review.reject(demo, question, "tom", "ambiguous")  # tom decides in his own browser
    press(page, "a")
    page.wait_for_selector(".lbl-note-error")
    assert "tom (reject" in page.locator(".lbl-note-error").inner_text()
    screenshot(page, "review-conflict")
    state = demo.reviews.state(question)
    assert (state["status"], state["decided_by"]) == ("rejected", "tom")


def test_batch_reject_duplicates_but_the_first_of_each_cluster(demo: Store, serve, page) -> None:
    review.ensure_flags(demo)
    server = serve(demo.path)
    open_review(page, server)
    sidebar = page.locator("[data-testid='stSidebar']")
    choose(page, sidebar, "Flag", "Duplicate (6)")
    sidebar.locator(".st-key-review_but_first label").click()
    wait_for_app(page)
    main = page.locator("[data-testid='stMain']")
    main.get_by_text("Batch: one decision").click()
    main.get_by_role("combobox", name="Reason").wait_for(state="visible")
    choose(page, main, "Reason", "Duplicate")
    main.locator(".st-key-review_batch_prepare button").first.click()
    wait_for_app(page)
    page.wait_for_selector(".st-key-review_batch_box")
    text = page.locator(".st-key-review_batch_box").inner_text()
    assert "Reject 4 questions as “Duplicate”?" in text
    screenshot(page, "review-batch-confirm")
    page.locator(".st-key-review_batch_confirm button").first.click()
    wait_for_app(page)
    page.wait_for_selector(".lbl-note-ok")
    rejected = demo.query(
        "SELECT q.id FROM questions q JOIN question_reviews r ON r.question_id = q.id"
        " WHERE r.reason = 'duplicate' AND q.review_status = 'rejected' AND r.decided_by = 'maria'"
    )
    # Two clusters repeat a human question (both rejected), two are generated pairs (one each).
    assert len(rejected) == 4


def test_stats(demo: Store, serve, page) -> None:
    server = serve(demo.path)
    open_review(page, server)
    page.locator(".st-key-review_view").get_by_text("Stats").click()
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stMetric']")
    page.wait_for_selector("[data-testid='stDataFrame'] canvas")
    page.wait_for_selector(
        "[data-testid='stVegaLiteChart'] svg, [data-testid='stVegaLiteChart'] canvas"
    )
    page.wait_for_timeout(1000)  # the tables draw themselves after the page has run
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "review-stats")
    page.locator("[data-testid='stMain']").evaluate("el => el.scrollTo(0, 100000)")
    page.wait_for_timeout(400)
    screenshot(page, "review-stats-reasons")
