"""Review questions: generated questions one at a time, decided from the keyboard.

Keys (native button shortcuts, inactive while typing in a text box): A accepts, Shift+A accepts
and grades the question's source chunks 2, E edits, X rejects (then 1-7 pick the reason), S
skips, U undoes your last decision, P goes back, Esc cancels. The queue (sidebar filters)
puts duplicate clusters together, then other flagged questions, then the rest. Everything
shown from the questions' files (question, reference, contexts, names) is escaped HTML.
"""

from __future__ import annotations

import html
import time
from dataclasses import replace

import streamlit as st

from labeler import review
from labeler.accounts.roles import Right
from labeler.app import review_blocks, widgets
from labeler.app.state import (
    Trail,
    allowed,
    get_store,
    reviewer,
    safely,
    say,
    show_messages,
    store_fragment,
)
from labeler.app.widgets import Key, keys_legend, note_html
from labeler.flags import FLAG_TITLES
from labeler.review import QueueFilter

# The queue's choices of status, "all" besides the store's (labeler.store.review.STATUSES).
SHOWN = {"pending": "To review", "accepted": "Accepted", "rejected": "Rejected", "all": "All"}


store = get_store()
me = reviewer()
trail = Trail("review")
chunking = store.corpus.current_chunking()


# the queue ------------------------------------------------------------------------------------


def _where() -> QueueFilter:
    status = st.session_state.get("review_status") or "pending"
    where = QueueFilter(
        status=None if status == "all" else status,
        generator=st.session_state.get("review_generator") or None,
        synthesizer=st.session_state.get("review_synthesizer") or None,
        persona=st.session_state.get("review_persona") or None,
        tag=st.session_state.get("review_tag") or None,
        flag=st.session_state.get("review_flag") or None,
    )
    if where.flag == "duplicate" and st.session_state.get("review_but_first"):
        where = review.all_but_first(store, where)
    return where


def _go(question_id: str | None, *, remember: bool = True) -> None:
    if trail.go(question_id, remember=remember):
        st.session_state["review_mode"] = None


def _advance(current: str) -> None:
    skipped = st.session_state.get("review_skipped", [])
    _go(review.next_question(store, _where(), current, skip=skipped))


def _seen() -> dict:
    return st.session_state.get("review_seen") or {}


def _elapsed() -> float | None:
    shown = _seen().get("at")
    return None if shown is None else round(time.time() - shown, 2)


# writes ---------------------------------------------------------------------------------------


@safely
def accept(question_id: str, confirm_sources: bool) -> None:
    decided = review.accept(
        store,
        question_id,
        me,
        expected_revision=_seen().get("revision"),
        confirm_sources=confirm_sources,
        seconds=_elapsed(),
        chunking=chunking,
    )
    say(decided.sentence())
    _advance(question_id)


@safely
def reject(question_id: str, reason: str) -> None:
    decided = review.reject(
        store,
        question_id,
        me,
        reason,
        note=st.session_state.get("review_note", ""),
        expected_revision=_seen().get("revision"),
        seconds=_elapsed(),
    )
    st.session_state["review_note"] = ""
    say(decided.sentence())
    _advance(question_id)


@safely
def save_edit(question_id: str, then_accept: bool) -> None:
    fields = {
        "text": st.session_state.get("review_edit_text", ""),
        "reference": st.session_state.get("review_edit_reference", ""),
        "expected_revision": _seen().get("revision"),
        "seconds": _elapsed(),
    }
    if then_accept:
        say(review.edit_and_accept(store, question_id, me, chunking=chunking, **fields).sentence())
        _advance(question_id)
    else:
        review.edit(store, question_id, me, **fields)
        say("Edit saved; the original is kept.")
    st.session_state["review_mode"] = None


@safely
def skip(question_id: str) -> None:
    review.skip(store, question_id, me, seconds=_elapsed())
    skipped = st.session_state.setdefault("review_skipped", [])
    if question_id not in skipped:
        skipped.append(question_id)
    _advance(question_id)


@safely
def undo() -> None:
    result = review.undo(store, me, chunking=chunking)
    say(result.sentence(), kind="warning" if result.conflicts else "ok")
    st.session_state["review_skipped"] = [
        q for q in st.session_state.get("review_skipped", []) if q not in result.question_ids
    ]
    _go(result.question_ids[0])


