"""What every page shares: the store of this run, the reviewer, and the one error wrapper.

The store's lifecycle. Streamlit runs every script run on a new thread. A store belongs to one
run at a time: a run takes one at its first ``get_store()`` and gives it back when it ends, and
the next run (on another thread) may take it again. Opening a SQLite connection and reading its
schema cost about a millisecond, paid twice by a key in the "decide A vs B" queue (the card's
run and the status line's) before stores were handed on (issue #23). Each run has its own:

- the entrypoint takes it at the start of a script run and gives it back in a ``finally``
  (``run_scope``), so every page of that run shares one connection;
- a fragment rerun does not run the entrypoint: a fragment that reads the database is declared
  with ``store_fragment``, which gives the fragment run the same scope (taken on first use,
  given back in a ``finally``); during a full run it simply joins the entrypoint's scope;
- widget callbacks run before the script (or the fragment) they belong to, on the same thread:
  the first ``get_store()`` of a run takes the store, and the scope that follows adopts it and
  gives it back.

A store given back inside a transaction (a run that failed half-way through a write) is closed,
not handed on; one given back otherwise is reset first (``Database.reset_session``: the page
cache an import enlarged, temporary tables), so a run never inherits another's session state.
The run's store is held per thread (``threading.local``: unlike a thread id, it dies with its
thread, so a reused id never sees another run's store). ``get_store()`` returns a handle that
always means "the store of the run executing now", so a page may keep ``store = get_store()``
at its top and use it in its callbacks: a callback runs in a later run, and the handle resolves
to that run's store, never to one given back.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import streamlit as st

from labeler.accounts import sessions
from labeler.accounts.roles import Right, Role, may
from labeler.app.widgets import markdown_escaped, note
from labeler.config import exports_dir, resolve_db_path
from labeler.errors import ConflictError, LabelerError
from labeler.store import Store
from labeler.versions.writing import resign_recorded

REVIEWER_KEY = "reviewer"
ROLE_KEY = "auth_role"
_TOKEN = "_auth_token"  # this browser tab's session token (server memory; the cookie's copy)

_run = threading.local()


def db_path() -> str:
    """The database the server was started on (``labeler serve`` sets LABELER_DB)."""
    return str(resolve_db_path(os.environ.get("LABELER_DB")))


def exports_path() -> str:
    """Where test-set versions of this database go: the same rule as the CLI's."""
    return str(exports_dir(db_path()))


_IDLE: dict[str, list[Store]] = {}  # stores no run holds, per database
_IDLE_LOCK = threading.Lock()
_IDLE_KEEP = 4  # per database: as many as runs that overlap (sessions, fragments, threads)


def _take(path: str) -> Store:
    with _IDLE_LOCK:
        idle = _IDLE.get(path)
        if idle:
            return idle.pop()
    store = Store(path, handed=True)
    if store.versions.unsigned():  # the first open after migration 0009
        resign_recorded(store)
    return store


def _give_back(store: Store) -> None:
    """Keep the store for the next run, unless it is inside a transaction or enough are kept.
    Only one database's are kept: a server has one; a test session moves from one to the next,
    and the last one's are closed rather than left open."""
    closing: list[Store] = []
    if store.conn.in_transaction:
        closing.append(store)
    else:
        store.reset_session()
        path = str(store.path)
        with _IDLE_LOCK:
            for other in [p for p in _IDLE if p != path]:
                closing += _IDLE.pop(other)
            idle = _IDLE.setdefault(path, [])
            (idle if len(idle) < _IDLE_KEEP else closing).append(store)
    for each in closing:
        each.close()


def _current() -> Store:
    """The store of the run on this thread, taken on first use."""
    store = getattr(_run, "store", None)
    if store is None:
        store = _take(db_path())
        _run.store = store
    return store


