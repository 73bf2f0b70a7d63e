"""The app's entrypoint: lets the visitor in (``labeler.app.auth``), then routes to the pages
their role may open.

Run it with ``labeler serve`` (or ``labeler demo``); the database comes from LABELER_DB. The
whole script run, the page included, is one ``run_scope``: the run takes its store here and
gives it back in its ``finally`` (see ``labeler.app.state``). Nothing of the project is drawn
before ``auth.gate`` has let the visitor in: on a team server, only the login form.
"""

from __future__ import annotations

import html

import streamlit as st

from labeler.app import auth, warm
from labeler.app.pages import PAGES, PAGES_DIR
from labeler.app.state import (
    REVIEWER_KEY,
    allowed,
    db_path,
    get_store,
    role,
    run_scope,
    show_messages,
)
from labeler.app.widgets import inject_style


def sidebar_identity(team: bool) -> None:
    with st.sidebar:
        name = html.escape(st.session_state[REVIEWER_KEY])
        what = f" ({html.escape(str(role()))})" if team else ""
        st.html(f'<div style="font-size:0.9rem">Reviewing as <b>{name}</b>{what}</div>')
        if team:
            st.button("Log out", key="auth_logout", type="tertiary", on_click=auth.logout)
        elif st.button("Switch reviewer", key="switch_reviewer", type="tertiary"):
            del st.session_state[REVIEWER_KEY]
            st.query_params.pop("reviewer", None)
            st.rerun()


# An emoji favicon is drawn by the browser itself; a Material icon would be fetched from Google.
PAGE_ICON = "\N{LABEL}"


def main() -> None:
    st.set_page_config(page_title="labeler", page_icon=PAGE_ICON, layout="wide")
    inject_style()
    with run_scope():
        get_store().corpus.current_chunking()  # opens (and if need be migrates) the database first
        team = auth.gate()
        auth.write_cookie()
        sections: dict[str, list] = {}
        for page in PAGES:
            if (PAGES_DIR / page.file).is_file() and allowed(page.right):
                sections.setdefault(page.section, []).append(
                    st.Page(
                        str(PAGES_DIR / page.file),
                        title=page.title,
                        icon=page.icon,
                        url_path=page.file.removesuffix(".py"),
                    )
                )
        page = st.navigation(sections)
        sidebar_identity(team)
        show_messages()
        page.run()
    warm.start(db_path())  # once per server: the Results page's imports and runs, read ahead


main()
