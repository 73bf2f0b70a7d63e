"""The gate through AppTest: single-person mode as before, and on a team server a login form
before anything of the project, the role's pages, and a reviewer taken from the login, never
from the URL."""

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.accounts import sessions, users
from labeler.accounts.roles import shell_authority
from labeler.store import Store
from tests.conftest import notes

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")


@pytest.fixture
def team(loaded: Store, monkeypatch) -> Store:
    with shell_authority("root"):
        users.add_user(loaded, "rita", "reviewer", "rita-password", actor="root")
        users.add_user(loaded, "lea", "lead", "lea-password", actor="root")
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    return loaded


def everything_drawn(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [h.proto.body for h in at.html]
    parts += [t.label for t in at.text_input] + [b.label for b in at.button]
    return "\n".join(str(p) for p in parts)


def log_in(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="login_name").input(name)
    at.text_input(key="login_password").input(password)
    return at.button[0].click().run()


def test_a_visitor_sees_only_the_login_form(team: Store) -> None:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["question"] = "q1"
    at.query_params["reviewer"] = "rita"
    at.run()
    assert not at.exception
    assert [t.label for t in at.text_input] == ["Username", "Password"]
    assert [b.label for b in at.button] == ["Log in"]
    drawn = everything_drawn(at)
    for text in ("How many requests", "q1", "rate-limits", "Grade chunks", "rita"):
        assert text not in drawn
    assert "reviewer" not in at.query_params
    assert "reviewer" not in at.session_state


def test_a_wrong_name_or_password_is_refused_with_one_message(team: Store) -> None:
    for name, password in (("rita", "not her password"), ("nobody", "rita-password")):
        at = log_in(AppTest.from_file(APP, default_timeout=30).run(), name, password)
        assert notes(at, "error") == ["Wrong username or password."]
        assert "reviewer" not in at.session_state


def test_the_reviewer_is_the_login_not_the_url(team: Store) -> None:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["question"] = "q1"
    at.run()
    log_in(at, "rita", "rita-password")
    assert not at.exception
    assert at.session_state["reviewer"] == "rita"
    at.query_params["reviewer"] = "lea"  # a crafted URL
    at.run()
    assert at.session_state["reviewer"] == "rita"
    at.button(key="label_key_2").click().run()
    assert {r["reviewer"] for r in team.labels.question_labels("q1", "default")} == {"rita"}


def test_a_reviewer_is_not_given_the_lead_pages(team: Store) -> None:
    at = log_in(AppTest.from_file(APP, default_timeout=30).run(), "rita", "rita-password")
    for lead_page in ("team", "adjudicate", "export", "judge_report", "data"):
        with pytest.raises(ValueError, match="Could not find a navigation page") as caught:
            at.switch_page(f"app_pages/{lead_page}.py")
        known = str(caught.value).split("Known pages: ")[1]
        assert [Path(p).stem for p in ast.literal_eval(known.rstrip("."))] == [
            "label",
            "review",
            "remap",
            "judge_review",
            "results",
        ]
    lead = log_in(AppTest.from_file(APP, default_timeout=30).run(), "lea", "lea-password")
    lead.switch_page("app_pages/team.py").run()
    assert not lead.exception
    assert [t.value for t in lead.title] == ["Team"]


def test_log_out_ends_the_session_on_the_server(team: Store) -> None:
    at = log_in(AppTest.from_file(APP, default_timeout=30).run(), "rita", "rita-password")
    (live,) = team.query("SELECT token_hash FROM sessions WHERE ended_at IS NULL")
    at.button(key="auth_logout").click().run()
    assert [b.label for b in at.button] == ["Log in"]
    (ended,) = team.query("SELECT token_hash, end_reason FROM sessions")
    assert ended == {"token_hash": live["token_hash"], "end_reason": "logout"}


def test_a_disabled_account_is_sent_to_the_login_at_its_next_action(team: Store) -> None:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["question"] = "q1"
    log_in(at.run(), "rita", "rita-password")
    with shell_authority("root"):
        users.disable(team, "rita", actor="root")
    at.button(key="label_key_2").click().run()
    assert [b.label for b in at.button] == ["Log in"]
    assert team.labels.question_labels("q1", "default") == []


def test_single_person_mode_asks_a_name_and_opens_the_team_page(loaded: Store, monkeypatch) -> None:
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["reviewer"] = "maria"
    at.run()
    assert at.session_state["reviewer"] == "maria"
    at.switch_page("app_pages/team.py").run()
    assert not at.exception
    assert [t.value for t in at.title] == ["Team"]
    assert not sessions.resume(loaded, None)
