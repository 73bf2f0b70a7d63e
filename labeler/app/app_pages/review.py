"""Review questions: generated questions one at a time, decided from the keyboard.

Keys (native button shortcuts, inactive while typing in a text box): A accepts, Shift+A accepts
and grades the question's source chunks 2, E edits, X rejects (then 1-7 pick the reason), S
skips, U undoes your last decision, P goes back, Esc cancels. The queue (sidebar filters)
puts duplicate clusters together, then other flagged questions, then the rest. Everything
shown from the questions' files (question, reference, contexts, names) is escaped HTML.
"""

from __future__ import annotations

import html
import json
import time

import streamlit as st

from labeler import review
from labeler.app.pages import PAGES_DIR
from labeler.app.state import get_store, reviewer, store_fragment
from labeler.app.widgets import note_html, safe_text_html, spans_html, word_diff_html
from labeler.errors import LabelerError
from labeler.flags import FLAG_TITLES
from labeler.review import REJECT_REASONS, QueueFilter

STATUSES = ("pending", "accepted", "rejected", "all")
STATUS_NAMES = {
    "pending": "To review",
    "accepted": "Accepted",
    "rejected": "Rejected",
    "all": "All",
}
HOW = {"id": "by chunk id", "exact": "exactly", "fuzzy": "closely"}
REASON_KEYS = dict(zip(REJECT_REASONS, "1234567", strict=True))
FLAG_COLOURS = {
    "duplicate": "#7048e8",
    "answer_leak": "#d9480f",
    "copied_from_source": "#e67700",
    "unsupported_reference": "#c92a2a",
    "context_not_found": "#495057",
    "too_short": "#1c7ed6",
    "too_long": "#1c7ed6",
}
STYLE = """
<style>
.rv-flag { display: inline-block; border-radius: 4px; padding: 1px 8px; margin: 0 6px 4px 0;
           font-size: 0.8rem; font-weight: 600; color: white; }
.rv-flags { line-height: 1.9; margin: 2px 0 6px 0; }
.rv-reason { font-size: 0.86rem; color: #333; margin: -2px 0 4px 2px; }
.rv-label { font-size: 0.78rem; text-transform: uppercase; letter-spacing: .04em; color: #666;
            margin: 6px 0 2px 0; }
.rv-ref { white-space: pre-wrap; background: #f6f8fa; border-radius: 6px; padding: 8px 12px;
          font-size: 0.97rem; line-height: 1.5; }
.rv-status { font-size: 0.9rem; border-radius: 6px; padding: 6px 10px; margin-bottom: 4px; }
.rv-status-accepted { background: #e9f7ee; color: #17532f; }
.rv-status-rejected { background: #fdecea; color: #7a1b12; }
.rv-head { font-size: 0.85rem; color: #555; }
.rv-ctx-head { font-size: 0.84rem; color: #444; margin-bottom: 4px; }
.rv-missing { color: #a61e4d; font-weight: 600; }
.rv-member { font-size: 0.9rem; line-height: 1.4; white-space: pre-wrap; }
.rv-member small { color: #666; }
.rv-event { font-size: 0.84rem; color: #333; line-height: 1.45; }
.rv-text mark { background: #fff3b0; }
.rv-whole { font-size: 0.8rem; color: #2b8a3e; margin-bottom: 2px; }
.rv-block .rv-flags:first-of-type { margin-top: 8px; }
.rv-block .lbl-question { margin: 12px 0 10px 0; }
.rv-block .rv-label { margin-top: 10px; }
[data-testid="stMainBlockContainer"] { padding-top: 2.5rem; }
</style>
"""

store = get_store()
me = reviewer()
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


def _say(kind: str, text: str) -> None:
    st.session_state["review_message"] = (kind, text)


