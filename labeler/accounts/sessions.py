"""Logging in and out, and server-side sessions.

- **Login** (``login``): the same message for an unknown name and a wrong password (and the
  same time: an unknown name is checked against a dummy hash). Five failures for one name
  within 15 minutes lock it for 15 minutes from the fifth; a locked name is refused without
  its password being checked, with a message saying until when and that an owner can unlock
  it (``labeler user enable NAME``). Names without an account lock the same way, so the
  lockout does not tell which names exist. A successful login clears the name's failures.
- **Sessions**: a random token (32 bytes) lives in the browser (the app's cookie); the database
  keeps only its SHA-256 (``sessions``), so a copy of the database logs nobody in. A session
  ends on logout (and is never valid again), when its account is disabled, or after 12 hours
  without activity. ``resume`` is asked at every action: an ended session, a disabled account
  or an expired session all end there.
- **OpenID Connect** (``oidc_login``): the provider's email maps to the account an owner gave
  that email; the session's token is the identity cookie Streamlit sets after ``st.login``, so
  logging out ends it here even though the browser could replay the cookie.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from labeler.accounts import passwords
from labeler.accounts.roles import Role
from labeler.errors import LoginFailed
from labeler.names import is_name
from labeler.store import Store

IDLE_LIMIT = timedelta(hours=12)
LOCK_AFTER = 5  # failures ...
LOCK_WINDOW = timedelta(minutes=15)  # ... within this long ...
LOCK_FOR = timedelta(minutes=15)  # ... lock the name for this long
TOUCH_EVERY = timedelta(seconds=60)  # last_seen is written at most this often per session
WRONG = "Wrong username or password."


@dataclass(frozen=True, slots=True)
class Session:
    """A live session: who, with which role, how they logged in."""

    token_hash: str
    account: str
    role: Role
    method: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _now(now: datetime | None) -> datetime:
    return now or datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def locked_until(failures: list[datetime]) -> datetime | None:
    """When a name stops being locked, given its failed logins (oldest first): 15 minutes
    after the failure that made five within 15 minutes (the latest such); None if none did."""
    until = None
    for i in range(LOCK_AFTER - 1, len(failures)):
        if failures[i] - failures[i - LOCK_AFTER + 1] <= LOCK_WINDOW:
            until = failures[i] + LOCK_FOR
    return until


def lock_of(store: Store, name: str, *, now: datetime | None = None) -> datetime | None:
    """Until when ``name`` is locked, or None."""
    moment = _now(now)
    since = moment - LOCK_WINDOW - LOCK_FOR
    times = [datetime.fromisoformat(t) for t in store.accounts.failures_since(name, _stamp(since))]
    until = locked_until(times)
    return until if until is not None and until > moment else None


def _locked_message(until: datetime) -> str:
    local = until.astimezone().strftime("%H:%M")
    return (
        f"Too many failed logins: this account is locked until {local}. An owner can unlock"
        " it sooner (labeler user enable NAME)."
    )


def login(store: Store, name: str, password: str, *, now: datetime | None = None) -> str:
    """Check a name and password; on success start a session and return its token (for the
    browser's cookie). Raises LoginFailed otherwise."""
    moment = _now(now)
    name = name.strip() if isinstance(name, str) else ""
    if not is_name(name):
        passwords.verify(None, password)
        raise LoginFailed(WRONG)
    until = lock_of(store, name, now=moment)
    if until is not None:
        raise LoginFailed(_locked_message(until))
    account = store.accounts.get(name)
    stored = account["password_hash"] if account else None
    if not passwords.verify(stored, password):
        store.accounts.add_failure(name, _stamp(moment))
        until = lock_of(store, name, now=moment)
        if until is not None:
            if account is not None:
                store.accounts.log(name, "locked", actor=name, at=_stamp(moment))
            raise LoginFailed(_locked_message(until))
        raise LoginFailed(WRONG)
    if account["disabled"]:
        raise LoginFailed("This account is disabled: ask an owner (labeler user enable NAME).")
    store.accounts.clear_failures(name)
    if passwords.needs_rehash(stored):
        store.accounts.update(
            name,
            "password rehashed",
            actor=name,
            at=_stamp(moment),
            password_hash=passwords.hash_password(password),
        )
    return start_session(store, name, "password", now=moment)


def start_session(
    store: Store,
    account: str,
    method: str,
    *,
    token: str | None = None,
    now: datetime | None = None,
) -> str:
    """A new session for ``account``; ``token`` is made here unless given (OIDC: the
    provider's identity cookie). Returns the token."""
    token = token or secrets.token_urlsafe(32)
    store.accounts.start_session(token_hash(token), account, method, _stamp(_now(now)))
    return token


def oidc_login(store: Store, email: str, token: str, *, now: datetime | None = None) -> Session:
    """The session of an OpenID Connect login: ``email`` as the provider gave it, ``token`` the
    identity cookie Streamlit set. The account an owner gave that email, enabled; the same
    cookie after a logout is refused (log in with the provider again)."""
    account = store.accounts.by_email(email.strip()) if email else None
    if account is None:
        msg = (
            f"No account on this project has the email {email!r}: an owner adds it with"
            " labeler user add NAME --email EMAIL."
        )
        raise LoginFailed(msg)
    if account["disabled"]:
        raise LoginFailed("This account is disabled: ask an owner (labeler user enable NAME).")
    found = resume(store, token, now=now)
    if found is not None:
        return found
    if store.accounts.session(token_hash(token)) is not None:
        raise LoginFailed("This session has ended: log in again.")
    start_session(store, account["name"], "oidc", token=token, now=now)
    return Session(token_hash(token), account["name"], Role(account["role"]), "oidc")


def resume(store: Store, token: str | None, *, now: datetime | None = None) -> Session | None:
    """The live session of ``token``, or None: unknown, logged out, its account disabled, or
    idle for longer than 12 hours (it is ended then). Records the activity."""
    if not token:
        return None
    moment = _now(now)
    hashed = token_hash(token)
    row = store.accounts.session(hashed)
    if row is None or row["ended_at"] is not None:
        return None
    if row["disabled"]:
        store.accounts.end_session(hashed, "disabled", _stamp(moment))
        return None
    last_seen = datetime.fromisoformat(row["last_seen"])
    if moment - last_seen > IDLE_LIMIT:
        store.accounts.end_session(hashed, "expired", _stamp(moment))
        return None
    if moment - last_seen > TOUCH_EVERY:
        store.accounts.touch_session(hashed, row["account"], _stamp(moment))
    return Session(hashed, row["account"], Role(row["role"]), row["method"])


def logout(store: Store, token: str | None, *, now: datetime | None = None) -> bool:
    """End the session of ``token`` for good; True if it was live."""
    if not token:
        return False
    return store.accounts.end_session(token_hash(token), "logout", _stamp(_now(now)))


__all__ = [
    "IDLE_LIMIT",
    "LOCK_AFTER",
    "LOCK_FOR",
    "LOCK_WINDOW",
    "WRONG",
    "Session",
    "lock_of",
    "locked_until",
    "login",
    "logout",
    "oidc_login",
    "resume",
    "start_session",
    "token_hash",
]
