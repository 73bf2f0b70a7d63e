"""The main flow in a real browser: name, three grades from the keyboard, reload, still there."""

import contextlib
import os
import time
from pathlib import Path

import pytest

from labeler.store import Store
from tests.e2e.conftest import ready_for_keys, screenshot, wait_for_app

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
    ready_for_keys(page)
    for key in ("2", "0", "1"):
        page.keyboard.press(key)
        wait_for_app(page)
    page.wait_for_function(
        """() => document.querySelectorAll('button[role=radio][aria-checked=true]').length >= 3"""
    )
    screenshot(page, "grade-after-three-keys")
    # The head (progress and toolbar) stays in view while the cards scroll under it.
    page.mouse.wheel(0, 5000)
    page.wait_for_timeout(300)
    box = page.locator(".st-key-label_toolbar").bounding_box()
    assert box is not None
    assert 0 <= box["y"] < 250
    labels = loaded.labels.question_labels("q1", "default")
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


def open_database_files(pid: int, db: Path) -> list[str]:
    """The server's open file descriptors on the database (and its -wal and -shm)."""
    names = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith(str(db)):
                names.append(target)
    return names


def test_two_sessions_grading_by_key_leave_no_connection_behind(loaded: Store, serve, page) -> None:
    """Key presses rerun only the grading fragment (the entrypoint does not run): each fragment
    run takes a store and gives it back, in two sessions at once, so the server's connections
    never grow with the runs (labeler.app.state)."""
    from labeler.app.state import _IDLE_KEEP

    server = serve(loaded.path)
    other = page.context.browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    tabs = {"ana": page, "ben": other}
    for name, tab in tabs.items():
        tab.goto(f"{server.url}/?question=q1&reviewer={name}")
        wait_for_app(tab)
        tab.wait_for_selector(".st-key-label_card_0")
        tab.wait_for_timeout(700)
        tab.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    for key in ("2", "j", "1", "k", "0", "1"):
        for tab in tabs.values():
            tab.keyboard.press(key)
            wait_for_app(tab)
    for tab in tabs.values():
        assert tab.locator("[data-testid='stException']").count() == 0
    labels = loaded.labels.question_labels("q1", "default")
    assert {r["reviewer"] for r in labels} == {"ana", "ben"}
    # More than twenty runs, and once idle the server holds the stores kept for the next runs
    # and the pool worker's (labeler.pooling: a thread with its own store for the server's
    # life), no more. A connection is counted by its -wal handle (SQLite keeps a closed
    # connection's main file handle while another connection holds locks on the file, so those
    # are not counted).
    loaded.close()

    def connections() -> int:
        files = open_database_files(server.process.pid, loaded.path)
        return sum(name.endswith("-wal") for name in files)

    deadline = time.monotonic() + 10
    while connections() > _IDLE_KEEP + 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert 1 <= connections() <= _IDLE_KEEP + 1
    other.context.close()


def test_a_stale_label_is_shown_with_both_texts(loaded: Store, serve, page, tmp_path) -> None:
    from labeler.importers import import_chunks

    loaded.labels.set_grade("q1", "default", "rate-limits", "maria", 2)
    changed = tmp_path / "changed.jsonl"
    changed.write_text(
        '{"id": "rate-limits", "text": "Each API key may send 50 requests per minute.'
        ' Extra requests get status 429 & a Retry-After header."}\n',
        encoding="utf-8",
    )
    import_chunks(loaded, changed, replace_text=True)
    server = serve(loaded.path)
    page.goto(f"{server.url}/?question=q1&reviewer=maria")
    wait_for_app(page)
    page.wait_for_selector("text=Text changed since graded")
    card = page.locator("[class*='st-key-label_card_']", has_text="Text changed since graded")
    card.locator("button[role=radio]").first.wait_for()
    card.scroll_into_view_if_needed()
    wait_for_app(page)
    screenshot(page, "grade-stale")
    assert "50 requests per minute" in card.inner_text()
    assert "100 requests per minute" in card.inner_text()
    assert "status 429 & a Retry-After" in card.inner_text()


