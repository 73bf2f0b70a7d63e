"""Adjudicate: the chunks reviewers graded differently, question by question, each reviewer's
grade and note side by side; a lead picks the final grade, which every export then uses.

Keys: 2/1/0 settle the highlighted chunk and move to the next unsettled one, J/K move between
the chunks, N/P between questions. Filters: a tag, a pair of reviewers.
"""

from __future__ import annotations

import html

import streamlit as st

from labeler.app import widgets
from labeler.app.state import flash, get_store, reviewer, safely
from labeler.app.widgets import (
    Key,
    chunk_keys,
    keys_legend,
    question_keys,
    ring_card,
    safe_text_html,
    show_text,
    tags_html,
)
from labeler.grading import disputes
from labeler.models import GRADE_LABELS, Grade

store = get_store()
me = reviewer()
chunking = store.corpus.current_chunking()
ALL = "all"
FINAL = {2: "2 · answers it", 1: "1 · helps partly", 0: "0 · not relevant"}


def _pair() -> tuple[str, str] | None:
    chosen = st.session_state.get("adjudicate_pair", ALL)
    if not chosen or chosen == ALL:
        return None
    a, _, b = chosen.partition(" · ")
    return a, b


def load() -> disputes.Disputes:
    return disputes.disputes(
        store, tag=st.session_state.get("adjudicate_tag"), pair=_pair(), chunking=chunking
    )


def current(found: disputes.Disputes) -> disputes.DisputedQuestion | None:
    ids = [q.question_id for q in found.questions]
    wanted = st.query_params.get("question")
    if wanted not in ids:
        wanted = found.next_open() or (ids[0] if ids else None)
        if wanted is None:
            return None
        st.query_params["question"] = wanted
    if st.session_state.get("adjudicate_qid") != wanted:
        st.session_state["adjudicate_qid"] = wanted
        question = found.questions[ids.index(wanted)]
        open_at = next((i for i, c in enumerate(question.chunks) if c.settled is None), 0)
        st.session_state["adjudicate_cursor"] = open_at
    return found.questions[ids.index(wanted)]


# callbacks ------------------------------------------------------------------------------------


def _go(question_id: str | None) -> None:
    if question_id is not None:
        st.query_params["question"] = question_id


def go_next() -> None:
    found = load()
    after = st.query_params.get("question")
    target = found.next_open(after)
    if target is None or target == after:
        ids = [q.question_id for q in found.questions]
        if after in ids and len(ids) > 1:
            target = ids[(ids.index(after) + 1) % len(ids)]
    _go(target)


def go_previous() -> None:
    ids = [q.question_id for q in load().questions]
    after = st.query_params.get("question")
    if after in ids and ids:
        _go(ids[ids.index(after) - 1])


def move(step: int) -> None:
    count = len(st.session_state.get("adjudicate_chunk_ids", []))
    if count:
        cursor = st.session_state.get("adjudicate_cursor", 0)
        st.session_state["adjudicate_cursor"] = (cursor + step) % count


@safely
def settle_current(grade: int) -> None:
    question_id = st.session_state.get("adjudicate_qid")
    chunk_ids = st.session_state.get("adjudicate_chunk_ids", [])
    if not question_id or not chunk_ids:
        return
    cursor = min(st.session_state.get("adjudicate_cursor", 0), len(chunk_ids) - 1)
    disputes.adjudicate(store, question_id, chunk_ids[cursor], grade, me, chunking=chunking)
    settled = set(st.session_state.get("adjudicate_settled", [])) | {chunk_ids[cursor]}
    order = list(range(cursor + 1, len(chunk_ids))) + list(range(cursor + 1))
    st.session_state["adjudicate_cursor"] = next(
        (i for i in order if chunk_ids[i] not in settled), cursor
    )
    flash(f"Final grade {grade} recorded.")


@safely
def settle_clicked(question_id: str, chunk_id: str, index: int) -> None:
    value = st.session_state.get(f"adjudicate_grade::{question_id}::{chunk_id}")
    disputes.adjudicate(store, question_id, chunk_id, value, me, chunking=chunking)
    st.session_state["adjudicate_cursor"] = index
    flash("Final grade withdrawn." if value is None else f"Final grade {value} recorded.")


# page -----------------------------------------------------------------------------------------


