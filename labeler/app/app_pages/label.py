"""Grade chunks: one question at a time, its candidates as cards, a grade per keystroke.

Keys (native button shortcuts, inactive while typing in a text box): 0/1/2 grade the current
chunk and move to the next one that needs a grade, J/K move between chunks, N/P between
questions, U marks the question unanswerable, S skips it. No key clears a grade.

What a key press redraws. The question and its cards are a fragment (``label_grading``), so
nothing outside it (the sidebar, the page) reruns while grading; inside it, the head (progress,
toolbar, and the cursor, drawn with a style) and each card are fragments of their own. A grade
reruns the head and the card graded, not the thirty others; a cursor move reruns the head
only; moving to another question reruns the whole grading fragment. Which question comes next
and where the cursor goes are decided by ``labeler.grading`` (``queues``, ``cursor``); the cards
are drawn by ``labeler.app.cards``; this page only keeps the reviewer's place.

Queues. The sidebar offers every queue of ``grading.queues.QUEUES``: every question by id, or
"decide A vs B" (``labeler.grading.decide``; the page's side of it is ``labeler.app.decide``),
which walks the questions whose grades can still change a comparison of two runs, in label-next
order, and marks the chunks that decide it; the cursor visits those first. Its status line is a
fragment of its own (``label_status``) beside the head: a grade reruns it after the card, so
working the comparison out again never delays the grade on screen.
"""

from __future__ import annotations

import html

import streamlit as st

from labeler.app import cards, conversation, decide, widgets
from labeler.app.state import (
    Trail,
    flash,
    get_store,
    reviewer,
    safely,
    say,
    show_messages,
    store_fragment,
)
from labeler.app.widgets import (
    Key,
    chunk_keys,
    keys_legend,
    note,
    question_keys,
    ring_card,
)
from labeler.dense.project import search_corpus, search_modes
from labeler.grading import labeling, queues, worker
from labeler.grading.cursor import after_grade, first_to_grade, move

GRADING = "label_grading"
HEAD = "label_head"

store = get_store()
me = reviewer()
trail = Trail("label")


def _queue_options() -> dict:
    """The queue the reviewer works through: its name as ``labeling`` knows it (for "decide A
    vs B", the chosen comparison's), as the grading fragment last settled it."""
    return {
        "queue": st.session_state.get("label_queue_name"),
        "tag": st.session_state.get("label_tag"),
    }


def _card_key(index: int) -> str:
    return f"label_cardfrag_{index}"


def _redraw(*indices: int, graded: bool = False) -> None:
    """From a callback: rerun the head and the cards at ``indices``, nothing else; after a
    grade (``graded``), the queue's status line too, last, once the card is on screen.

    Cards still waiting to be redrawn are kept in the session until they draw themselves: a key
    pressed while an earlier redraw was pending replaces that rerun, and the cards it had
    queued are then redrawn with this one instead of being left showing an old grade.
    """
    count = len(st.session_state.get("label_chunk_ids", []))
    waiting = st.session_state.setdefault("label_dirty", set())
    waiting.update(i for i in indices if 0 <= i < count)
    shown = st.session_state.get("label_status_shown")
    if graded and shown:
        st.session_state["label_status_stale"] = True
    status = [decide.STATUS] if shown and st.session_state.get("label_status_stale") else []
    st.rerun([HEAD, *(_card_key(i) for i in sorted(waiting) if i < count), *status])


def _redraw_question() -> None:
    """From a callback: rerun the whole grading fragment (another question, a new card)."""
    st.rerun(GRADING)


# navigation ---------------------------------------------------------------------------------


@safely
def go_next() -> None:
    if not trail.go(queues.next_question(store, me, trail.current, **_queue_options())):
        tag = st.session_state.get("label_tag")
        flash("No other question in this queue" + (f" tagged {tag!r}." if tag else "."))
    _redraw_question()


@safely
def go_previous() -> None:
    if not trail.back():
        before = queues.previous_question(store, me, trail.current, **_queue_options())
        trail.go(before, remember=False)
    _redraw_question()


def go_to(question_id: str) -> None:
    question_id = question_id.strip()
    if store.questions.get(question_id) is None:
        say(f"No question with id {question_id!r}.", kind="error")
        return
    trail.go(question_id)


def move_cursor(step: int) -> None:
    """J/K: the head redraws the cursor (its own rerun: the button is in it), no card reruns."""
    count = len(st.session_state.get("label_chunk_ids", []))
    st.session_state["label_cursor"] = move(count, st.session_state.get("label_cursor", 0), step)
    if st.session_state.get("label_dirty"):
        _redraw()