def _go(question_id: str | None, *, remember: bool = True) -> None:
    current = st.query_params.get("question")
    if question_id is None or question_id == current:
        return
    if remember and current:
        trail = st.session_state.setdefault("review_trail", [])
        trail.append(current)
        del trail[:-50]
    st.query_params["question"] = question_id
    st.session_state["review_mode"] = None


def _advance(current: str) -> None:
    skipped = st.session_state.get("review_skipped", [])
    _go(review.next_question(store, _where(), current, skip=skipped))


def _seen() -> dict:
    return st.session_state.get("review_seen") or {}


def _elapsed() -> float | None:
    shown = _seen().get("at")
    return None if shown is None else round(time.time() - shown, 2)


def _guard(func):
    """A widget callback whose user errors (a conflict, an empty edit) become a message."""

    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except LabelerError as error:  # a conflict too: said plainly, without the field name
            _say("error", error.message[:1].upper() + error.message[1:])
        return None

    return wrapper


# writes ---------------------------------------------------------------------------------------


@_guard
def accept(question_id: str, confirm_sources: bool) -> None:
    result = review.accept(
        store,
        question_id,
        me,
        expected_revision=_seen().get("revision"),
        confirm_sources=confirm_sources,
        seconds=_elapsed(),
        chunking=chunking,
    )
    graded = len(result.graded_sources)
    _say(
        "ok",
        "Accepted"
        + (f", and {graded} source chunk{'s' if graded != 1 else ''} graded 2" if graded else "")
        + ". It is in the grading queue now.",
    )
    _advance(question_id)


@_guard
def reject(question_id: str, reason: str) -> None:
    note = st.session_state.get("review_note", "")
    review.reject(
        store,
        question_id,
        me,
        reason,
        note=note,
        expected_revision=_seen().get("revision"),
        seconds=_elapsed(),
    )
    st.session_state["review_note"] = ""
    _say("ok", f"Rejected: {REJECT_REASONS[reason].lower()}.")
    _advance(question_id)


@_guard
def save_edit(question_id: str, then_accept: bool) -> None:
    review.edit(
        store,
        question_id,
        me,
        text=st.session_state.get("review_edit_text", ""),
        reference=st.session_state.get("review_edit_reference", ""),
        expected_revision=_seen().get("revision"),
        seconds=_elapsed(),
    )
    st.session_state["review_mode"] = None
    if then_accept:
        state = store.reviews.state(question_id)
        review.accept(
            store, question_id, me, expected_revision=state["revision"], chunking=chunking
        )
        _say("ok", "Edited and accepted; the original is kept.")
        _advance(question_id)
    else:
        _say("ok", "Edit saved; the original is kept.")


@_guard
def skip(question_id: str) -> None:
    review.skip(store, question_id, me, seconds=_elapsed())
    skipped = st.session_state.setdefault("review_skipped", [])
    if question_id not in skipped:
        skipped.append(question_id)
    _advance(question_id)


@_guard
def undo() -> None:
    result = review.undo(store, me, chunking=chunking)
    what = {"accept": "acceptance", "reject": "rejection", "edit": "edit"}[result.action]
    count = len(result.question_ids)
    message = f"Undid your {what}" + (f" of {count} questions" if count > 1 else "") + "."
    if result.conflicts:
        message += f" {len(result.conflicts)} left alone: someone else changed them since."
    _say("warning" if result.conflicts else "ok", message)
    st.session_state["review_skipped"] = [
        q for q in st.session_state.get("review_skipped", []) if q not in result.question_ids
    ]
    _go(result.question_ids[0])


def go_back() -> None:
    trail = st.session_state.get("review_trail", [])
    if trail:
        _go(trail.pop(), remember=False)


def open_question(question_id: str) -> None:
    _go(question_id)


def set_mode(mode: str | None) -> None:
    st.session_state["review_mode"] = mode


