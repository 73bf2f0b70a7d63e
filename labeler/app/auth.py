"""Who is using the app: the gate the entrypoint passes before anything of the project is drawn.

Two modes, chosen by the database (``store.accounts.any()``):

- **Single-person mode** (no account): one person on their own machine. The app answers only a
  browser on this machine (``labeler serve`` listens on loopback only; a connection from
  elsewhere is refused here too), asks a name once and keeps it in the URL, as before, and the
  person is the owner: every page is theirs, the Team page included.
- **Team server** (an account exists): every page asks for a login first, and nothing of the
  project (questions, chunks, counts, page names) is sent before it. The reviewer is the
  logged-in account; a ``reviewer`` URL parameter is ignored and dropped.

**Sessions.** A login makes a server-side session (``labeler.accounts.sessions``) whose random
token is kept in this tab's server memory and in a cookie, ``labeler_session``, so a reload
within 12 hours of activity needs no new login. Streamlit offers no way to set a cookie from the
server, so the cookie is written by a one-line script in the page right after the login
(``SameSite=Strict``, ``Secure`` over HTTPS; it is not ``HttpOnly``, which only an HTTP
response can set). The token never goes into a URL. "Log out" ends the session on the server,
so the cookie is worthless afterwards even if kept, and clears it. Every action asks again
(``state.session_live``): an ended, expired or disabled session is sent back to the login.

**OpenID Connect.** With ``[auth]`` in ``.streamlit/secrets.toml``, the login page also offers
``st.login``; the provider's email must be the email an owner gave an account (``labeler user
add NAME --email EMAIL``). The session's token is then Streamlit's identity cookie itself
(HttpOnly, signed), so logging out ends it here too.
"""

from __future__ import annotations

import ipaddress
import json

import streamlit as st

from labeler.accounts import sessions
from labeler.accounts.roles import Role
from labeler.app.state import (
    REVIEWER_KEY,
    ROLE_KEY,
    get_store,
    session_token,
    sign_in,
    sign_out,
)
from labeler.app.widgets import note
from labeler.errors import LabelerError, LoginFailed
from labeler.names import NAME_MAX, check_name

COOKIE = "labeler_session"
COOKIE_DAYS = 30  # the browser keeps it; the server decides (12 hours idle, logout)
OIDC_COOKIE = "_streamlit_user"  # Streamlit's signed identity cookie after st.login
_COOKIE_SCRIPT = "auth_cookie_script"


def oidc_configured() -> bool:
    """Whether ``.streamlit/secrets.toml`` has an ``[auth]`` section for ``st.login``."""
    try:
        return "auth" in st.secrets
    except (FileNotFoundError, KeyError, LabelerError):
        return False
    except Exception:  # Streamlit raises its own error when there is no secrets file at all
        return False


def _cookie_script(token: str | None) -> str:
    """The script that writes (or, for None, clears) the session cookie."""
    value = json.dumps(token or "")
    age = COOKIE_DAYS * 86400 if token else 0
    return (
        "<script>(() => {"
        f"const parts = ['{COOKIE}=' + encodeURIComponent({value}), 'Path=/',"
        f" 'Max-Age={age}', 'SameSite=Strict'];"
        " if (location.protocol === 'https:') parts.push('Secure');"
        " document.cookie = parts.join('; ');"
        "})();</script>"
    )


def write_cookie() -> None:
    """Draw the cookie script left by a login or a logout, once."""
    pending = st.session_state.pop(_COOKIE_SCRIPT, None)
    if pending is not None:
        st.html(_cookie_script(pending or None), unsafe_allow_javascript=True)


def _oidc_token() -> str | None:
    """Streamlit's identity cookie (with its chunks, when it was split), or None."""
    cookies = st.context.cookies
    first = cookies.get(OIDC_COOKIE)
    if not isinstance(first, str) or not first:
        return None
    parts = [first]
    number = 1
    while cookies.get(f"{OIDC_COOKIE}_{number}"):
        parts.append(cookies[f"{OIDC_COOKIE}_{number}"])
        number += 1
    return "".join(parts)


