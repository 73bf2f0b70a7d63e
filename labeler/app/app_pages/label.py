"""Grade chunks: one question at a time, its candidates as cards, a grade per keystroke.

Keys (native button shortcuts, inactive while typing in a text box): 0/1/2 grade the current
chunk and move to the next ungraded one, J/K move between chunks, N/P between questions,
U marks the question unanswerable, S skips it. No key clears a grade.
"""

from __future__ import annotations

import html
import json

import streamlit as st

from labeler import labeling, pooling
from labeler.app.state import flash, get_store, reviewer, safely
from labeler.app.widgets import safe_text_html, show_text, tags_html
from labeler.candidates import describe_sources
from labeler.models import Grade
from labeler.store import fts_terms

GRADE_NAMES = {0: "0 · not relevant", 1: "1 · helps partly", 2: "2 · answers it"}
GRADE_SHORT = {2: "2 answers", 1: "1 partly", 0: "0 no"}

store = get_store()
me = reviewer()
chunking = store.current_chunking()


# navigation ---------------------------------------------------------------------------------


def _queue(tag: str | None) -> list[dict]:
    rows = store.queue(chunking, me, tag=tag)
    return sorted(rows, key=lambda r: r["id"])


def _next_question(current: str | None, tag: str | None) -> str | None:
    """The first question after ``current`` (by id, wrapping) that still needs work:
    untouched or started first, then skipped ones; else simply the next one."""
    rows = _queue(tag)
    if not rows:
        return None
    ids = [r["id"] for r in rows]
    start = ids.index(current) + 1 if current in ids else 0
    ordered = rows[start:] + rows[:start]
    for wanted in (("todo", "started"), ("skipped",)):
        for row in ordered:
            if row["state"] in wanted and row["id"] != current:
                return row["id"]
    return (
        ordered[0]["id"] if ordered[0]["id"] != current or len(ordered) == 1 else ordered[1]["id"]
    )


def _go(question_id: str | None, *, remember: bool = True) -> None:
    current = st.query_params.get("question")
    if question_id is None or question_id == current:
        return
    if remember and current:
        st.session_state.setdefault("label_history", []).append(current)
    st.query_params["question"] = question_id
    st.session_state["label_cursor"] = 0


def go_next() -> None:
    _go(_next_question(st.query_params.get("question"), st.session_state.get("label_tag")))


def go_previous() -> None:
    history = st.session_state.get("label_history", [])
    if history:
        _go(history.pop(), remember=False)
        return
    rows = _queue(st.session_state.get("label_tag"))
    ids = [r["id"] for r in rows]
    current = st.query_params.get("question")
    if current in ids and ids:
        _go(ids[ids.index(current) - 1])


def go_to(question_id: str) -> None:
    question_id = question_id.strip()
    if store.get_question(question_id) is None:
        st.session_state["_flash_error"] = f"No question with id {question_id!r}."
        return
    _go(question_id)


def move_cursor(step: int) -> None:
    count = len(st.session_state.get("label_chunk_ids", []))
    if count:
        st.session_state["label_cursor"] = (st.session_state.get("label_cursor", 0) + step) % count


# writes -------------------------------------------------------------------------------------


def _widget_key(question_id: str, chunk_id: str) -> str:
    return f"label_grade::{question_id}::{chunk_id}"


@safely
def grade_current(value: int) -> None:
    """A grade key: grade the current chunk, then move to the next one still ungraded."""
    question_id = st.session_state.get("label_qid")
    chunk_ids = st.session_state.get("label_chunk_ids", [])
    if not question_id or not chunk_ids:
        return
    cursor = min(st.session_state.get("label_cursor", 0), len(chunk_ids) - 1)
    chunk_id = chunk_ids[cursor]
    labeling.grade(store, question_id, chunk_id, me, value, chunking=chunking)
    st.session_state[_widget_key(question_id, chunk_id)] = value
    graded = {c for c in chunk_ids if st.session_state.get(_widget_key(question_id, c)) is not None}
    order = list(range(cursor + 1, len(chunk_ids))) + list(range(cursor + 1))
    st.session_state["label_cursor"] = next(
        (i for i in order if chunk_ids[i] not in graded), min(cursor + 1, len(chunk_ids) - 1)
    )


