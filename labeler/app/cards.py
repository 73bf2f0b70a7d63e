"""How the grading page draws a question and its candidate chunks: the progress line, the
question, each card (head, text with the question's words marked, grade, note, surrounding
text) and the search box. Rendering only: the page passes its callbacks and reads; every
write goes through ``labeler.grading``.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import streamlit as st

from labeler.app.state import user_errors
from labeler.app.widgets import caption, note, safe_text_html, show_text, tags_html
from labeler.dense.project import SEARCH_MODES
from labeler.grading import labeling
from labeler.grading.candidates import describe_sources
from labeler.models import GRADE_LABELS, Chunk, Grade, Question
from labeler.store import Span, match_spans

# "2 · answers it": the grades' names (labeler.models), with a dot after the number.
GRADE_NAMES = {int(g): name.replace(" ", " · ", 1) for g, name in GRADE_LABELS.items()}


def grade_key(question_id: str, chunk_id: str) -> str:
    """The widget of a card's grade."""
    return f"label_grade::{question_id}::{chunk_id}"


def note_key(question_id: str, chunk_id: str) -> str:
    """The widget of a card's note."""
    return f"label_note::{question_id}::{chunk_id}"


def question_spans(view: labeling.QuestionView) -> list:
    """Where the question's words are in each card's text, worked out once per question and
    set of texts (kept in the session: a key press does not change them)."""
    key = (view.question.text, tuple((c.chunk.id, c.chunk.text) for c in view.candidates))
    kept = st.session_state.get("label_spans")
    if kept is None or kept[0] != key:
        spans = match_spans([c.chunk.text for c in view.candidates], view.question.text)
        kept = (key, spans)
        st.session_state["label_spans"] = kept
    return kept[1]


def progress_line(view: labeling.QuestionView, counts: dict[str, int]) -> None:
    """Progress in view while grading, in one line above the toolbar: this question's state,
    and the questions fully graded by you and by everyone (``counts``, from
    ``labeling.progress``; the bar is yours)."""
    q = view.question
    graded, total = view.graded, len(view.candidates)
    state = "fully graded" if view.complete else f"{graded} of {total} chunks graded"
    if view.unanswerable:
        state = "marked unanswerable by you"
    elif view.skipped:
        state += ", skipped"
    if view.stale:
        state += f", {view.stale} to check again (text changed)"
    st.progress(
        counts["mine"] / max(counts["total"], 1),
        text=f"Question {q.id}: {state} · you: {counts['mine']} of {counts['total']}"
        f" questions fully graded · everyone: {counts['everyone']} · grades today:"
        f" {counts['today']}",
    )


def question_text(question: Question) -> None:
    """The question itself: it does not change while it is graded, so it is outside the head."""
    st.html(
        safe_text_html(question.text, css_class="lbl-question")
        + (tags_html(question.tags) if question.tags else "")
    )
    if question.reference_answer:
        with st.expander("Reference answer", expanded=False):
            show_text(question.reference_answer, question.text)


def question_warnings(view: labeling.QuestionView) -> None:
    if view.unanswerable and any(c.grade == Grade.ANSWERS and not c.stale for c in view.candidates):
        st.warning("You marked this question unanswerable but graded a chunk 2 (answers it).")
    if view.others_unanswerable:
        note("Also marked unanswerable by: " + ", ".join(view.others_unanswerable))


def surrounding_text(
    candidate: labeling.CandidateView, question: str, neighbours: Callable[[Chunk], list[Chunk]]
) -> None:
    chunk = candidate.chunk
    around = neighbours(chunk)
    if len(around) == 1:
        st.caption("No other chunks of this document are known.")
        return
    for other in around:
        if other.id == chunk.id:
            show_text(other.text, question)
        else:
            show_text(other.text, css_class="lbl-context")


def stale_notice(candidate: labeling.CandidateView) -> None:
    """The chunk's text changed after this grade was given: show the text that was graded."""
    st.warning(
        f"Text changed since graded: you gave {GRADE_NAMES[int(candidate.grade)]} for the"
        " text below. It counts as ungraded until you confirm it (the same grade) or change it.",
        icon=":material/history:",
    )
    with st.container(border=True):
        st.caption("The text you graded")
        show_text(candidate.graded_text or "", css_class="lbl-context")


