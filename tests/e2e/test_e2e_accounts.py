"""A team server in a real browser: nothing before the login (not even in the websocket's
messages), one message for a wrong password, the lockout, a reviewer kept out of the lead's
pages and never chosen by the URL, a session that survives a reload and ends at logout, and
grading that stays blind."""

import json
from pathlib import Path

import pytest

from labeler.accounts import users
from labeler.accounts.roles import shell_authority
from labeler.demo import DEMO_DIR
from labeler.store import Store
from tests.e2e.conftest import ready_for_keys, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

PASSWORDS = {"maria": "maria-password-1", "lea": "lea-password-12"}


@pytest.fixture
def team_db(demo_db: Path) -> Path:
    """The demo turned into a team server: maria (a reviewer, adopting her demo work) and lea,
    a lead."""
    with Store(demo_db) as store, shell_authority("root"):
        users.add_user(store, "maria", "reviewer", PASSWORDS["maria"], actor="root")
        users.add_user(store, "lea", "lead", PASSWORDS["lea"], actor="root")
    return demo_db


def question_texts() -> list[str]:
    lines = (DEMO_DIR / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines]


def record_frames(page) -> list[bytes]:
    """Every websocket message the browser receives, as bytes."""
    frames: list[bytes] = []

    def watch(socket) -> None:
        socket.on(
            "framereceived",
            lambda payload: frames.append(
                payload if isinstance(payload, bytes) else payload.encode("utf-8")
            ),
        )

    page.on("websocket", watch)
    return frames


def log_in(page, name: str, password: str) -> None:
    page.get_by_role("textbox", name="Username").fill(name)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    wait_for_app(page)


def test_a_visitor_sees_the_login_form_and_nothing_of_the_project(
    team_db: Path, serve, page
) -> None:
    frames = record_frames(page)
    server = serve(team_db)
    page.goto(f"{server.url}/?question=q001&reviewer=maria")
    wait_for_app(page)
    page.get_by_role("button", name="Log in").wait_for()
    page.wait_for_timeout(500)
    screenshot(page, "accounts-login")
    text = page.locator("[data-testid='stApp']").inner_text()
    assert "Username" in text
    assert "Password" in text
    received = b"".join(frames)
    assert len(frames) > 2  # the page did talk over the websocket
    for question in question_texts():
        assert question not in text
        assert question.encode("utf-8") not in received
    for word in (b"Grade chunks", b"fernleaf", b"orders-api", b"maria"):
        assert word not in received
    assert page.locator("[data-testid='stSidebarNav']").count() == 0


def test_a_wrong_password_is_refused_and_five_lock_the_account(team_db: Path, serve, page) -> None:
    server = serve(team_db)
    page.goto(server.url)
    wait_for_app(page)
    log_in(page, "maria", "not her password")
    assert page.get_by_text("Wrong username or password.").count() == 1
    log_in(page, "nobody", PASSWORDS["maria"])
    assert page.get_by_text("Wrong username or password.").count() == 1
    for _ in range(4):
        log_in(page, "maria", "not her password")
    page.get_by_text("this account is locked until").wait_for()
    screenshot(page, "accounts-locked")
    log_in(page, "maria", PASSWORDS["maria"])  # the right password, while locked
    assert page.get_by_text("this account is locked until").count() == 1
    assert page.locator(".st-key-label_card_0").count() == 0