def _resume() -> sessions.Session | None:
    """This tab's live session: the one it logged in with, else the cookie's, else an OpenID
    Connect login's."""
    store = get_store()
    for token in (session_token(), st.context.cookies.get(COOKIE)):
        # (AppTest's context has no cookies: a stand-in object, never a string.)
        session = sessions.resume(store, token) if isinstance(token, str) else None
        if session is not None:
            sign_in(token, session)
            return session
    if oidc_configured() and st.user.is_logged_in:
        token = _oidc_token()
        email = st.user.get("email")
        if token and isinstance(email, str):
            try:
                session = sessions.oidc_login(store, email, token)
            except LoginFailed as error:
                st.session_state["auth_oidc_error"] = error.message
                return None
            sign_in(token, session)
            return session
    sign_out()
    return None


def login_form() -> bool:
    """The login page: the only thing a visitor sees before logging in. True once this run
    logged the visitor in (the caller clears the form and draws the page in the same run)."""
    st.title("labeler")
    st.write("Log in to grade.")
    with st.form("login_form", border=True, width=420):
        st.text_input("Username", key="login_name", max_chars=NAME_MAX, autocomplete="username")
        st.text_input(
            "Password", key="login_password", type="password", autocomplete="current-password"
        )
        submitted = st.form_submit_button("Log in", type="primary")
    if submitted:
        name = st.session_state.get("login_name", "")
        password = st.session_state.pop("login_password", "")
        try:
            token = sessions.login(get_store(), name, password)
        except LoginFailed as error:
            note(error.message, kind="error")
        else:
            session = sessions.resume(get_store(), token)
            if session is not None:
                sign_in(token, session)
                st.session_state[_COOKIE_SCRIPT] = token
                return True
    if oidc_configured():
        problem = st.session_state.pop("auth_oidc_error", None)
        if problem:
            note(problem, kind="error")
            st.button("Use another account", key="login_oidc_out", on_click=st.logout)
        else:
            st.button(
                "Log in with your organisation's account", key="login_oidc", on_click=st.login
            )
    return False


def logout() -> None:
    """End this tab's session on the server, forget it, and clear the cookie."""
    oidc = st.session_state.get(ROLE_KEY) is not None and oidc_configured() and st.user.is_logged_in
    sessions.logout(get_store(), session_token())
    sign_out()
    st.session_state[_COOKIE_SCRIPT] = ""
    if oidc:
        st.logout()


def _from_this_machine() -> bool:
    address = st.context.ip_address
    if not isinstance(address, str):  # None: Streamlit's word for a browser on localhost
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def ask_name() -> None:
    """Single-person mode: once per browser session, the name grades are recorded under.
    Kept in the URL, so a reload remembers it."""
    from_url = st.query_params.get("reviewer")
    if from_url and REVIEWER_KEY not in st.session_state:
        try:
            st.session_state[REVIEWER_KEY] = check_name(from_url)
        except LabelerError:
            st.query_params.pop("reviewer", None)
    if st.session_state.get(REVIEWER_KEY):
        st.query_params["reviewer"] = st.session_state[REVIEWER_KEY]
        return
    st.title("labeler")
    st.write("Every grade you give is recorded under your name. Who is reviewing?")
    with st.form("reviewer_form", border=False):
        name = st.text_input("Your name", key="reviewer_input", max_chars=NAME_MAX)
        submitted = st.form_submit_button("Start grading", type="primary")
    if submitted:
        try:
            st.session_state[REVIEWER_KEY] = check_name(name.strip())
        except LabelerError as error:
            note(error.message[:1].upper() + error.message[1:] + ".", kind="error")
        else:
            st.query_params["reviewer"] = st.session_state[REVIEWER_KEY]
            st.rerun()
    st.stop()


def gate() -> bool:
    """Let the visitor in, or draw what they need first and stop the run. Returns True on a
    team server (so the sidebar offers "Log out")."""
    if not get_store().accounts.any():
        if not _from_this_machine():
            st.title("labeler")
            note(
                "This project has no accounts, so it is served to this machine only. An owner"
                " adds one with `labeler user add NAME --role owner`, then everyone logs in.",
                kind="error",
            )
            st.stop()
        st.session_state[ROLE_KEY] = Role.OWNER
        ask_name()
        return False
    st.query_params.pop("reviewer", None)  # the URL never chooses who grades
    if _resume() is None:
        write_cookie()
        form = st.empty()
        with form.container():
            if not login_form():
                st.stop()
        form.empty()  # logged in by this run: the page follows in the same run
    return True


__all__ = ["COOKIE", "gate", "logout", "oidc_configured", "write_cookie"]