@_guard
def prepare_batch() -> None:
    action = st.session_state.get("review_batch_action", "Reject")
    reason = st.session_state.get("review_batch_reason")
    note = st.session_state.get("review_batch_note", "")
    if action == "Reject":
        review.check_reason(reason, note)
    st.session_state["review_mode"] = None  # one thing at a time: the batch asks now
    st.session_state["review_batch"] = {
        "action": action,
        "reason": reason,
        "note": note,
        "sources": bool(st.session_state.get("review_batch_sources")),
        "revisions": store.flags.queue_revisions(_where()),
    }
    if not st.session_state["review_batch"]["revisions"]:
        st.session_state.pop("review_batch", None)
        _say("warning", "The queue is empty: there is nothing to apply the batch to.")


@_guard
def apply_batch() -> None:
    batch = st.session_state.pop("review_batch", None)
    if not batch:
        return
    revisions = batch["revisions"]
    result = review.decide_many(
        store,
        list(revisions),
        me,
        "accept" if batch["action"] == "Accept" else "reject",
        reason=batch["reason"],
        note=batch["note"],
        confirm_sources=batch["sources"],
        revisions=revisions,
        chunking=chunking,
    )
    verb = "accepted" if batch["action"] == "Accept" else "rejected"
    _say("warning" if result.conflicts else "ok", result.summary(verb) + " (U undoes the batch).")
    current = st.query_params.get("question")
    if current in result.done:
        _advance(current)


def cancel_batch() -> None:
    st.session_state.pop("review_batch", None)


# the sidebar ----------------------------------------------------------------------------------


@st.cache_data(ttl=30, show_spinner=False)
def _filter_values(db: str, version: str) -> dict:
    """The filters' values and counts: a few GROUP BYs over every generated question, kept for
    30 s (per database and flag settings), so a key press does not pay for them."""
    return store.flags.filter_values()


def _choice(label: str, key: str, values: list[tuple[str, int]], names=None) -> None:
    """A filter: "" is any value (not None, which a selectbox offers to clear)."""
    options = ["", *[v for v, _ in values]]
    counts = dict(values)
    if st.session_state.get(key) not in options:
        st.session_state[key] = ""
    st.selectbox(
        label,
        options,
        key=key,
        format_func=lambda v: (
            "any" if v == "" else f"{(names or {}).get(v, v)} ({counts.get(v, 0)})"
        ),
    )


def sidebar() -> None:
    values = _filter_values(str(store.path), store.get_setting("review:flags_signature") or "")
    with st.sidebar:
        st.html(
            '<div class="lbl-keys"><b>Keys</b><br>'
            "<kbd>A</kbd> accept · <kbd>Shift</kbd>+<kbd>A</kbd> accept, sources relevant<br>"
            "<kbd>X</kbd> reject, then <kbd>1</kbd> to <kbd>7</kbd> the reason<br>"
            "<kbd>E</kbd> edit, <kbd>Ctrl</kbd>+<kbd>Enter</kbd> save it<br>"
            "<kbd>S</kbd> skip · <kbd>P</kbd> back · <kbd>U</kbd> undo your last<br>"
            "<kbd>Esc</kbd> cancel</div>"
        )
        st.selectbox("Show", list(STATUSES), key="review_status", format_func=STATUS_NAMES.get)
        _choice("Flag", "review_flag", values["flag"], FLAG_TITLES)
        if st.session_state.get("review_flag") == "duplicate":
            st.toggle(
                "All but the first of each cluster",
                key="review_but_first",
                help="Leaves out one question per duplicate cluster: its human question if it"
                " has one (then every generated one repeats it), else an accepted one, else the"
                " first by id. Then a batch reject keeps one of each.",
            )
        _choice("Generator", "review_generator", values["generator"])
        _choice("Synthesizer", "review_synthesizer", values["synthesizer"])
        _choice("Persona", "review_persona", values["persona"])
        _choice("Tag", "review_tag", values["tag"])


