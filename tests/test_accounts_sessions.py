"""Logging in and out: one message for a wrong name or password, the lockout, server-side
sessions that end on logout, on disabling and after 12 idle hours; OpenID Connect by email."""

from datetime import UTC, datetime, timedelta

import pytest

from labeler.accounts import sessions, users
from labeler.accounts.passwords import hash_password, verify
from labeler.accounts.roles import Role, shell_authority
from labeler.errors import LabelerError, LoginFailed
from labeler.store import Store

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PASSWORD = "correct horse battery"


@pytest.fixture
def team(store: Store) -> Store:
    with shell_authority("setup"):
        users.add_user(store, "maria", "reviewer", PASSWORD, actor="setup")
        users.add_user(store, "olga", "owner", "olga-password", actor="setup", email="Olga@X.org")
    return store


def refused(store: Store, name: str, password: str, at: datetime) -> str:
    with pytest.raises(LoginFailed) as caught:
        sessions.login(store, name, password, now=at)
    return caught.value.message


def test_a_login_starts_a_session_whose_token_only_the_browser_keeps(team: Store) -> None:
    token = sessions.login(team, "maria", PASSWORD, now=T0)
    assert len(token) >= 40
    session = sessions.resume(team, token, now=T0 + timedelta(minutes=5))
    assert (session.account, session.role, session.method) == ("maria", Role.REVIEWER, "password")
    stored = team.query("SELECT token_hash FROM sessions")
    assert stored == [{"token_hash": sessions.token_hash(token)}]
    assert token not in str(stored)
    assert team.accounts.get("maria")["last_login"] == T0.isoformat(timespec="microseconds")


def test_a_wrong_name_and_a_wrong_password_get_the_same_message(team: Store) -> None:
    assert refused(team, "maria", "wrong password", T0) == sessions.WRONG
    assert refused(team, "nobody", PASSWORD, T0) == sessions.WRONG
    assert refused(team, "evil\x1b[2J", PASSWORD, T0) == sessions.WRONG
    assert sessions.WRONG == "Wrong username or password."


def test_five_failures_in_15_minutes_lock_the_account_for_15_minutes(team: Store) -> None:
    for minute in range(4):
        assert refused(team, "maria", "nope", T0 + timedelta(minutes=minute)) == sessions.WRONG
    fifth = T0 + timedelta(minutes=10)
    assert refused(team, "maria", "nope", fifth).startswith("Too many failed logins")
    # Locked: even the right password is refused, until 15 minutes after the fifth failure.
    message = refused(team, "maria", PASSWORD, fifth + timedelta(minutes=14))
    assert "locked until" in message
    assert "labeler user enable" in message
    assert sessions.login(team, "maria", PASSWORD, now=fifth + timedelta(minutes=15, seconds=1))
    events = [e["action"] for e in team.accounts.events("maria")]
    assert events[:2] == ["login", "locked"]


def test_failures_spread_over_more_than_15_minutes_do_not_lock(team: Store) -> None:
    for minute in (0, 4, 8, 12, 16):
        assert refused(team, "maria", "nope", T0 + timedelta(minutes=minute)) == sessions.WRONG
    assert sessions.login(team, "maria", PASSWORD, now=T0 + timedelta(minutes=17))


def test_locked_until_is_worked_out_from_the_failures() -> None:
    minutes = [0, 1, 2, 3, 20, 21, 22, 23, 24]
    times = [T0 + timedelta(minutes=m) for m in minutes]
    assert sessions.locked_until(times[:4]) is None
    # 20..24 is five within 15 minutes: locked until 24 + 15 = 39; (3, 20, 21, 22, 23) is not.
    assert sessions.locked_until(times) == T0 + timedelta(minutes=39)


def test_an_unknown_name_locks_like_an_account_so_the_lock_tells_nothing(team: Store) -> None:
    for minute in range(4):
        refused(team, "ghost", "nope", T0 + timedelta(minutes=minute))
    assert refused(team, "ghost", "nope", T0 + timedelta(minutes=5)).startswith("Too many")