def card(
    view: labeling.QuestionView,
    index: int,
    *,
    spans: Sequence[Span],
    mark: str,
    reveal: bool,
    on_grade: Callable[[str, str, int], None],
    on_save_note: Callable[[str, str, int], None],
    neighbours: Callable[[Chunk], list[Chunk]],
) -> None:
    """One candidate: its head (with the queue's ``mark``, escaped HTML, when it has one),
    text, grade and toggles. ``on_grade`` and ``on_save_note`` are the page's callbacks, given
    (question, chunk, index); the grade is read from ``grade_key``'s widget."""
    candidate = view.candidates[index]
    chunk = candidate.chunk
    q = view.question
    with st.container(border=True, key=f"label_card_{index}"):
        head = f"{index + 1}. {chunk.title or chunk.doc_id or 'Untitled'}"
        # One element for the head and the text: a page of thirty cards reruns on every key.
        st.html(
            '<div class="lbl-card-head">'
            f"<b>{html.escape(head)}</b>"
            f"<span>{mark}{html.escape(chunk.id)}</span></div>"
            + safe_text_html(chunk.text, spans=spans)
        )
        if candidate.stale:
            stale_notice(candidate)
        with st.container(horizontal=True, vertical_alignment="center"):
            key = grade_key(q.id, chunk.id)
            st.session_state[key] = None if candidate.needs_grade else int(candidate.grade)
            st.segmented_control(
                "Grade",
                [2, 1, 0],
                key=key,
                format_func=GRADE_NAMES.get,
                required=not candidate.needs_grade,
                on_change=on_grade,
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
                caption("Others: " + ", ".join(f"{r} {int(g)}" for r, g in candidate.others))
            if candidate.judge:  # only after this reviewer's own grade (the core decides)
                verdict = candidate.judge
                caption(f"Judge {verdict.judge}: {int(verdict.grade)}. {verdict.reason or ''}")
            if reveal:
                caption("Found by: " + describe_sources(candidate.entry))
        # The note editor and the surrounding text are built only when asked for: a page of
        # thirty cards stays quick to rerun after every grade.
        opened = st.session_state.get(open_key) or []
        if "note" in opened:
            note_editor(q.id, candidate, index, on_save_note)
        elif candidate.note:
            st.caption("Your note:")
            st.text(candidate.note)
        if "context" in opened:
            with st.container(border=True):
                surrounding_text(candidate, q.text, neighbours)


def note_editor(
    question_id: str,
    candidate: labeling.CandidateView,
    index: int,
    on_save_note: Callable[[str, str, int], None],
) -> None:
    if candidate.grade is None:
        st.caption("Grade the chunk first, then say why.")
        return
    chunk_id = candidate.chunk.id
    st.session_state.setdefault(note_key(question_id, chunk_id), candidate.note or "")
    st.text_area("Why this grade?", key=note_key(question_id, chunk_id), height=80)
    st.button(
        "Save note",
        key=f"label_note_save::{question_id}::{chunk_id}",
        on_click=on_save_note,
        args=(question_id, chunk_id, index),
    )


def search_box(
    view: labeling.QuestionView,
    search: Callable[[str, str], list[Chunk]],
    on_add: Callable[[str, str], None],
    *,
    modes: Sequence[str] = ("words",),
) -> None:
    """Search the corpus (``search``: the chunks for a query and a mode of
    ``dense.project.SEARCH_MODES``) and add a chunk to the pool. The modes offered are
    ``modes``: by meaning and hybrid only where the chunking has vectors."""
    with st.expander("Search the corpus for a chunk the retrievers missed"):
        how = "words"
        if len(modes) > 1:
            how = st.radio(
                "Search by",
                modes,
                key="label_search_how",
                format_func=SEARCH_MODES.get,
                horizontal=True,
            )
        query = st.text_input("Search", key="label_search", placeholder="words to find")
        if not query.strip():
            return
        in_pool = {c.chunk.id for c in view.candidates}
        hits: list[Chunk] = []
        with user_errors(), st.spinner("Searching…"):
            hits = search(query, how)
        if not hits:
            st.caption("No chunk matches.")
        for hit, spans in zip(hits, match_spans([h.text for h in hits], query), strict=True):
            with st.container(border=True):
                st.text(f"{hit.title or hit.doc_id or ''}  ·  {hit.id}")
                show_text(hit.text, spans=spans)
                st.button(
                    "Already a candidate" if hit.id in in_pool else "Add to candidates",
                    key=f"label_add::{hit.id}",
                    disabled=hit.id in in_pool,
                    on_click=on_add,
                    args=(view.question.id, hit.id),
                )


__all__ = [
    "GRADE_NAMES",
    "card",
    "grade_key",
    "note_key",
    "progress_line",
    "question_spans",
    "question_text",
    "question_warnings",
    "search_box",
]
