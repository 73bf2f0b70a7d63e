"""Grade chunks: one question at a time, its candidates as cards, a grade per keystroke.

Keys (native button shortcuts, inactive while typing in a text box): 0/1/2 grade the current
chunk and move to the next one that needs a grade, J/K move between chunks, N/P between
questions, U marks the question unanswerable, S skips it. No key clears a grade.

What a key press redraws. The question and its cards are a fragment (``label_grading``), so
nothing outside it (the sidebar, the page) reruns while grading; inside it, the head (progress,
toolbar, and the cursor, drawn with a style) and each card are fragments of their own. A grade
reruns the head and the card graded, not the thirty others; a cursor move reruns the head
only; moving to another question reruns the whole grading fragment. Which
question comes next and where the cursor goes are decided by ``labeler.labeling`` (queues,
``after_grade``); this page only keeps the reviewer's place.

Queues. The sidebar offers every queue of ``labeling.QUEUES``: every question by id, or
"decide A vs B" (``labeler.deciding``), which walks the questions whose grades can still change
a comparison of two runs, in label-next order, and marks the chunks that decide it; the cursor
visits those first. Its status line is a fragment of its own (``label_status``) beside the head:
a grade reruns it after the card, so working the comparison out again never delays the grade
on screen.
"""

from __future__ import annotations

import html
import json
import time

import streamlit as st

from labeler.app import decide  # also registers the queue "decide A vs B" (labeler.deciding)
from labeler.app.state import (
    flash,
    get_store,
    reviewer,
    safely,
    show_flash,
    store_fragment,
    user_errors,
)
from labeler.app.widgets import caption, note, safe_text_html, show_text, tags_html
from labeler.errors import LabelerError
from labeler.grading import labeling, queues, search_pools, worker
from labeler.grading.candidates import describe_sources
from labeler.grading.cursor import after_grade, first_to_grade, move
from labeler.grading.queue import Queue
from labeler.models import GRADE_LABELS, Grade, Question
from labeler.store import match_spans

# "2 · answers it": the grades' names (labeler.models), with a dot after the number.
GRADE_NAMES = {int(g): name.replace(" ", " · ", 1) for g, name in GRADE_LABELS.items()}
GRADING = "label_grading"
HEAD = "label_head"
STATUS = "label_status"
STATUS_YIELD_S = 0.03  # see status()

store = get_store()
me = reviewer()


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
    status = [STATUS] if shown and st.session_state.get("label_status_stale") else []
    st.rerun([HEAD, *(_card_key(i) for i in sorted(waiting) if i < count), *status])


def _redraw_question() -> None:
    """From a callback: rerun the whole grading fragment (another question, a new card)."""
    st.rerun(GRADING)


# navigation ---------------------------------------------------------------------------------


def _go(question_id: str | None, *, remember: bool = True) -> None:
    current = st.query_params.get("question")
    if question_id is None or question_id == current:
        return
    if remember and current:
        st.session_state.setdefault("label_history", []).append(current)
    st.query_params["question"] = question_id


@safely
def go_next() -> None:
    current = st.query_params.get("question")
    target = queues.next_question(store, me, current, **_queue_options())
    if target is None or target == current:
        tag = st.session_state.get("label_tag")
        flash("No other question in this queue" + (f" tagged {tag!r}." if tag else "."))
    _go(target)
    _redraw_question()


@safely
def go_previous() -> None:
    history = st.session_state.get("label_history", [])
    if history:
        _go(history.pop(), remember=False)
    else:
        current = st.query_params.get("question")
        _go(queues.previous_question(store, me, current, **_queue_options()))
    _redraw_question()


def go_to(question_id: str) -> None:
    question_id = question_id.strip()
    if store.questions.get(question_id) is None:
        st.session_state["_flash_error"] = f"No question with id {question_id!r}."
        return
    _go(question_id)