def go_back() -> None:
    if trail.back():
        st.session_state["review_mode"] = None


def open_question(question_id: str) -> None:
    _go(question_id)


def set_mode(mode: str | None) -> None:
    st.session_state["review_mode"] = mode


@safely
def prepare_batch() -> None:
    st.session_state["review_mode"] = None  # one thing at a time: the batch asks now
    plan = review.plan_batch(
        store,
        _where(),
        st.session_state.get("review_batch_action", "Reject").lower(),
        reason=st.session_state.get("review_batch_reason"),
        note=st.session_state.get("review_batch_note", ""),
        confirm_sources=bool(st.session_state.get("review_batch_sources")),
    )
    st.session_state["review_batch"] = plan
    if plan is None:
        say("The queue is empty: there is nothing to apply the batch to.", kind="warning")


@safely
def apply_batch() -> None:
    plan = st.session_state.pop("review_batch", None)
    if plan is None:
        return
    result = plan.apply(store, me, chunking=chunking)
    verb = "accepted" if plan.decision == "accept" else "rejected"
    message = result.summary(verb) + " (U undoes the batch)."
    say(message, kind="warning" if result.conflicts else "ok")
    if trail.current in result.done:
        _advance(trail.current)


def cancel_batch() -> None:
    st.session_state.pop("review_batch", None)


# the sidebar ----------------------------------------------------------------------------------


@st.cache_data(ttl=30, show_spinner=False)
def _filter_values(db: str, version: str) -> dict:
    """The filters' values and counts: a few GROUP BYs over every generated question, kept for
    30 s (per database and flag settings), so a key press does not pay for them."""
    return store.flags.filter_values()


def sidebar() -> None:
    values = _filter_values(str(store.path), store.get_setting("review:flags_signature") or "")
    with st.sidebar:
        keys_legend(
            "`A` accept · `Shift`+`A` accept, sources relevant",
            "`X` reject, then `1` to `7` the reason",
            "`E` edit, `Ctrl`+`Enter` save it",
            "`S` skip · `P` back · `U` undo your last",
            "`Esc` cancel",
        )
        st.selectbox("Show", list(SHOWN), key="review_status", format_func=SHOWN.get)
        review_blocks.filter_choice("Flag", "review_flag", values["flag"], FLAG_TITLES)
        if st.session_state.get("review_flag") == "duplicate":
            st.toggle(
                "All but the first of each cluster",
                key="review_but_first",
                help="Leaves out one question per duplicate cluster: its human question if it"
                " has one (then every generated one repeats it), else an accepted one, else the"
                " first by id. Then a batch reject keeps one of each.",
            )
        review_blocks.filter_choice("Generator", "review_generator", values["generator"])
        review_blocks.filter_choice("Synthesizer", "review_synthesizer", values["synthesizer"])
        review_blocks.filter_choice("Persona", "review_persona", values["persona"])
        review_blocks.filter_choice("Tag", "review_tag", values["tag"])


# the question ---------------------------------------------------------------------------------


def choose_question(where: QueueFilter) -> str | None:
    current = st.query_params.get("question")
    if current:
        state = store.reviews.states([current]).get(current)
        if state is not None and state["origin"] == "generated":
            return current
        st.html(
            note_html(
                f"There is no generated question {current!r}; showing the queue.", kind="warning"
            )
        )
    first = review.next_question(store, where, skip=st.session_state.get("review_skipped", []))
    if first is not None:
        st.query_params["question"] = first
    return first