@safely
def grade_clicked(question_id: str, chunk_id: str, index: int) -> None:
    value = st.session_state.get(_widget_key(question_id, chunk_id))
    if value is not None:
        labeling.grade(store, question_id, chunk_id, me, value, chunking=chunking)
    st.session_state["label_cursor"] = index


@safely
def save_note(question_id: str, chunk_id: str) -> None:
    note = st.session_state.get(f"label_note::{question_id}::{chunk_id}", "")
    labeling.set_note(store, question_id, chunk_id, me, note, chunking=chunking)
    flash("Note saved.")


@safely
def toggle_unanswerable(question_id: str, value: bool) -> None:
    labeling.mark(store, question_id, me, unanswerable=value, chunking=chunking)
    flash("Marked unanswerable." if value else "Unanswerable mark removed.")


@safely
def skip(question_id: str) -> None:
    labeling.mark(store, question_id, me, skipped=True, chunking=chunking)
    go_next()


@safely
def add_from_search(question_id: str, chunk_id: str) -> None:
    if labeling.add_candidate(store, question_id, chunk_id, me, chunking=chunking):
        flash(f"Added {chunk_id} to the candidates.")


# page ---------------------------------------------------------------------------------------


def sidebar(counts: dict[str, int]) -> None:
    with st.sidebar:
        total = max(counts["total"], 1)
        st.progress(
            counts["mine"] / total, text=f"You: {counts['mine']} of {counts['total']} fully graded"
        )
        st.progress(
            counts["everyone"] / total, text=f"Everyone: {counts['everyone']} of {counts['total']}"
        )
        st.caption(f"Grades you gave today: {counts['today']}")
        tags = [t for t, _ in store.all_tags()]
        st.selectbox(
            "Queue: only questions tagged",
            [None, *tags],
            key="label_tag",
            format_func=lambda t: "all questions" if t is None else t,
        )
        with st.form("label_goto", border=False):
            target = st.text_input("Go to question id", key="label_goto_id")
            if st.form_submit_button("Open"):
                go_to(target)
                st.rerun()
        st.toggle("Show which retriever found each chunk", key="label_reveal")
        st.html(
            '<div class="lbl-keys"><b>Keys</b><br>'
            "<kbd>2</kbd> answers it · <kbd>1</kbd> helps partly · <kbd>0</kbd> not relevant<br>"
            "<kbd>J</kbd>/<kbd>K</kbd> next / previous chunk<br>"
            "<kbd>N</kbd>/<kbd>P</kbd> next / previous question<br>"
            "<kbd>U</kbd> unanswerable · <kbd>S</kbd> skip</div>"
        )


def choose_question() -> str | None:
    current = st.query_params.get("question")
    if current and store.get_question(current) is not None:
        return current
    if current:
        st.warning(f"There is no question with id {current!r}; showing the next one to grade.")
    first = _next_question(None, st.session_state.get("label_tag"))
    if first is not None:
        st.query_params["question"] = first
    return first


def toolbar(view: labeling.QuestionView) -> None:
    """The keys, as buttons: each shows its key, and the key works while focus is not in a box."""
    with st.container(horizontal=True, vertical_alignment="center", key="label_toolbar"):
        for value in (2, 1, 0):
            st.button(
                GRADE_NAMES[value],
                key=f"label_key_{value}",
                shortcut=str(value),
                on_click=grade_current,
                args=(value,),
                disabled=not view.candidates,
                type="primary" if value == 2 else "secondary",
                help="Grade the highlighted chunk and move to the next ungraded one",
            )
        st.button(
            "",
            icon=":material/arrow_upward:",
            key="label_key_k",
            shortcut="k",
            on_click=move_cursor,
            args=(-1,),
            help="Previous chunk",
            type="tertiary",
        )
        st.button(
            "",
            icon=":material/arrow_downward:",
            key="label_key_j",
            shortcut="j",
            on_click=move_cursor,
            args=(1,),
            help="Next chunk",
            type="tertiary",
        )
        st.button(
            "Previous",
            icon=":material/chevron_left:",
            key="label_key_p",
            shortcut="p",
            on_click=go_previous,
            help="The question you saw before",
        )
        st.button(
            "Next",
            icon=":material/chevron_right:",
            icon_position="right",
            key="label_key_n",
            shortcut="n",
            on_click=go_next,
            help="The next question that still needs grading",
        )
        st.button(
            "Undo unanswerable" if view.unanswerable else "Unanswerable",
            key="label_key_u",
            shortcut="u",
            on_click=toggle_unanswerable,
            args=(view.question.id, not view.unanswerable),
            help="No chunk in the whole corpus answers this question",
            type="tertiary",
        )
        st.button(
            "Skip",
            key="label_key_s",
            shortcut="s",
            on_click=skip,
            args=(view.question.id,),
            help="Come back to it later",
            type="tertiary",
        )