def move_cursor(step: int) -> None:
    """J/K: the head redraws the cursor (its own rerun: the button is in it), no card reruns."""
    count = len(st.session_state.get("label_chunk_ids", []))
    st.session_state["label_cursor"] = move(count, st.session_state.get("label_cursor", 0), step)
    if st.session_state.get("label_dirty"):
        _redraw()


# writes -------------------------------------------------------------------------------------


def _widget_key(question_id: str, chunk_id: str) -> str:
    return f"label_grade::{question_id}::{chunk_id}"


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
    value = st.session_state.get(_widget_key(question_id, chunk_id))
    st.session_state["label_cursor"] = index
    if value is not None:
        labeling.grade(store, question_id, chunk_id, me, value)
    _redraw(index, graded=value is not None)


@safely
def save_note(question_id: str, chunk_id: str, index: int) -> None:
    note = st.session_state.get(f"label_note::{question_id}::{chunk_id}", "")
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


def progress_line(view: labeling.QuestionView) -> None:
    """Progress in view while grading, in one line above the toolbar: this question's state,
    and the questions fully graded by you and by everyone (the bar is yours)."""
    counts = labeling.progress(store, me)
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


def queue_chosen() -> None:
    """A callback: another comparison to decide opens at the top of its queue (where the
    next-question rule starts: ``choose_question``); any other queue keeps the question."""
    if st.session_state.get("label_queue") == decide.FAMILY:
        st.query_params.pop("question", None)
        st.session_state.pop("label_history", None)


def stop_deciding() -> None:
    """The comparison is proven: back to every question (the sidebar's choice too)."""
    st.session_state["label_queue"] = queues.DEFAULT_QUEUE
    st.rerun()