def sidebar(found: disputes.Disputes) -> None:
    with st.sidebar:
        total = max(found.chunks, 1)
        st.progress(
            found.settled / total,
            text=f"Settled: {found.settled} of {found.chunks} disputed chunks",
        )
        tags = [t for t, _ in store.questions.all_tags()]
        st.selectbox(
            "Only questions tagged",
            [None, *tags],
            key="adjudicate_tag",
            format_func=lambda t: "all questions" if t is None else t,
        )
        people = found.reviewers
        pairs = [f"{a} · {b}" for i, a in enumerate(people) for b in people[i + 1 :]]
        if st.session_state.get("adjudicate_pair") not in (ALL, *pairs):
            st.session_state["adjudicate_pair"] = ALL
        st.selectbox("Between reviewers", [ALL, *pairs], key="adjudicate_pair")
        keys_legend(
            "`2` `1` `0` final grade of the highlighted chunk",
            "`J`/`K` next / previous chunk",
            "`N`/`P` next / previous question",
        )


def toolbar(question: disputes.DisputedQuestion, cursor: int) -> None:
    """The keys, as buttons. They look alike until the highlighted chunk is settled; then its
    final grade is the filled one (state, not decoration)."""
    settled = question.chunks[cursor].settled if question.chunks else None
    finals = [
        Key(
            str(value),
            FINAL[value],
            settle_current,
            (value,),
            "Final grade of the highlighted chunk; then the next unsettled one",
            kind="primary" if value == settled else "secondary",
        )
        for value in (2, 1, 0)
    ]
    questions = question_keys(
        go_previous, go_next, next_help="The next question with a chunk still to settle"
    )
    widgets.toolbar("adjudicate", [*finals, *chunk_keys(move), *questions])


def card(
    question: disputes.DisputedQuestion, index: int, chunk: disputes.DisputedChunk, cursor: int
) -> None:
    with st.container(border=True, key=f"adjudicate_card_{index}"):
        head = f"{index + 1}. {chunk.title or 'Untitled'}"
        state = (
            f"settled: {chunk.settled} by {chunk.settled_by}"
            if chunk.settled is not None
            else "to settle"
        )
        st.html(
            '<div class="lbl-card-head">'
            f"<b>{'▶ ' if index == cursor else ''}{html.escape(head)}</b>"
            f"<span>{html.escape(chunk.chunk_id)} · {html.escape(state)}</span></div>"
        )
        show_text(chunk.text or "(this chunk is no longer in the current chunking)", markdown=True)
        columns = st.columns(len(chunk.votes))
        for column, vote in zip(columns, chunk.votes, strict=True):
            with column, st.container(border=True):
                st.html(safe_text_html(f"{vote.reviewer}: {vote.label}", css_class="lbl-card-head"))
                if vote.note:
                    st.text(vote.note)
                else:
                    st.caption("no note")
        key = f"adjudicate_grade::{question.question_id}::{chunk.chunk_id}"
        st.session_state[key] = chunk.settled
        st.segmented_control(
            "Final grade",
            [2, 1, 0],
            key=key,
            format_func=lambda g: GRADE_LABELS[Grade(g)],
            on_change=settle_clicked,
            args=(question.question_id, chunk.chunk_id, index),
        )


def render() -> None:
    found = load()
    sidebar(found)
    question = current(found)
    if question is None:
        st.title("Nothing to adjudicate")
        st.write(
            "No chunk has different grades from different reviewers"
            + (
                " under these filters."
                if _pair() or st.session_state.get("adjudicate_tag")
                else "."
            )
            + " Disagreements appear here as soon as two reviewers grade a chunk differently."
        )
        return
    ids = [q.question_id for q in found.questions]
    position = ids.index(question.question_id) + 1
    st.html(
        safe_text_html(
            f"Question {question.question_id} · {position} of {len(ids)} with disputes ·"
            f" {question.settled} of {len(question.chunks)} chunks settled",
            css_class="lbl-caption",
        )
    )
    st.html(safe_text_html(question.text, css_class="lbl-question"))
    if question.tags:
        st.html(tags_html(question.tags))
    if found.settled == found.chunks:
        st.success("Every disputed chunk is settled: the next export uses these grades.")
    elif question.done:
        st.info("Every disputed chunk of this question is settled: N for the next question.")
    chunk_ids = [c.chunk_id for c in question.chunks]
    st.session_state["adjudicate_chunk_ids"] = chunk_ids
    st.session_state["adjudicate_settled"] = [
        c.chunk_id for c in question.chunks if c.settled is not None
    ]
    cursor = min(st.session_state.get("adjudicate_cursor", 0), max(len(chunk_ids) - 1, 0))
    toolbar(question, cursor)
    ring_card(f"adjudicate_card_{cursor}")
    for index, chunk in enumerate(question.chunks):
        card(question, index, chunk, cursor)


render()