def test_an_owner_unlocks_with_enable(team: Store) -> None:
    now = datetime.now(UTC)
    for minute in range(5):
        refused(team, "maria", "nope", now - timedelta(minutes=5 - minute))
    assert refused(team, "maria", PASSWORD, now).startswith("Too many")
    with shell_authority("olga"):
        assert users.enable(team, "maria", actor="olga")
    assert sessions.login(team, "maria", PASSWORD)


def test_logout_ends_the_session_for_good(team: Store) -> None:
    token = sessions.login(team, "maria", PASSWORD, now=T0)
    assert sessions.logout(team, token, now=T0 + timedelta(minutes=1))
    assert sessions.resume(team, token, now=T0 + timedelta(minutes=2)) is None
    assert not sessions.logout(team, token)
    row = team.accounts.session(sessions.token_hash(token))
    assert row["ended_at"] is not None


def test_a_session_ends_after_12_idle_hours_and_activity_keeps_it(team: Store) -> None:
    token = sessions.login(team, "maria", PASSWORD, now=T0)
    for hours in (6, 12, 18):  # an action every 6 hours keeps it alive for a day
        assert sessions.resume(team, token, now=T0 + timedelta(hours=hours)) is not None
    assert sessions.resume(team, token, now=T0 + timedelta(hours=30, seconds=1)) is None
    assert team.accounts.session(sessions.token_hash(token))["ended_at"] is not None


def test_disabling_an_account_ends_its_sessions(team: Store) -> None:
    token = sessions.login(team, "maria", PASSWORD)
    with shell_authority("olga"):
        users.disable(team, "maria", actor="olga")
    assert sessions.resume(team, token) is None
    assert refused(team, "maria", PASSWORD, datetime.now(UTC)).startswith(
        "This account is disabled"
    )


def test_a_new_password_ends_the_sessions(team: Store) -> None:
    token = sessions.login(team, "maria", PASSWORD)
    with shell_authority("olga"):
        users.set_password(team, "maria", "another long one", actor="olga")
    assert sessions.resume(team, token) is None
    assert refused(team, "maria", PASSWORD, datetime.now(UTC)) == sessions.WRONG
    assert sessions.login(team, "maria", "another long one")


def test_an_oidc_login_maps_the_email_to_the_account_and_its_cookie(team: Store) -> None:
    session = sessions.oidc_login(team, "olga@x.org", "signed-cookie-1", now=T0)
    assert (session.account, session.method) == ("olga", "oidc")
    # The same cookie later is the same session; after a logout it is refused for good.
    assert sessions.oidc_login(team, "olga@x.org", "signed-cookie-1", now=T0).account == "olga"
    sessions.logout(team, "signed-cookie-1")
    with pytest.raises(LoginFailed, match="This session has ended"):
        sessions.oidc_login(team, "olga@x.org", "signed-cookie-1")
    with pytest.raises(LoginFailed, match="No account on this project has the email"):
        sessions.oidc_login(team, "mallory@x.org", "signed-cookie-2")


def test_passwords_are_argon2id_hashes_and_the_policy_holds(team: Store) -> None:
    stored = team.accounts.get("maria")["password_hash"]
    assert stored.startswith("$argon2id$")
    assert verify(stored, PASSWORD)
    assert not verify(stored, PASSWORD + "x")
    assert not verify(None, PASSWORD)
    assert hash_password(PASSWORD) != stored  # salted
    with shell_authority("olga"), pytest.raises(LabelerError, match="at least 10 characters"):
        users.set_password(team, "maria", "short", actor="olga")
    with shell_authority("olga"), pytest.raises(LabelerError, match="the account's name"):
        users.add_user(team, "longname12", "reviewer", "LongName12", actor="olga")