def test_a_reviewer_cannot_open_lead_pages_nor_be_chosen_by_the_url(
    team_db: Path, serve, page
) -> None:
    server = serve(team_db)
    page.goto(f"{server.url}/?question=q005")
    wait_for_app(page)
    log_in(page, "maria", PASSWORDS["maria"])
    page.wait_for_selector(".st-key-label_card_0")
    nav = page.locator("[data-testid='stSidebarNav']").inner_text()
    for title in ("Adjudicate", "Export test sets", "Team", "Data", "Judge report"):
        assert title not in nav
    assert "Grade chunks" in nav
    for path in ("adjudicate", "export", "team"):
        page.goto(f"{server.url}/{path}")
        wait_for_app(page)
        page.wait_for_timeout(300)
        body = page.locator("[data-testid='stMain']").inner_text()
        assert "Settle" not in body
        assert "Create the next version" not in body
        assert "Waiting for adjudication" not in body
    # A crafted URL names tom: maria still grades as maria.
    page.goto(f"{server.url}/?question=q005&reviewer=tom")
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_0")
    assert "reviewer=" not in page.url
    ready_for_keys(page)
    page.wait_for_function("() => document.querySelectorAll('.st-key-label_key_1').length === 1")
    page.locator(".st-key-label_key_1 button").first.click()  # the "1" key's button
    page.wait_for_function(
        "() => document.querySelector('.st-key-label_card_0 button[role=radio][aria-checked=true]')"
    )
    wait_for_app(page)
    with Store(team_db) as store:
        events = store.labels.history("q005")
    assert events
    assert {e["reviewer"] for e in events if e["action"] == "grade"} == {"maria"}


def test_reload_keeps_the_session_and_logout_ends_it(team_db: Path, serve, page) -> None:
    server = serve(team_db)
    page.goto(f"{server.url}/?question=q005")
    wait_for_app(page)
    log_in(page, "lea", PASSWORDS["lea"])
    page.wait_for_selector(".st-key-label_card_0")
    cookie = next(c for c in page.context.cookies() if c["name"] == "labeler_session")
    assert cookie["sameSite"] == "Strict"
    assert cookie["value"] not in page.url
    page.reload()
    wait_for_app(page)
    page.wait_for_selector(".st-key-label_card_0")
    assert page.get_by_role("button", name="Log in").count() == 0
    page.goto(f"{server.url}/team")
    wait_for_app(page)
    page.get_by_text("Waiting for adjudication").wait_for()
    page.wait_for_selector("[data-testid='stDataFrame'] canvas")
    page.wait_for_timeout(1000)  # the tables draw themselves after the page has run
    screenshot(page, "accounts-team-page")
    page.get_by_role("button", name="Log out").click()
    wait_for_app(page)
    page.get_by_role("button", name="Log in").wait_for()
    # The old token is worthless now, even if a browser kept it.
    other = page.context.browser.new_context()
    other.add_cookies([{**cookie, "sameSite": "Strict"}])
    tab = other.new_page()
    tab.goto(server.url)
    wait_for_app(tab)
    tab.get_by_role("button", name="Log in").wait_for()
    assert tab.locator(".st-key-label_card_0").count() == 0
    other.close()
    page.reload()
    wait_for_app(page)
    page.get_by_role("button", name="Log in").wait_for()


def others_captions(page) -> list[str]:
    return [t for t in page.locator(".lbl-caption").all_inner_texts() if t.startswith("Others:")]


def test_grading_stays_blind_until_every_candidate_is_graded(team_db: Path, serve, page) -> None:
    """q003 is tom's (the demo); maria sees his grades only once she has graded every
    candidate herself, and marking it unanswerable does not show them."""
    server = serve(team_db)
    page.goto(f"{server.url}/?question=q003")
    wait_for_app(page)
    log_in(page, "maria", PASSWORDS["maria"])
    page.wait_for_selector(".st-key-label_card_0")
    cards = page.locator('[class*="st-key-label_card_"]').count()
    assert others_captions(page) == []
    ready_for_keys(page)
    page.keyboard.press("u")
    wait_for_app(page)
    page.wait_for_timeout(500)
    assert others_captions(page) == []
    page.keyboard.press("u")  # undo the mark
    wait_for_app(page)
    ready_for_keys(page)
    for _ in range(cards - 1):
        page.keyboard.press("0")
        wait_for_app(page)
    page.wait_for_timeout(300)
    assert others_captions(page) == []
    page.keyboard.press("0")
    wait_for_app(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.lbl-caption')]"
        ".some(c => c.innerText.startsWith('Others: tom'))"
    )
    screenshot(page, "accounts-blind-revealed")
    with Store(team_db) as store:
        assert store.labels.has_seen_others("q003", "default", "maria")