# writes -------------------------------------------------------------------------------------


@safely
def grade_current(value: int) -> None:
    """A grade key: grade the current chunk, then move to the next one that needs a grade."""
    question_id = st.session_state.get("label_qid")
    chunk_ids = st.session_state.get("label_chunk_ids", [])
    if not question_id or not chunk_ids:
        return
    cursor = min(st.session_state.get("label_cursor", 0), len(chunk_ids) - 1)
    labeling.grade(store, question_id, chunk_ids[cursor], me, value)
    needs = st.session_state.get("label_needs", [True] * len(chunk_ids))
    marked = st.session_state.get("label_marked", frozenset())
    prefer = {i for i, chunk_id in enumerate(chunk_ids) if chunk_id in marked}
    st.session_state["label_cursor"] = after_grade(needs, cursor, prefer)
    _redraw(cursor, graded=True)


@safely
def grade_clicked(question_id: str, chunk_id: str, index: int) -> None:
    value = st.session_state.get(cards.grade_key(question_id, chunk_id))
    st.session_state["label_cursor"] = index
    if value is not None:
        labeling.grade(store, question_id, chunk_id, me, value)
    _redraw(index, graded=value is not None)


@safely
def save_note(question_id: str, chunk_id: str, index: int) -> None:
    note = st.session_state.get(cards.note_key(question_id, chunk_id), "")
    labeling.set_note(store, question_id, chunk_id, me, note)
    flash("Note saved.")
    _redraw(index)


@safely
def toggle_unanswerable(question_id: str, value: bool) -> None:
    labeling.mark(store, question_id, me, unanswerable=value)
    flash("Marked unanswerable." if value else "Unanswerable mark removed.")
    _redraw_question()


@safely
def skip(question_id: str) -> None:
    labeling.mark(store, question_id, me, skipped=True)
    go_next()


@safely
def add_from_search(question_id: str, chunk_id: str) -> None:
    if labeling.add_candidate(store, question_id, chunk_id, me):
        flash(f"Added {chunk_id} to the candidates.")
    _redraw_question()


# sidebar ------------------------------------------------------------------------------------