def sidebar() -> None:
    with st.sidebar:
        if len(queues.QUEUES) > 1:
            st.selectbox(
                "Queue",
                list(queues.QUEUES),
                key="label_queue",
                format_func=lambda name: queues.QUEUES[name].title,
                on_change=queue_chosen,
            )
        if st.session_state.get("label_queue") == decide.FAMILY:
            decide.sidebar_options(store, queue_chosen)
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
        st.html(
            '<div class="lbl-keys"><b>Keys</b><br>'
            "<kbd>2</kbd> answers it · <kbd>1</kbd> helps partly · <kbd>0</kbd> not relevant<br>"
            "<kbd>J</kbd>/<kbd>K</kbd> next / previous chunk<br>"
            "<kbd>N</kbd>/<kbd>P</kbd> next / previous question<br>"
            "<kbd>U</kbd> unanswerable · <kbd>S</kbd> skip</div>"
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
    """The keys, as buttons: each shows its key, and the key works while focus is not in a box.

    The grade buttons look alike until the current chunk has a grade; then that one is filled.
    """
    current = view.candidates[cursor] if view.candidates else None
    shown = None if current is None or current.needs_grade else int(current.grade)
    with st.container(horizontal=True, vertical_alignment="center", key="label_toolbar"):
        for value in (2, 1, 0):
            st.button(
                GRADE_NAMES[value],
                key=f"label_key_{value}",
                shortcut=str(value),
                on_click=grade_current,
                args=(value,),
                disabled=not view.candidates,
                type="primary" if value == shown else "secondary",
                help="Grade the highlighted chunk and move to the next one to grade",
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


def surrounding_text(candidate: labeling.CandidateView, question: str) -> None:
    chunk = candidate.chunk
    around = store.corpus.neighbours(chunk, before=1, after=1)
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


def card(index: int) -> None:
    """One candidate: its head, text, grade and toggles. A fragment of its own (see the module
    docstring), so it reads the question's view as the head last loaded it."""
    st.session_state.setdefault("label_dirty", set()).discard(index)
    view = st.session_state.get("label_view")
    if view is None or index >= len(view.candidates):
        return
    candidate = view.candidates[index]
    spans = st.session_state["label_spans"][1][index]
    chunk = candidate.chunk
    q = view.question
    with st.container(border=True, key=f"label_card_{index}"):
        head = f"{index + 1}. {chunk.title or chunk.doc_id or 'Untitled'}"
        # The queue's mark, until the chunk is graded (it then decides nothing more).
        marked = candidate.needs_grade and chunk.id in st.session_state.get("label_marked", ())
        mark = decide.mark_html(st.session_state.get("label_queue_title", "")) if marked else ""
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
            key = _widget_key(q.id, chunk.id)
            st.session_state[key] = None if candidate.needs_grade else int(candidate.grade)
            st.segmented_control(
                "Grade",
                [2, 1, 0],
                key=key,
                format_func=GRADE_NAMES.get,
                required=not candidate.needs_grade,
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
                caption("Others: " + ", ".join(f"{r} {int(g)}" for r, g in candidate.others))
            if candidate.judge:  # only after this reviewer's own grade (the core decides)
                verdict = candidate.judge
                caption(f"Judge {verdict.judge}: {int(verdict.grade)}. {verdict.reason or ''}")
            if st.session_state.get("label_reveal"):
                caption("Found by: " + describe_sources(candidate.entry))
        # The note editor and the surrounding text are built only when asked for: a page of
        # thirty cards stays quick to rerun after every grade.
        opened = st.session_state.get(open_key) or []
        if "note" in opened:
            note_editor(q.id, candidate, index)
        elif candidate.note:
            st.caption("Your note:")
            st.text(candidate.note)
        if "context" in opened:
            with st.container(border=True):
                surrounding_text(candidate, q.text)


def note_editor(question_id: str, candidate: labeling.CandidateView, index: int) -> None:
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
        args=(question_id, chunk_id, index),
    )


def search_box(view: labeling.QuestionView) -> None:
    with st.expander("Search the corpus for a chunk the retrievers missed"):
        query = st.text_input("Search", key="label_search", placeholder="words to find")
        if not query.strip():
            return
        in_pool = {c.chunk.id for c in view.candidates}
        hits = store.search.search_chunks(view.chunking, query, limit=10)
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
                    on_click=add_from_search,
                    args=(view.question.id, hit.id),
                )


def show_cursor(key: str, question_id: str) -> None:
    """The cursor, drawn from the head alone (so moving it reruns no card): a style that rings
    the current card and puts a ▶ before its title, a marker naming it (for tests and the
    benchmark), and a script that scrolls it into view (Streamlit has no API for it). Trusted
    code only: it holds a widget key and never any chunk text."""
    nonce = st.session_state.get("label_scroll_nonce", 0) + 1
    st.session_state["label_scroll_nonce"] = nonce
    selector = json.dumps(f".st-key-{key}")
    st.html(
        f"<style>.st-key-{key} {{ border: 2px solid #e8590c !important;"
        " box-shadow: 0 0 0 3px #ffe8cc; }"
        f" .st-key-{key} .lbl-card-head b::before {{ content: '\\25B6  '; }}</style>"
        f"<span class='lbl-cursor' data-card='{key}'></span>"
        f"<script data-nonce='{nonce}' data-q='{html.escape(question_id)}'>"
        f"setTimeout(() => document.querySelector({selector})"
        "?.scrollIntoView({block: 'center', behavior: 'smooth'}), 50);</script>",
        unsafe_allow_javascript=True,
    )


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


@store_fragment(key=HEAD)
def head() -> None:
    """Progress, the question and the toolbar; loads the question's view for the cards.

    On opening a question (or the same one in another queue) it asks the queue which chunks it
    marks, and starts the cursor on the first of them that needs a grade."""
    show_flash()
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
    question_spans(view)
    cursor = min(st.session_state.get("label_cursor", 0), max(len(view.candidates) - 1, 0))
    st.session_state["label_cursor"] = cursor
    progress_line(view)
    question_warnings(view)
    toolbar(view, cursor)
    show_cursor(f"label_card_{cursor}", question_id)


def card_fragment(index: int) -> None:
    store_fragment(card, key=_card_key(index))(index)


def settle_queue() -> tuple[decide.Comparison, decide.DecisionQueue] | None:
    """Which queue the reviewer works through, as ``labeling`` names it (kept for the
    callbacks); for "decide A vs B", the comparison and its queue. None for any other queue,
    and when the comparison cannot be worked out (a metric without its cutoff, say): the
    reason is kept for the band to show, and the page walks every question meanwhile."""
    chosen = st.session_state.get("label_queue") or queues.DEFAULT_QUEUE
    st.session_state.pop("label_decide_error", None)
    try:
        deciding = decide.current(store, store.corpus.current_chunking())
    except LabelerError as error:
        st.session_state["label_decide_error"] = str(error)
        deciding = None
    decide.keep_link(deciding[0] if deciding else None)
    if deciding is not None:
        name = deciding[0].queue_name
    elif isinstance(queues.QUEUES.get(chosen), Queue):
        name = chosen
    else:
        name = queues.DEFAULT_QUEUE
    st.session_state["label_queue_name"] = name
    st.session_state["label_queue_title"] = queues.get_queue(name).title
    st.session_state["label_status_shown"] = deciding is not None
    if deciding is None:
        st.session_state.pop("label_status_stale", None)
    return deciding


@store_fragment(key=STATUS)
def status() -> None:
    """Where the comparison being decided stands (see the module docstring: after a grade it
    reruns last, so the new grade is on screen while the comparison is worked out again).

    Working it out holds the GIL for about 0.1 s, and the server sends the graded card's
    elements one at a time, taking the GIL back for each: after a grade the fragment first
    sleeps a moment, so the card goes out at once rather than a few milliseconds per element.
    A key pressed meanwhile reruns the page without it; it stays due until it has drawn.
    """
    if st.session_state.get("label_status_stale"):
        time.sleep(STATUS_YIELD_S)
    with user_errors():
        deciding = decide.current(store, store.corpus.current_chunking())
        if deciding is not None:
            decide.status(*deciding, st.session_state.get("label_qid"), stop_deciding)
    st.session_state.pop("label_status_stale", None)


def decide_problem() -> None:
    """The chosen comparison cannot be worked out: why, where the status line would be."""
    problem = st.session_state.get("label_decide_error")
    if problem:
        note(problem, kind="error")


@store_fragment(key=GRADING)
def grading() -> None:
    deciding = settle_queue()
    if deciding is not None and not deciding[1].questions:
        show_flash()
        st.html(f"<h3>{html.escape(deciding[0].title)}: decided</h3>")
        status()
        return
    question_id = choose_question()
    if question_id is None and deciding is not None:
        show_flash()
        tag = st.session_state.get("label_tag")
        which = f"No question tagged {tag!r}" if tag else "None of the questions to grade"
        note(
            f"{which} can still change {deciding[0].title}"
            + (": choose another tag, or all questions." if tag else ".")
        )
        status()
        return
    if question_id is None:
        show_flash()
        decide_problem()
        st.title("Nothing to grade yet")
        st.write("Import questions and chunks first (see the Data page), or run `labeler demo`.")
        return
    st.session_state["label_qid"] = question_id
    question = store.questions.get(question_id)
    chunking = store.corpus.current_chunking()
    if not search_pools.pool_ready(store, question, chunking):
        # A jump to a question whose pool was not computed ahead: its search runs now.
        with st.spinner("Searching the corpus for this question's candidates…"):
            search_pools.ensure_search_pool(store, question, chunking)
    # The next questions' pools are computed meanwhile, on the worker's own thread.
    worker.PoolWorker.shared(store.path).follow(chunking, me, question_id, **_queue_options())
    question_text(question)
    # The head and the status line: one band that stays in view (widgets.STYLE).
    with st.container(key="label_top", gap="small"):
        head()
        if deciding is not None:
            status()
        decide_problem()
    view = st.session_state["label_view"]
    if not view.candidates:
        st.info(
            "No candidate chunks for this question yet: search the corpus below, or mark it "
            "unanswerable."
        )
    for index in range(len(view.candidates)):
        card_fragment(index)
    search_box(view)


decide.from_link(store)
sidebar()
grading()
