"""How the Review questions page draws a generated question and the review's figures: its
flags, status, text and reference (with an edit's diff), the contexts it was generated from
matched to chunks, its duplicate cluster, its history, and the stats view. Rendering only:
everything shown from the questions' files is escaped.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable

import streamlit as st

from labeler import review
from labeler.app.conversation import read_only_html
from labeler.app.pages import PAGES_DIR
from labeler.app.widgets import note_html, safe_text_html, word_diff_html
from labeler.flags import FLAG_TITLES
from labeler.review import REJECT_REASONS

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
        read_only_html(q),  # a turn of a conversation: the conversation before it too
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
                    + safe_text_html(context.text, css_class="lbl-context", markdown=True)
                )
                continue
            for match in context.matches:
                chunk = match.chunk
                title = chunk.title or chunk.doc_id or ""
                how = HOW.get(context.how, context.how)
                head = f"Context {context.position} · matched {how} · {chunk.id}"
                if match.whole:
                    body = '<div class="rv-whole">The context is this whole chunk.</div>'
                    body += safe_text_html(chunk.text, markdown=True)
                else:
                    body = safe_text_html(
                        chunk.text, spans=match.spans, css_class="lbl-text rv-text", markdown=True
                    )
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
                + safe_text_html(chunk.text, markdown=True)
            )


def cluster_block(view: review.ReviewView, on_open: Callable[[str], None]) -> None:
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
                    on_click=on_open,
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


def stats_view(data: dict) -> None:
    """The review's figures (``review.review_stats``): what is left, acceptance, time per
    decision, why questions were rejected, and acceptance by generator, synthesizer, persona."""
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


# the sidebar ------------------------------------------------------------------------------------


def filter_choice(
    label: str, key: str, values: list[tuple[str, int]], names: dict | None = None
) -> None:
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


# decisions ------------------------------------------------------------------------------------


def reject_panel(
    view: review.ReviewView,
    on_reject: Callable[[str, str], None],
    on_cancel: Callable[[None], None],
) -> None:
    """The reasons, keys 1 to 7 (``on_reject(question, reason)``), and a note."""
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
                    on_click=on_reject,
                    args=(view.question.id, reason),
                )
            st.button(
                "Cancel",
                key="review_reject_cancel",
                shortcut="Escape",
                type="tertiary",
                on_click=on_cancel,
                args=(None,),
            )


def edit_panel(
    view: review.ReviewView,
    on_save: Callable[[str, bool], None],
    on_cancel: Callable[[None], None],
) -> None:
    """The question and its reference answer to edit (``on_save(question, then_accept)``)."""
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
                on_click=on_save,
                args=(q.id, False),
            )
            st.form_submit_button(
                "Save and accept",
                shortcut="Ctrl+Shift+Enter",
                on_click=on_save,
                args=(q.id, True),
            )
            st.form_submit_button("Cancel", on_click=on_cancel, args=(None,), shortcut="Escape")


def batch_form(on_prepare: Callable[[], None]) -> None:
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
            on_click=on_prepare,
            help="You confirm on the next step, which says how many questions it touches.",
        )


def batch_confirmation(
    what: str, on_confirm: Callable[[], None], on_cancel: Callable[[], None]
) -> None:
    """The second step of a batch (``what``: ``BatchPlan.describe``), confirmed with Y."""
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
                on_click=on_confirm,
                shortcut="Y",
                help="Y",
            )
            st.button("Cancel", key="review_batch_cancel", on_click=on_cancel, shortcut="Escape")


__all__ = [
    "batch_confirmation",
    "batch_form",
    "cluster_block",
    "contexts_block",
    "details_block",
    "edit_panel",
    "filter_choice",
    "question_block",
    "reject_panel",
    "stats_view",
]
