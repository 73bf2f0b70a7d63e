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
import functools
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any, cast

import streamlit as st

from labeler.app.widgets import markdown_escaped, note
from labeler.config import exports_dir, resolve_db_path
from labeler.errors import LabelerError
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
    """Show a LabelerError as a visible message on the page instead of a traceback.

    ``shown_path`` (server path, name to show) names an uploaded file as the user knows it,
    not as the temporary copy the server read.
    """
    try:
        yield
    except LabelerError as error:
        if shown_path is not None and error.path == shown_path[0]:
            error.path = shown_path[1]
        note(str(error), kind="error")


def safely(func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a widget callback so a user error becomes a message shown on the next run."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except LabelerError as error:
            st.session_state["_flash_error"] = str(error)
            return None

    return wrapper


def show_flash() -> None:
    """Messages left by callbacks (errors and confirmations), shown once."""
    error = st.session_state.pop("_flash_error", None)
    if error:
        note(error, kind="error")
    message = st.session_state.pop("_flash", None)
    if message:
        st.toast(markdown_escaped(message))


def flash(message: str) -> None:
    st.session_state["_flash"] = message


__all__ = [
    "REVIEWER_KEY",
    "CurrentStore",
    "db_path",
    "exports_path",
    "flash",
    "get_store",
    "reviewer",
    "run_scope",
    "safely",
    "show_flash",
    "store_fragment",
    "user_errors",
]