def toolbar(view: review.ReviewView) -> None:
    q = view.question
    sources = bool(review.source_chunks(store, q.id, chunking))
    same = view.same_as  # a near-copy: Reject (of a kept question) or no default key
    told = f" (it repeats {same.id}, {same.score:.0f}/100)" if same else ""
    keys = [
        Key("A", "Accept", accept, (q.id, False), "Accept: it joins the grading queue" + told),
        Key(
            "Shift+A",
            "Accept, sources relevant",
            accept,
            (q.id, True),
            "Accept, and grade each source chunk 2 (answers it) under your name",
            disabled=not sources,
        ),
        Key("X", "Reject…", set_mode, ("reject",), "Then pick the reason: keys 1 to 7"),
        Key(
            "E",
            "Edit",
            set_mode,
            ("edit",),
            "Change the question or its reference answer; the original is kept",
        ),
        Key("S", "Skip", skip, (q.id,), "Leave it for later", kind="tertiary"),
        Key(
            "P",
            "Back",
            go_back,
            (),
            "The question you saw before",
            ":material/chevron_left:",
            kind="tertiary",
            disabled=not trail.can_go_back,
        ),
        Key(
            "U",
            "Undo",
            undo,
            (),
            "Undo your last decision or edit",
            ":material/undo:",
            kind="tertiary",
        ),
    ]
    expected = {"accept": 0, "reject": 2}.get(view.expected_key)
    if expected is not None:
        keys[expected] = replace(keys[expected], kind="primary")
    widgets.toolbar("review", keys)


def scroll_to_top(question_id: str) -> None:
    """Back to the top when the question changes (trusted script: it holds no question text)."""
    if st.session_state.get("review_scrolled") == question_id:
        return
    st.session_state["review_scrolled"] = question_id
    st.html(
        f"<script data-q='{html.escape(question_id)}'>setTimeout(() => document.querySelector("
        "'[data-testid=\"stMain\"]')?.scrollTo({top: 0}), 30);</script>",
        unsafe_allow_javascript=True,
    )


def progress_bar() -> None:
    counts = store.reviews.status_counts()
    total = max(sum(counts.values()), 1)
    decided = counts.get("accepted", 0) + counts.get("rejected", 0)
    st.progress(
        decided / total,
        text=f"{decided} of {total} generated questions reviewed · {counts.get('pending', 0)}"
        f" waiting · {counts.get('accepted', 0)} accepted · {counts.get('rejected', 0)} rejected",
    )


@store_fragment
def review_area() -> None:
    """The question, its decisions and its sources: a key reruns only this part of the page."""
    # An edit changes the flags of the question (and its cluster); the page load checked the
    # rest.
    review.ensure_flags(store, check_queue=False)
    where = _where()
    count = store.flags.queue_count(where)
    show_messages()
    batch = st.session_state.get("review_batch")
    if batch:
        review_blocks.batch_confirmation(batch.describe(), apply_batch, cancel_batch)
    question_id = choose_question(where)
    if question_id is None:
        st.subheader("Nothing to review here")
        st.html(
            note_html(
                "No generated question matches these filters. Import some with labeler import"
                " ragas, deepeval or questions (origin: generated), or change the filters.",
                kind="info",
            )
        )
        return
    view = review.open_for_review(store, question_id, chunking=chunking)
    progress_bar()
    seen = _seen()
    if seen.get("id") != question_id:
        st.session_state["review_edit_text"] = view.question.text
        st.session_state["review_edit_reference"] = view.question.reference_answer or ""
        st.session_state["review_seen"] = {"id": question_id, "at": time.time()}
    st.session_state["review_seen"]["revision"] = view.revision
    review_blocks.question_block(view, review.position(store, where, question_id), count)
    toolbar(view)
    mode = st.session_state.get("review_mode")
    if mode == "reject":
        review_blocks.reject_panel(view, reject, set_mode)
    elif mode == "edit":
        review_blocks.edit_panel(view, save_edit, set_mode)
    left, right = st.columns([3, 2], gap="large")
    with left:
        review_blocks.contexts_block(view)
    with right:
        review_blocks.cluster_block(view, open_question)
        review_blocks.details_block(view)
    scroll_to_top(question_id)


# stats ----------------------------------------------------------------------------------------


# page -----------------------------------------------------------------------------------------


def render() -> None:
    review.ensure_flags(store)
    sidebar()
    view = st.segmented_control(
        "View",
        ["Review", "Stats"],
        key="review_view",
        default="Review",
        required=True,
        label_visibility="collapsed",
    )
    if view == "Stats":
        review_blocks.stats_view(review.review_stats(store))
        return
    if allowed(Right.BATCH_REVIEW):  # a lead's (the core refuses anyone else's batch)
        review_blocks.batch_form(prepare_batch)
    review_area()


render()