def batch_form() -> None:
    """One decision for every question of the queue (as the filters show it), confirmed on a
    second step that says how many it touches. Outside the question's fragment: a decision key
    does not redraw it."""
    with (
        st.expander("Batch: one decision for every question of this queue"),
        st.container(horizontal=True, vertical_alignment="bottom"),
    ):
        st.radio("Action", ["Reject", "Accept"], key="review_batch_action", horizontal=True)
        if st.session_state.get("review_batch_action", "Reject") == "Reject":
            st.selectbox(
                "Reason",
                list(REJECT_REASONS),
                key="review_batch_reason",
                format_func=REJECT_REASONS.get,
                width=260,
            )
            st.text_input(
                "Note",
                key="review_batch_note",
                placeholder="optional; needed for Other",
                width=260,
            )
        else:
            st.checkbox("Also grade their source chunks 2", key="review_batch_sources")
        st.button(
            "Apply to this queue…",
            key="review_batch_prepare",
            on_click=prepare_batch,
            help="You confirm on the next step, which says how many questions it touches.",
        )


# the question ---------------------------------------------------------------------------------


def messages() -> None:
    message = st.session_state.pop("review_message", None)
    if message:
        st.html(note_html(message[1], kind=message[0]))


def batch_confirmation() -> None:
    batch = st.session_state.get("review_batch")
    if not batch:
        return
    count = len(batch["revisions"])
    if batch["action"] == "Accept":
        what = f"Accept {count} question{'s' if count != 1 else ''}" + (
            ", grading their source chunks 2" if batch["sources"] else ""
        )
    else:
        reason = REJECT_REASONS[batch["reason"]]
        what = f"Reject {count} question{'s' if count != 1 else ''} as “{reason}”"
    with st.container(border=True, key="review_batch_box"):
        st.html(
            note_html(
                what + "? They are the questions of the queue as the filters show it"
                " now; any someone else decides meanwhile are left alone.",
                kind="warning",
            )
        )
        with st.container(horizontal=True):
            st.button(
                "Confirm",
                key="review_batch_confirm",
                type="primary",
                on_click=apply_batch,
                shortcut="Y",
                help="Y",
            )
            st.button("Cancel", key="review_batch_cancel", on_click=cancel_batch, shortcut="Escape")


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


def flags_html(view: review.ReviewView) -> str:
    parts = []
    for flag in view.flags:
        colour = FLAG_COLOURS.get(flag["name"], "#495057")
        title = html.escape(FLAG_TITLES.get(flag["name"], flag["name"]))
        parts.append(
            f'<div class="rv-flags"><span class="rv-flag" style="background:{colour}">{title}'
            f'</span><span class="rv-reason">{html.escape(flag["reason"])}</span></div>'
        )
    return "".join(parts)


def status_html(view: review.ReviewView) -> str:
    state = view.state
    if state["status"] == "pending" or not state.get("decided_by"):
        return ""
    when = (state.get("decided_at") or "")[:16].replace("T", " ")
    text = f"{state['status'].capitalize()} by {state['decided_by']}, {when} UTC"
    if state["status"] == "rejected" and state.get("reason"):
        text += f": {REJECT_REASONS.get(state['reason'], state['reason'])}"
        if state.get("note"):
            text += f" ({state['note']})"
    return f'<div class="rv-status rv-status-{state["status"]}">{html.escape(text)}</div>'