def test_the_toolbar_stays_in_view_down_a_long_question(tmp_path, serve, page) -> None:
    from labeler.demo import load_demo

    with Store(tmp_path / "demo.db") as store:
        load_demo(store)
    server = serve(tmp_path / "demo.db")
    page.goto(f"{server.url}/?question=q001&reviewer=maria")
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_10")
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    cursor = "() => document.querySelector('.lbl-cursor')?.dataset.card"
    for _ in range(20):  # J until the cursor is on card 10 (this test is about the layout)
        if page.evaluate(cursor) == "label_card_10":
            break
        page.keyboard.press("j")
        wait_for_app(page)
    assert page.evaluate(cursor) == "label_card_10"
    wait_for_app(page)
    page.wait_for_timeout(800)  # the smooth scroll to the highlighted card
    card = page.locator(".st-key-label_card_10").bounding_box()
    toolbar = page.locator(".st-key-label_toolbar").bounding_box()
    assert card is not None
    assert toolbar is not None
    assert 0 <= toolbar["y"] < 250  # still in view
    assert card["y"] > toolbar["y"]  # the highlighted card scrolled into view below it
    assert card["y"] < 1000
    screenshot(page, "grade-demo-scrolled")


def test_fast_keys_leave_every_card_showing_what_the_database_holds(tmp_path, serve, page) -> None:
    """Keys pressed faster than the page redraws: once the page settles, every card shows its
    stored grade and exactly one card carries the cursor (no redraw is lost)."""
    from labeler.demo import load_demo

    with Store(tmp_path / "demo.db") as store:
        load_demo(store)
    server = serve(tmp_path / "demo.db")
    page.goto(f"{server.url}/?question=q005&reviewer=kim")
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_5")
    # Streamlit drops a key pressed in the first few hundred ms after a page first settles
    # (with the page before the fragments too); a reviewer is still reading the question.
    page.wait_for_timeout(700)
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    page.keyboard.press("1")  # one grade at an ordinary pace first: the page takes keys
    page.wait_for_function(
        "() => document.querySelectorAll('button[role=radio][aria-checked=true]').length > 0"
    )
    wait_for_app(page)
    for key in "2j10jj2k1j0j2":
        page.keyboard.press(key)
        page.wait_for_timeout(40)

    def stored() -> dict[str, str]:
        with Store(tmp_path / "demo.db") as store:
            return {
                r["chunk_id"]: str(r["grade"])
                for r in store.labels.question_labels("q005", store.corpus.current_chunking())
                if r["reviewer"] == "kim"
            }

    def shown() -> list:
        return page.evaluate(
            """() => [...document.querySelectorAll('[class*="st-key-label_card_"]')].map(card => {
                const on = card.querySelector('button[role=radio][aria-checked=true]');
                const id = card.querySelector('.lbl-card-head span').innerText;
                const marker = document.querySelector('.lbl-cursor');
                const cursor = card.classList.contains('st-key-' + marker.dataset.card);
                return [id, on ? on.innerText.trim()[0] : '', cursor];
            })"""
        )

    # How many of the keys Streamlit applies when they come faster than it reruns depends on
    # the machine (it coalesces rerun requests); what must hold is that the page agrees with
    # the database once it settles (a redraw may still be on its way: wait up to 20 s).
    deadline = time.monotonic() + 20
    while True:
        wait_for_app(page)
        page.wait_for_timeout(500)
        cards = shown()
        agrees = {chunk: grade for chunk, grade, _ in cards if grade} == stored()
        if agrees or time.monotonic() > deadline:
            break
    assert stored()
    assert {chunk: grade for chunk, grade, _ in cards if grade} == stored()
    assert sum(cursor for _, _, cursor in cards) == 1