class CurrentStore:
    """A handle on the store of the script run (or fragment run) executing now.

    Every attribute is looked up on that run's ``Store``; see the module docstring for why a
    page is handed this rather than the store itself.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return getattr(_current(), name)

    def __repr__(self) -> str:
        store = getattr(_run, "store", None)
        return f"<CurrentStore {store.path if store is not None else '(not open)'}>"


_HANDLE = CurrentStore()


def get_store() -> Store:
    """The store of this run (a handle that stays right across runs; see CurrentStore)."""
    return cast("Store", _HANDLE)


@contextlib.contextmanager
def run_scope() -> Iterator[None]:
    """One script run or fragment run: the store taken in it is given back when it ends.

    Scopes nest (a fragment running inside the full script joins the entrypoint's scope); only
    the outermost one closes the store.
    """
    depth = getattr(_run, "depth", 0)
    _run.depth = depth + 1
    try:
        yield
    finally:
        _run.depth = depth
        if depth == 0:
            store = getattr(_run, "store", None)
            _run.store = None
            if store is not None:
                _give_back(store)


def store_fragment(
    func: Callable[..., Any] | None = None, **fragment_options: Any
) -> Callable[..., Any]:
    """``st.fragment`` for a fragment that uses the store: its reruns get their own scope.

    Use it as ``@store_fragment`` or ``@store_fragment(key="label_grading")``.
    """

    def decorate(body: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(body)
        def scoped(*args: Any, **kwargs: Any) -> Any:
            with run_scope():
                return body(*args, **kwargs)

        return st.fragment(scoped, **fragment_options)

    return decorate if func is None else decorate(func)


def reviewer() -> str | None:
    """Who is grading: the logged-in account on a team server, the name typed in single-person
    mode (see ``labeler.app.auth``)."""
    return st.session_state.get(REVIEWER_KEY)


def role() -> Role:
    """The reviewer's role; in single-person mode, the one person is the owner."""
    return Role(st.session_state.get(ROLE_KEY, Role.OWNER))


def allowed(right: Right) -> bool:
    """Whether the reviewer may do ``right`` (to hide what they may not; the core refuses it
    anyway)."""
    return may(role(), right)


def session_token() -> str | None:
    return st.session_state.get(_TOKEN)


def sign_in(token: str, session: sessions.Session) -> None:
    """This tab belongs to ``session`` from now on."""
    st.session_state[_TOKEN] = token
    st.session_state[REVIEWER_KEY] = session.account
    st.session_state[ROLE_KEY] = session.role


def sign_out() -> None:
    """Forget who this tab belonged to (the session itself is ended by the caller)."""
    for key in (_TOKEN, REVIEWER_KEY, ROLE_KEY):
        st.session_state.pop(key, None)


def session_live() -> bool:
    """Asked before every action (``safely``): on a team server, this tab's session must still
    be live (not logged out, not expired, its account not disabled), and its role is read
    again. In single-person mode, true while the database still has no account."""
    store = get_store()
    if not store.accounts.any():
        return _TOKEN not in st.session_state
    token = st.session_state.get(_TOKEN)
    session = sessions.resume(store, token) if token else None
    if session is None or session.account != st.session_state.get(REVIEWER_KEY):
        sign_out()
        return False
    st.session_state[ROLE_KEY] = session.role
    return True


@contextlib.contextmanager
def user_errors(*, shown_path: tuple[str, str] | None = None) -> Iterator[None]:
    """Show a LabelerError raised inside as a visible message, here and now, instead of a
    traceback (for work done while the page is drawn; callbacks use ``safely``).

    ``shown_path`` (server path, name to show) names an uploaded file as the user knows it,
    not as the temporary copy the server read.
    """
    try:
        yield
    except LabelerError as error:
        if shown_path is not None and error.path == shown_path[0]:
            error.path = shown_path[1]
        note(said(error), kind="error")


@contextlib.contextmanager
def uploaded(upload: Any) -> Iterator[Path]:
    """An uploaded file (``st.file_uploader``'s) as a path with the name the user gave it, so
    error messages name it (and a run takes its name from it), inside ``user_errors`` naming
    it so, never the server's temporary copy; the copy is removed afterwards."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / Path(upload.name).name
        path.write_bytes(upload.getvalue())
        with user_errors(shown_path=(str(path), upload.name)):
            yield path


def said(error: LabelerError) -> str:
    """How a user error reads on a page: as the CLI prints it (file, line, field), except a
    refusal because someone else changed the thing meanwhile, which is said plainly."""
    if isinstance(error, ConflictError):
        return error.message[:1].upper() + error.message[1:]
    return str(error)


def safely(func: Callable[..., Any]) -> Callable[..., Any]:
    """The one error wrapper of widget callbacks: a user error becomes a message shown at the
    top of the next run (``show_messages``), never a traceback. It first checks that this tab's
    session is still live (``session_live``): a logged-out, expired or disabled session does
    nothing more, and the whole app reruns to the login."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not session_live():
            say("Your session has ended: log in again.", kind="warning")
            st.rerun()
        try:
            return func(*args, **kwargs)
        except LabelerError as error:
            say(said(error), kind="error")
            return None

    return wrapper


@dataclasses.dataclass(frozen=True, slots=True)
class Trail:
    """Where a keyboard page's reviewer is and has been: the open item's id in the URL
    (``param``, so a reload or a link keeps it) and the ids opened before it in the session
    (``<page>_trail``, the last 50), so Back returns the way the reviewer came."""

    page: str
    param: str = "question"
    keep: int = 50

    @property
    def current(self) -> str | None:
        return st.query_params.get(self.param)

    def go(self, target: str | None, *, remember: bool = True) -> bool:
        """Open ``target`` (remembering the current one); False when there is nowhere to go."""
        current = self.current
        if target is None or target == current:
            return False
        if remember and current:
            trail = st.session_state.setdefault(f"{self.page}_trail", [])
            trail.append(current)
            del trail[: -self.keep]
        st.query_params[self.param] = target
        return True

    def back(self) -> bool:
        """Return to the item opened before this one; False when the trail is empty."""
        trail = st.session_state.get(f"{self.page}_trail") or []
        return bool(trail) and self.go(trail.pop(), remember=False)

    @property
    def can_go_back(self) -> bool:
        return bool(st.session_state.get(f"{self.page}_trail"))


_MESSAGES = "_state_messages"
_TOASTS = "_state_toasts"


def say(text: str, *, kind: str = "ok") -> None:
    """A message for the next run to show in the page (``kind``: ok, info, warning, error):
    what a callback did, or why it could not."""
    st.session_state.setdefault(_MESSAGES, []).append((kind, text))


def flash(text: str) -> None:
    """A passing confirmation (a toast) for the next run: "Note saved"."""
    st.session_state.setdefault(_TOASTS, []).append(text)


def show_messages() -> None:
    """Messages left by callbacks (``say``, ``flash``, ``safely``), shown once. The entrypoint
    calls it; a fragment that reruns on its own calls it too, where its messages belong."""
    for kind, text in st.session_state.pop(_MESSAGES, []):
        note(text, kind=kind)
    for text in st.session_state.pop(_TOASTS, []):
        st.toast(markdown_escaped(text))


__all__ = [
    "REVIEWER_KEY",
    "ROLE_KEY",
    "CurrentStore",
    "Trail",
    "allowed",
    "db_path",
    "exports_path",
    "flash",
    "get_store",
    "reviewer",
    "role",
    "run_scope",
    "safely",
    "said",
    "say",
    "session_live",
    "session_token",
    "show_messages",
    "sign_in",
    "sign_out",
    "store_fragment",
    "uploaded",
    "user_errors",
]