def question_block(view: review.ReviewView, place: int | None, count: int) -> None:
    """Header, status, flags, question and reference answer (and an edit's diff), as one
    element: fewer elements make a quicker page after every key."""
    q = view.question
    head = f"{q.id} · " + (f"{place} of {count} in this queue" if place else "not in this queue")
    source = " · ".join(
        v
        for v in (
            q.generator,
            view.generation.get("synthesizer"),
            view.generation.get("persona") and f"persona: {view.generation['persona']}",
        )
        if v
    )
    parts = [
        f'<div class="rv-head">{html.escape(head)}'
        + (f" · {html.escape(source)}" if source else "")
        + "</div>",
        status_html(view),
        flags_html(view),
        safe_text_html(q.text, css_class="lbl-question"),
        '<div class="rv-label">Reference answer</div>',
        f'<div class="rv-ref">{html.escape(q.reference_answer)}</div>'
        if q.reference_answer
        else '<div class="rv-ref"><i>none</i></div>',
    ]
    if view.edited:
        state = view.state
        parts.append(
            '<div class="rv-label">Edited by '
            + html.escape(f"{state['edited_by']} · the original is kept; the change")
            + "</div>"
        )
        parts.append(word_diff_html(review.word_diff(state["original_text"], q.text)))
        if (state.get("original_reference") or "") != (q.reference_answer or ""):
            old, new = state.get("original_reference") or "", q.reference_answer or ""
            parts.append(word_diff_html(review.word_diff(old, new)))
    st.html('<div class="rv-block">' + "".join(parts) + "</div>")


def toolbar(view: review.ReviewView) -> None:
    q = view.question
    sources = bool(review.source_chunks(store, q.id, chunking))
    with st.container(horizontal=True, vertical_alignment="center", key="review_toolbar"):
        st.button(
            "Accept",
            key="review_key_a",
            shortcut="A",
            type="primary",
            on_click=accept,
            args=(q.id, False),
            help="Accept: the question joins the grading queue",
        )
        st.button(
            "Accept, sources relevant",
            key="review_key_shift_a",
            shortcut="Shift+A",
            on_click=accept,
            args=(q.id, True),
            disabled=not sources,
            help="Accept, and grade each source chunk 2 (answers it) under your name",
        )
        st.button(
            "Reject…",
            key="review_key_x",
            shortcut="X",
            on_click=set_mode,
            args=("reject",),
            help="Then pick the reason: keys 1 to 7",
        )
        st.button(
            "Edit",
            key="review_key_e",
            shortcut="E",
            on_click=set_mode,
            args=("edit",),
            help="Change the question or its reference answer; the original is kept",
        )
        st.button(
            "Skip",
            key="review_key_s",
            shortcut="S",
            on_click=skip,
            args=(q.id,),
            type="tertiary",
            help="Leave it for later",
        )
        st.button(
            "Back",
            key="review_key_p",
            shortcut="P",
            on_click=go_back,
            type="tertiary",
            icon=":material/chevron_left:",
            help="The question you saw before",
            disabled=not st.session_state.get("review_trail"),
        )
        st.button(
            "Undo",
            key="review_key_u",
            shortcut="U",
            on_click=undo,
            type="tertiary",
            icon=":material/undo:",
            help="Undo your last decision or edit",
        )


def reject_panel(view: review.ReviewView) -> None:
    with st.container(border=True, key="review_reject_panel"):
        st.text_input(
            "Note",
            key="review_note",
            placeholder="optional; needed for Other (type it, press Tab, then 7)",
        )
        with st.container(horizontal=True):
            for reason, label in REJECT_REASONS.items():
                key = REASON_KEYS[reason]
                st.button(
                    label,
                    key=f"review_reason_{key}",
                    shortcut=key,
                    on_click=reject,
                    args=(view.question.id, reason),
                )
            st.button(
                "Cancel",
                key="review_reject_cancel",
                shortcut="Escape",
                type="tertiary",
                on_click=set_mode,
                args=(None,),
            )


def edit_panel(view: review.ReviewView) -> None:
    q = view.question
    st.session_state.setdefault("review_edit_text", q.text)
    st.session_state.setdefault("review_edit_reference", q.reference_answer or "")
    with st.form("review_edit_form", border=True):
        st.text_area("Question", key="review_edit_text", height=80)
        st.text_area("Reference answer", key="review_edit_reference", height=120)
        with st.container(horizontal=True):
            st.form_submit_button(
                "Save edit",
                type="primary",
                shortcut="Ctrl+Enter",
                on_click=save_edit,
                args=(q.id, False),
            )
            st.form_submit_button(
                "Save and accept",
                shortcut="Ctrl+Shift+Enter",
                on_click=save_edit,
                args=(q.id, True),
            )
            st.form_submit_button("Cancel", on_click=set_mode, args=(None,), shortcut="Escape")