def question_header(view: labeling.QuestionView, terms: list[str]) -> None:
    q = view.question
    graded, total = view.graded, len(view.candidates)
    state = "fully graded" if view.complete else f"{graded} of {total} chunks graded"
    if view.unanswerable:
        state = "marked unanswerable by you"
    elif view.skipped:
        state += " · skipped"
    st.caption(f"Question {q.id} · {state}")
    st.html(safe_text_html(q.text, css_class="lbl-question"))
    if q.tags:
        st.html(tags_html(q.tags))
    if q.reference_answer:
        with st.expander("Reference answer", expanded=False):
            show_text(q.reference_answer, terms)
    if view.unanswerable and any(c.grade == Grade.ANSWERS for c in view.candidates):
        st.warning("You marked this question unanswerable but graded a chunk 2 (answers it).")
    if view.others_unanswerable:
        st.info("Also marked unanswerable by: " + ", ".join(view.others_unanswerable))


def surrounding_text(candidate: labeling.CandidateView, terms: list[str]) -> None:
    chunk = candidate.chunk
    around = store.neighbours(chunk, before=1, after=1)
    if len(around) == 1:
        st.caption("No other chunks of this document are known.")
        return
    for other in around:
        if other.id == chunk.id:
            show_text(other.text, terms)
        else:
            show_text(other.text, css_class="lbl-context")


def card(
    view: labeling.QuestionView,
    index: int,
    candidate: labeling.CandidateView,
    terms: list[str],
    cursor: int,
) -> None:
    chunk = candidate.chunk
    q = view.question
    with st.container(border=True, key=f"label_card_{index}"):
        head = f"{index + 1}. {chunk.title or chunk.doc_id or 'Untitled'}"
        st.html(
            '<div class="lbl-card-head">'
            f"<b>{'▶ ' if index == cursor else ''}{html.escape(head)}</b>"
            f"<span>{html.escape(chunk.id)}</span></div>"
        )
        show_text(chunk.text, terms)
        with st.container(horizontal=True, vertical_alignment="center"):
            key = _widget_key(q.id, chunk.id)
            st.session_state[key] = None if candidate.grade is None else int(candidate.grade)
            st.segmented_control(
                "Grade",
                [2, 1, 0],
                key=key,
                format_func=GRADE_NAMES.get,
                required=candidate.grade is not None,
                on_change=grade_clicked,
                args=(q.id, chunk.id, index),
                label_visibility="collapsed",
            )
            open_key = f"label_open::{q.id}::{chunk.id}"
            st.pills(
                "More",
                ["note", "context"],
                key=open_key,
                selection_mode="multi",
                format_func={"note": "Note", "context": "Surrounding text"}.get,
                label_visibility="collapsed",
            )
            if candidate.others:
                st.caption("Others: " + ", ".join(f"{r} {int(g)}" for r, g in candidate.others))
            if st.session_state.get("label_reveal"):
                st.caption("Found by: " + describe_sources(candidate.entry))
        # The note editor and the surrounding text are built only when asked for: a page of
        # thirty cards stays quick to rerun after every grade.
        opened = st.session_state.get(open_key) or []
        if "note" in opened:
            note_editor(q.id, candidate)
        elif candidate.note:
            st.caption("Your note:")
            st.text(candidate.note)
        if "context" in opened:
            with st.container(border=True):
                surrounding_text(candidate, terms)