def sidebar() -> None:
    with st.sidebar:
        if len(queues.QUEUES) > 1:
            st.selectbox(
                "Queue",
                list(queues.QUEUES),
                key="label_queue",
                format_func=lambda name: queues.QUEUES[name].title,
                on_change=decide.queue_chosen,
            )
        if st.session_state.get("label_queue") == decide.FAMILY:
            decide.sidebar_options(store, decide.queue_chosen)
        tags = [t for t, _ in store.questions.all_tags()]
        st.selectbox(
            "Only questions tagged",
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
        keys_legend(
            "`2` answers it · `1` helps partly · `0` not relevant",
            "`J`/`K` next / previous chunk",
            "`N`/`P` next / previous question",
            "`U` unanswerable · `S` skip",
        )


# the grading fragment -----------------------------------------------------------------------


def choose_question() -> str | None:
    current = st.query_params.get("question")
    if current and store.questions.get(current) is not None:
        return current
    if current:
        note(
            f"There is no question with id {current!r}; showing the next one to grade.",
            kind="warning",
        )
    first = queues.next_question(store, me, None, **_queue_options())
    if first is not None:
        st.query_params["question"] = first
    return first


def toolbar(view: labeling.QuestionView, cursor: int) -> None:
    """The keys, as buttons (``widgets.toolbar``). The grade buttons look alike until the
    current chunk has a grade; then that one is filled."""
    current = view.candidates[cursor] if view.candidates else None
    shown = None if current is None or current.needs_grade else int(current.grade)
    grades = [
        Key(
            str(value),
            cards.GRADE_NAMES[value],
            grade_current,
            (value,),
            "Grade the highlighted chunk and move to the next one to grade",
            kind="primary" if value == shown else "secondary",
            disabled=not view.candidates,
        )
        for value in (2, 1, 0)
    ]
    marks = [
        Key(
            "u",
            "Undo unanswerable" if view.unanswerable else "Unanswerable",
            toggle_unanswerable,
            (view.question.id, not view.unanswerable),
            "No chunk in the whole corpus answers this question",
            kind="tertiary",
        ),
        Key("s", "Skip", skip, (view.question.id,), "Come back to it later", kind="tertiary"),
    ]
    questions = question_keys(
        go_previous,
        go_next,
        previous_help="The question you saw before",
        next_help="The next question that still needs grading",
    )
    widgets.toolbar("label", [*grades, *chunk_keys(move_cursor), *questions, *marks])


@store_fragment(key=HEAD)
def head() -> None:
    """Progress, the question and the toolbar; loads the question's view for the cards.

    On opening a question (or the same one in another queue) it asks the queue which chunks it
    marks, and starts the cursor on the first of them that needs a grade."""
    show_messages()
    question_id = st.session_state["label_qid"]
    view = labeling.open_question(store, question_id, me)
    opened = (question_id, st.session_state.get("label_queue_name"))
    if st.session_state.get("label_view_of") != opened:
        marked = queues.marked_chunks(store, question_id, queue=opened[1])
        st.session_state["label_marked"] = marked
        st.session_state["label_cursor"] = first_to_grade(view, marked)
    st.session_state["label_view_of"] = opened
    st.session_state["label_view"] = view
    st.session_state["label_chunk_ids"] = [c.chunk.id for c in view.candidates]
    st.session_state["label_needs"] = [c.needs_grade for c in view.candidates]
    cards.question_spans(view, store.search.highlight_terms)
    cursor = min(st.session_state.get("label_cursor", 0), max(len(view.candidates) - 1, 0))
    st.session_state["label_cursor"] = cursor
    cards.progress_line(view, labeling.progress(store, me))
    cards.question_warnings(view)
    toolbar(view, cursor)
    nonce = st.session_state.get("label_scroll_nonce", 0) + 1
    st.session_state["label_scroll_nonce"] = nonce
    ring_card(f"label_card_{cursor}", scroll_nonce=nonce)


def card(index: int) -> None:
    """One candidate's card (``cards.card``), a fragment of its own (see the module docstring):
    it reads the question's view as the head last loaded it."""
    st.session_state.setdefault("label_dirty", set()).discard(index)
    view = st.session_state.get("label_view")
    if view is None or index >= len(view.candidates):
        return
    chunk = view.candidates[index].chunk
    # The queue's mark, until the chunk is graded (it then decides nothing more).
    marked = view.candidates[index].needs_grade and chunk.id in st.session_state.get(
        "label_marked", ()
    )
    queue_mark = decide.mark_html(st.session_state.get("label_queue_title", "")) if marked else ""
    cards.card(
        view,
        index,
        spans=cards.question_spans(view)[index],
        mark=queue_mark + conversation.card_mark(view.question.id, chunk.id),
        reveal=bool(st.session_state.get("label_reveal")),
        on_grade=grade_clicked,
        on_save_note=save_note,
        neighbours=lambda chunk: store.corpus.neighbours(chunk, before=1, after=1),
    )


def card_fragment(index: int) -> None:
    store_fragment(card, key=_card_key(index))(index)


@store_fragment(key=GRADING)
def grading() -> None:
    deciding = decide.settle(store)
    if deciding is not None and not deciding[1].questions:
        show_messages()
        st.html(f"<h3>{html.escape(deciding[0].title)}: decided</h3>")
        decide.status_line(store)
        return
    question_id = choose_question()
    if question_id is None and deciding is not None:
        show_messages()
        tag = st.session_state.get("label_tag")
        which = f"No question tagged {tag!r}" if tag else "None of the questions to grade"
        note(
            f"{which} can still change {deciding[0].title}"
            + (": choose another tag, or all questions." if tag else ".")
        )
        decide.status_line(store)
        return
    if question_id is None:
        show_messages()
        decide.problem()
        st.title("Nothing to grade yet")
        st.write("Import questions and chunks first (see the Data page), or run `labeler demo`.")
        return
    st.session_state["label_qid"] = question_id
    question = store.questions.get(question_id)
    worker.open_ahead(
        store,
        question,
        store.corpus.current_chunking(),
        me,
        waiting=lambda: st.spinner("Searching the corpus for this question's candidates…"),
        **_queue_options(),
    )
    conversation.question_text(question, store.corpus.current_chunking())
    # The head and the status line: one band that stays in view (widgets.STYLE).
    with st.container(key="label_top", gap="small"):
        head()
        if deciding is not None:
            decide.status_line(store)
        decide.problem()
    view = st.session_state["label_view"]
    if not view.candidates:
        st.info(
            "No candidate chunks for this question yet: search the corpus below, or mark it "
            "unanswerable."
        )
    for index in range(len(view.candidates)):
        card_fragment(index)
    cards.search_box(
        view,
        lambda query, how: search_corpus(store, view.chunking, query, how=how),
        add_from_search,
        modes=search_modes(store, view.chunking),
    )


decide.from_link(store)
sidebar()
grading()
