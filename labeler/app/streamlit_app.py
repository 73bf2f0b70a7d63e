"""The app's entrypoint: asks who is reviewing, then routes to the pages.

Run it with ``labeler serve`` (or ``labeler demo``); the database comes from LABELER_DB. The
whole script run, the page included, is one ``run_scope``: the run's store is opened here and
closed in its ``finally`` (see ``labeler.app.state``).
"""

from __future__ import annotations

import contextlib
import html

import streamlit as st

from labeler.app import warm
from labeler.app.pages import PAGES, PAGES_DIR
from labeler.app.state import REVIEWER_KEY, get_store, run_scope, show_messages
from labeler.app.widgets import inject_style
from labeler.errors import LabelerError
from labeler.store import check_reviewer


def ask_reviewer() -> None:
    """Once per browser session: who is grading. Kept in the URL so a reload remembers it."""
    from_url = st.query_params.get("reviewer")
    if from_url and REVIEWER_KEY not in st.session_state:
        with contextlib.suppress(LabelerError):
            st.session_state[REVIEWER_KEY] = check_reviewer(from_url)
    if st.session_state.get(REVIEWER_KEY):
        st.query_params["reviewer"] = st.session_state[REVIEWER_KEY]
        return
    st.title("labeler")
    st.write("Every grade you give is recorded under your name. Who is reviewing?")
    with st.form("reviewer_form", border=False):
        name = st.text_input("Your name", key="reviewer_input", max_chars=80)
        submitted = st.form_submit_button("Start grading", type="primary")
    if submitted:
        try:
            st.session_state[REVIEWER_KEY] = check_reviewer(name)
        except LabelerError:
            st.error("Please type your name (1 to 80 characters).")
        else:
            st.query_params["reviewer"] = st.session_state[REVIEWER_KEY]
            st.rerun()
    st.stop()


def sidebar_identity() -> None:
    with st.sidebar:
        name = html.escape(st.session_state[REVIEWER_KEY])
        st.html(f'<div style="font-size:0.9rem">Reviewing as <b>{name}</b></div>')
        if st.button("Switch reviewer", key="switch_reviewer", type="tertiary"):
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
        ask_reviewer()
        sections: dict[str, list] = {}
        for file, title, icon, section in PAGES:
            if (PAGES_DIR / file).is_file():
                sections.setdefault(section, []).append(
                    st.Page(
                        str(PAGES_DIR / file),
                        title=title,
                        icon=icon,
                        url_path=file.removesuffix(".py"),
                    )
                )
        page = st.navigation(sections)
        sidebar_identity()
        show_messages()
        page.run()
    warm.start()  # once per server: the Results page's imports, while the reviewer reads


main()