def note_editor(question_id: str, candidate: labeling.CandidateView) -> None:
    if candidate.grade is None:
        st.caption("Grade the chunk first, then say why.")
        return
    chunk_id = candidate.chunk.id
    note_key = f"label_note::{question_id}::{chunk_id}"
    st.session_state.setdefault(note_key, candidate.note or "")
    st.text_area("Why this grade?", key=note_key, height=80)
    st.button(
        "Save note",
        key=f"label_note_save::{question_id}::{chunk_id}",
        on_click=save_note,
        args=(question_id, chunk_id),
    )


def search_box(view: labeling.QuestionView, terms: list[str]) -> None:
    with st.expander("Search the corpus for a chunk the retrievers missed"):
        query = st.text_input("Search", key="label_search", placeholder="words to find")
        if not query.strip():
            return
        in_pool = {c.chunk.id for c in view.candidates}
        hits = store.search_chunks(chunking, query, limit=10)
        if not hits:
            st.caption("No chunk matches.")
        for hit in hits:
            with st.container(border=True):
                st.text(f"{hit.title or hit.doc_id or ''}  ·  {hit.id}")
                show_text(hit.text, fts_terms(query))
                st.button(
                    "Already a candidate" if hit.id in in_pool else "Add to candidates",
                    key=f"label_add::{hit.id}",
                    disabled=hit.id in in_pool,
                    on_click=add_from_search,
                    args=(view.question.id, hit.id),
                )


def keep_in_view(key: str, question_id: str) -> None:
    """Scroll the highlighted card into view after a key moved it (Streamlit has no API for
    it). Trusted code only: the script holds a widget key and never any chunk text."""
    nonce = st.session_state.get("label_scroll_nonce", 0) + 1
    st.session_state["label_scroll_nonce"] = nonce
    selector = json.dumps(f".st-key-{key}")
    st.html(
        f"<script data-nonce='{nonce}' data-q='{html.escape(question_id)}'>"
        f"setTimeout(() => document.querySelector({selector})"
        "?.scrollIntoView({block: 'center', behavior: 'smooth'}), 50);</script>",
        unsafe_allow_javascript=True,
    )


def render() -> None:
    counts = labeling.progress(store, me, chunking=chunking)
    sidebar(counts)
    question_id = choose_question()
    if question_id is None:
        st.title("Nothing to grade yet")
        st.write("Import questions and chunks first (see the Data page), or run `labeler demo`.")
        return
    question = store.get_question(question_id)
    if not pooling.pool_ready(store, question, chunking):
        # A jump to a question whose pool was not computed ahead: its search runs now.
        with st.spinner("Searching the corpus for this question's candidates…"):
            pooling.ensure_search_pool(store, question, chunking)
    view = labeling.open_question(store, question_id, me, chunking=chunking)
    # The next questions' pools are computed meanwhile, on the worker's own thread.
    pooling.PoolWorker.shared(store.path).follow(
        chunking, me, question_id, tag=st.session_state.get("label_tag")
    )
    terms = fts_terms(view.question.text)
    chunk_ids = [c.chunk.id for c in view.candidates]
    if st.session_state.get("label_qid") != question_id:
        first_open = next((i for i, c in enumerate(view.candidates) if c.grade is None), 0)
        st.session_state["label_cursor"] = first_open
    st.session_state["label_qid"] = question_id
    st.session_state["label_chunk_ids"] = chunk_ids
    cursor = min(st.session_state.get("label_cursor", 0), max(len(chunk_ids) - 1, 0))
    question_header(view, terms)
    toolbar(view)
    if not view.candidates:
        st.info(
            "No candidate chunks for this question yet: search the corpus below, or mark it "
            "unanswerable."
        )
    st.html(
        f"<style>.st-key-label_card_{cursor} {{ border: 2px solid #e8590c !important;"
        " box-shadow: 0 0 0 3px #ffe8cc; }</style>"
    )
    keep_in_view(f"label_card_{cursor}", question_id)
    for index, candidate in enumerate(view.candidates):
        card(view, index, candidate, terms, cursor)
    search_box(view, terms)


render()