def _covers_all(text: str, spans: tuple[tuple[int, int], ...]) -> bool:
    covered = sum(len(text[a:b].split()) for a, b in spans)
    return covered >= 0.95 * max(len(text.split()), 1)


def contexts_block(view: review.ReviewView) -> None:
    st.html('<div class="rv-label">Generated from</div>')
    if not view.contexts and not view.other_sources:
        st.html(note_html("The generator gave no contexts for this question.", kind="info"))
    for context in view.contexts:
        with st.container(border=True):
            if not context.found:
                st.html(
                    f'<div class="rv-ctx-head">Context {context.position} · '
                    '<span class="rv-missing">not found in the corpus</span></div>'
                    + safe_text_html(context.text, css_class="lbl-context")
                )
                continue
            for match in context.matches:
                chunk = match.chunk
                title = chunk.title or chunk.doc_id or ""
                how = HOW.get(context.how, context.how)
                head = f"Context {context.position} · matched {how} · {chunk.id}"
                if _covers_all(chunk.text, match.spans):
                    body = '<div class="rv-whole">The context is this whole chunk.</div>'
                    body += safe_text_html(chunk.text)
                else:
                    body = spans_html(chunk.text, match.spans, css_class="lbl-text rv-text")
                st.html(
                    f'<div class="rv-ctx-head">{html.escape(head)}'
                    + (f" · {html.escape(title)}" if title else "")
                    + "</div>"
                    + body
                )
    for chunk in view.other_sources:
        with st.container(border=True):
            st.html(
                f'<div class="rv-ctx-head">Source chunk · {html.escape(chunk.id)}</div>'
                + safe_text_html(chunk.text)
            )


def cluster_block(view: review.ReviewView) -> None:
    if not view.cluster:
        return
    others = len(view.cluster)
    st.html(
        f'<div class="rv-label">Its duplicate cluster: {others} other'
        f"{'s' if others != 1 else ''}</div>"
    )
    for member in view.cluster:
        with st.container(border=True):
            kind = "human question" if member.origin != "generated" else member.status
            score = f" · {member.score:.0f}/100" if member.score is not None else ""
            st.html(
                f'<div class="rv-member">{html.escape(member.text)}<br>'
                f"<small>{html.escape(member.id)} · {html.escape(kind)}{score}</small></div>"
            )
            if member.origin == "generated":
                st.button(
                    "Open",
                    key=f"review_open::{member.id}",
                    type="tertiary",
                    on_click=open_question,
                    args=(member.id,),
                )
            else:
                st.page_link(
                    str(PAGES_DIR / "label.py"),
                    label="Open in grading",
                    query_params={"question": member.id},
                )


def details_block(view: review.ReviewView) -> None:
    metadata = view.generation.get("metadata") or {}
    with st.expander("How it was generated"):
        if metadata:
            st.text(json.dumps(metadata, ensure_ascii=False, indent=1, sort_keys=True))
        else:
            st.text("No metadata.")
    with st.expander(f"History ({len(view.history)})", expanded=False):
        if not view.history:
            st.text("No decision yet.")
        lines = []
        for event in reversed(view.history):
            when = event["at"][:19].replace("T", " ")
            text = f"{when} UTC · {event['reviewer']} · {event['action']}"
            if event["action"] in ("accept", "reject", "undo"):
                text += f" ({event['old_status']} → {event['new_status']})"
            if event.get("reason"):
                text += f": {REJECT_REASONS.get(event['reason'], event['reason'])}"
            if event.get("note"):
                text += f" · {event['note']}"
            if event.get("sources"):
                text += f" · graded {len(event['sources'])} source chunks 2"
            if event.get("batch"):
                text += " · in a batch"
            lines.append(f'<div class="rv-event">{html.escape(text)}</div>')
        if lines:
            st.html("".join(lines))


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
        f" to review · {counts.get('accepted', 0)} accepted · {counts.get('rejected', 0)} rejected",
    )


