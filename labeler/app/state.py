"""What every page shares: the store for this rerun, the reviewer, and the one error wrapper.

Streamlit runs each rerun on a new thread, so the store is opened per rerun (SQLite makes that
cheap) and closed when the script ends; it is never cached across threads.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

import streamlit as st

from labeler.config import resolve_db_path
from labeler.errors import LabelerError
from labeler.store import Store

REVIEWER_KEY = "reviewer"


def db_path() -> str:
    """The database the server was started on (``labeler serve`` sets LABELER_DB)."""
    return str(resolve_db_path(os.environ.get("LABELER_DB")))


def get_store() -> Store:
    """This rerun's store: opened once per rerun and thread, closed with the session's next run."""
    key = "_store"
    holder = st.session_state.get(key)
    import threading

    ident = threading.get_ident()
    if holder is not None and holder[0] == ident:
        return holder[1]
    if holder is not None:
        with contextlib.suppress(Exception):
            holder[1].close()
    store = Store(db_path())
    st.session_state[key] = (ident, store)
    return store


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
        st.error(str(error), icon=":material/error:")


def safely(func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a widget callback so a user error becomes a message shown on the next run."""

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
        st.error(error, icon=":material/error:")
    message = st.session_state.pop("_flash", None)
    if message:
        st.toast(message)


def flash(message: str) -> None:
    st.session_state["_flash"] = message
