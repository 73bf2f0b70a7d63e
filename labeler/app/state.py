"""What every page shares: the store of this run, the reviewer, and the one error wrapper.

The store's lifecycle. Streamlit runs every script run on a new thread, and a SQLite
connection may only be used on the thread that opened it, so a store is never kept from one run
to the next. Each run has its own:

- the entrypoint opens it at the start of a script run and closes it in a ``finally``
  (``run_scope``), so every page of that run shares one connection;
- a fragment rerun does not run the entrypoint: a fragment that reads the database is declared
  with ``store_fragment``, which gives the fragment run the same scope (opened on first use,
  closed in a ``finally``); during a full run it simply joins the entrypoint's scope;
- widget callbacks run before the script (or the fragment) they belong to, on the same thread:
  the first ``get_store()`` of a run opens the store, and the scope that follows adopts it and
  closes it.

The run's store is held per thread (``threading.local``: unlike a thread id, it dies with its
thread, so a reused id never sees another run's store). ``get_store()`` returns a handle that
always means "the store of the run executing now", so a page may keep ``store = get_store()`` at
its top and use it in its callbacks: a callback runs in a later run, and the handle resolves to
that run's store, never to a closed one.
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

from labeler.app.widgets import markdown_escaped, note
from labeler.config import exports_dir, resolve_db_path
from labeler.errors import ConflictError, LabelerError
from labeler.store import Store
from labeler.versions.writing import resign_recorded

REVIEWER_KEY = "reviewer"

_run = threading.local()


def db_path() -> str:
    """The database the server was started on (``labeler serve`` sets LABELER_DB)."""
    return str(resolve_db_path(os.environ.get("LABELER_DB")))


def exports_path() -> str:
    """Where test-set versions of this database go: the same rule as the CLI's."""
    return str(exports_dir(db_path()))


def _current() -> Store:
    """The store of the run on this thread, opened on first use."""
    store = getattr(_run, "store", None)
    if store is None:
        store = Store(db_path())
        _run.store = store
        if store.versions.unsigned():  # the first open after migration 0009
            resign_recorded(store)
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
    """One script run or fragment run: the store opened in it is closed when it ends.

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
                store.close()


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
    return st.session_state.get(REVIEWER_KEY)


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
    top of the next run (``show_messages``), never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
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
    "CurrentStore",
    "Trail",
    "db_path",
    "exports_path",
    "flash",
    "get_store",
    "reviewer",
    "run_scope",
    "safely",
    "said",
    "say",
    "show_messages",
    "store_fragment",
    "uploaded",
    "user_errors",
]