@store_fragment
def review_area() -> None:
    """The question, its decisions and its sources: a key reruns only this part of the page."""
    # An edit changes the flags of the question (and its cluster); the page load checked the
    # rest.
    review.ensure_flags(store, check_queue=False)
    where = _where()
    count = store.flags.queue_count(where)
    messages()
    batch_confirmation()
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
    question_block(view, review.position(store, where, question_id), count)
    toolbar(view)
    mode = st.session_state.get("review_mode")
    if mode == "reject":
        reject_panel(view)
    elif mode == "edit":
        edit_panel(view)
    left, right = st.columns([3, 2], gap="large")
    with left:
        contexts_block(view)
    with right:
        cluster_block(view)
        details_block(view)
    scroll_to_top(question_id)


# stats ----------------------------------------------------------------------------------------


def _acceptance_table(rows: list[dict], title: str) -> None:
    import pandas as pd

    frame = pd.DataFrame(
        {
            title: [r["value"] or "(none)" for r in rows],
            "Acceptance": [
                None if r["acceptance"] is None else round(100 * r["acceptance"]) for r in rows
            ],
            "Accepted": [r["accepted"] for r in rows],
            "Rejected": [r["rejected"] for r in rows],
            "To review": [r["pending"] for r in rows],
        }
    )
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        placeholder="-",
        column_config={"Acceptance": st.column_config.NumberColumn(format="%d%%")},
    )


def _reasons_chart(reasons: list[dict]) -> None:
    import altair as alt
    import pandas as pd

    frame = pd.DataFrame(
        {"Reason": [r["label"] for r in reasons], "Questions": [r["count"] for r in reasons]}
    )
    chart = (
        alt.Chart(frame)
        .mark_bar(color="#c92a2a")
        .encode(
            x=alt.X("Questions:Q", title=None, axis=alt.Axis(tickMinStep=1, format="d")),
            y=alt.Y(
                "Reason:N",
                sort="-x",
                title=None,
                axis=alt.Axis(labelLimit=260, labelOverlap=False),
            ),
            tooltip=["Reason", "Questions"],
        )
        .properties(height=alt.Step(28))
    )
    st.altair_chart(chart, width="stretch")


def stats_view() -> None:
    data = review.review_stats(store)
    cols = st.columns(5)
    cols[0].metric("To review", data["remaining"])
    cols[1].metric("Accepted", data["accepted"])
    cols[2].metric("Rejected", data["rejected"])
    acceptance = data["acceptance"]
    cols[3].metric("Acceptance", "-" if acceptance is None else f"{acceptance:.0%}")
    median = data["median_seconds"]
    cols[4].metric("Median per decision", "-" if median is None else f"{median:.0f} s")
    left, right = st.columns(2, gap="large")
    with left:
        st.html('<div class="rv-label">Why questions were rejected</div>')
        if data["reject_reasons"]:
            _reasons_chart(data["reject_reasons"])
        else:
            st.html(note_html("No question rejected yet.", kind="info"))
    with right:
        st.html('<div class="rv-label">Acceptance by generator</div>')
        _acceptance_table(data["by_generator"], "Generator")
    st.html('<div class="rv-label">By synthesizer</div>')
    _acceptance_table(data["by_synthesizer"], "Synthesizer")
    st.html('<div class="rv-label">By persona</div>')
    _acceptance_table(data["by_persona"], "Persona")


# page -----------------------------------------------------------------------------------------


def render() -> None:
    st.html(STYLE)
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
        stats_view()
        return
    batch_form()
    review_area()


render()
