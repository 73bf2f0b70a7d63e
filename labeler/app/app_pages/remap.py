"""Remap queue: the labels a re-chunking could not carry on its own, one proposal at a time.

Each proposal is a new chunk for a question: the old passage (left) and the proposed chunk
(right), what differs marked in each, the evidence, and the grade the rule suggests. Keys
(native button shortcuts): A accepts the proposed grade, 2/1/0 give that grade instead, X
rejects (no label on this chunk), N/P move between proposals. Every decision is the reviewer's
own label, recorded with the remap's provenance.
"""

from __future__ import annotations

import functools
import html

import streamlit as st

from labeler.app import widgets
from labeler.app.state import flash, get_store, reviewer, safely
from labeler.app.widgets import (
    Key,
    caption,
    diff_html,
    keys_legend,
    note,
    question_keys,
    safe_text_html,
)
from labeler.remap import review

GRADE_NAMES = {2: "2 · answers it", 1: "1 · helps partly", 0: "0 · not relevant"}
DECIDED = {"accepted": "Accepted", "changed": "Graded", "rejected": "Rejected"}
ICONS = {
    "split": ":material/call_split:",
    "elsewhere": ":material/call_split:",
    "edited": ":material/edit_note:",
    "conflict": ":material/warning:",
    "partial": ":material/content_cut:",
    "unseen": ":material/visibility:",
    "mixed": ":material/join:",
}

store = get_store()
me = reviewer()


# the queue --------------------------------------------------------------------------------


def _mine() -> str | None:
    return me if st.session_state.get("remap_mine") else None


def _proposals(summary: review.RemapSummary) -> list[review.ProposalKey]:
    """The queue, without texts (a remap can queue tens of thousands): one is read in full."""
    proposals = review.keys(store, summary.from_chunking, summary.to_chunking, reviewer=_mine())
    if not st.session_state.get("remap_show_decided", True):
        current = st.session_state.get("remap_current")
        proposals = [p for p in proposals if not p.decided or list(p.key) == current]
    return proposals


def _full(summary: review.RemapSummary, key: review.ProposalKey) -> review.Proposal | None:
    return review.proposal(
        store, summary.from_chunking, summary.to_chunking, *key.key, reviewer=_mine()
    )


def _chosen(summaries: list[review.RemapSummary]) -> review.RemapSummary:
    labels = [s.label for s in summaries]
    wanted = st.session_state.get("remap_pair")
    if wanted not in labels:
        pending = [s for s in summaries if s.decided < s.proposals]
        wanted = (pending or summaries)[0].label
        st.session_state["remap_pair"] = wanted
    return summaries[labels.index(wanted)]


def _position(proposals: list[review.ProposalKey]) -> int:
    """Where the reviewer is: the proposal in the URL (``?question=…&chunk=…``, so a reload or
    a shared link opens it), else the one they were on, else the first undecided one."""
    keys = [list(p.key) for p in proposals]
    linked = [st.query_params.get("question"), st.query_params.get("chunk")]
    current = linked if linked in keys else st.session_state.get("remap_current")
    if current in keys:
        index = keys.index(current)
    else:
        index = next((i for i, p in enumerate(proposals) if not p.decided), 0)
    if proposals:
        _go(proposals, index)
    return index


def _go(proposals: list[review.ProposalKey], index: int) -> None:
    if proposals:
        key = list(proposals[index % len(proposals)].key)
        st.session_state["remap_current"] = key
        st.query_params.update({"question": key[0], "chunk": key[1]})


def _next_undecided(proposals: list[review.ProposalKey], after: int) -> int:
    count = len(proposals)
    for step in range(1, count + 1):
        if not proposals[(after + step) % count].decided:
            return (after + step) % count
    return min(after + 1, count - 1)


# writes -----------------------------------------------------------------------------------


@safely
def decide(action: str, grade: int | None = None) -> None:
    """Decide the proposal on screen (its key is in the session), then open the next
    undecided one."""
    current = st.session_state.get("remap_current")
    if not current:
        return
    summary = _chosen(review.remaps(store))
    proposal = review.proposal(
        store, summary.from_chunking, summary.to_chunking, *current, reviewer=_mine()
    )
    if proposal is None:
        return
    written = review.decide(store, proposal, me, action, grade=grade)
    if written is None:
        flash("Rejected: no label written.")
    else:
        flash(f"Saved: grade {written}.")
    proposals = _proposals(summary)
    keys = [list(p.key) for p in proposals]
    here = keys.index(current) if current in keys else 0
    _go(proposals, _next_undecided(proposals, here))


def move(step: int) -> None:
    summaries = review.remaps(store)
    if not summaries:
        return
    proposals = _proposals(_chosen(summaries))
    _go(proposals, _position(proposals) + step)


def pair_changed() -> None:
    st.session_state.pop("remap_current", None)
    st.query_params.pop("question", None)
    st.query_params.pop("chunk", None)


# page -------------------------------------------------------------------------------------


def sidebar(summaries: list[review.RemapSummary], summary: review.RemapSummary) -> None:
    with st.sidebar:
        if len(summaries) > 1:
            st.selectbox(
                "Remap",
                [s.label for s in summaries],
                key="remap_pair",
                on_change=pair_changed,
            )
        done = summary.decided
        total = max(summary.proposals, 1)
        st.progress(done / total, text=f"{done} of {summary.proposals} proposals decided")
        counts = summary.counts
        st.caption(
            f"The remap carried {counts.get('applied', 0)} label mappings on its own and lost"
            f" {counts.get('lost', 0)} (min coverage {summary.min_coverage:g}). The"
            f" {counts.get('queued', 0)} mappings it could not decide (a reviewer's label and"
            f" a new chunk) make the {summary.proposals} proposals of this queue, one per"
            " question and new chunk."
        )
        st.toggle("Only proposals from my own labels", key="remap_mine", on_change=pair_changed)
        st.toggle("Show decided proposals", key="remap_show_decided", value=True)
        keys_legend(
            "`A` accept the proposed grade",
            "`2` `1` `0` give that grade instead",
            "`X` reject: no label on this chunk",
            "`N`/`P` next / previous proposal",
        )
        st.html(
            '<div class="rm-legend"><span class="rm-gone">red</span> not in the'
            ' proposed chunk · <span class="rm-new">green</span> not in the old passage</div>'
        )


def toolbar(proposal: review.Proposal) -> None:
    accept = Key(
        "a",
        f"Accept · {GRADE_NAMES[proposal.grade]}",
        decide,
        ("accept",),
        "Give the proposed chunk the proposed grade",
        kind="primary",
    )
    grades = [
        Key(str(v), GRADE_NAMES[v], decide, ("change", v), "Give the proposed chunk this grade")
        for v in (2, 1, 0)
    ]
    reject = Key(
        "x",
        "Reject",
        decide,
        ("reject",),
        "The old label does not carry to this chunk: no label is written",
        kind="tertiary",
    )
    previous, following = functools.partial(move, -1), functools.partial(move, 1)
    widgets.toolbar("remap", [accept, *grades, reject, *question_keys(previous, following)])


def figures(source: review.Source) -> str:
    return (
        '<div class="rm-figures">'
        f"coverage <b>{source.coverage:.0%}</b> of the passage is in this chunk · "
        f"containment <b>{source.containment:.0%}</b> of the chunk is the passage · "
        f"similarity <b>{source.similarity:.0f}</b> · {html.escape(source.method or '')}</div>"
    )


def proposal_view(summary: review.RemapSummary, proposals, index: int) -> None:
    proposal = _full(summary, proposals[index])
    if proposal is None:
        st.warning("This proposal is gone: the remap was run again. Press N for the next one.")
        return
    # Ids and chunking names are the user's text: shown escaped, never as Markdown.
    caption(
        f"Proposal {index + 1} of {len(proposals)} · question {proposal.question_id}"
        f" · {summary.label}"
    )
    st.html(safe_text_html(proposal.question, css_class="lbl-question"))
    if proposal.decided:
        grade = proposal.review_grade
        verdict = DECIDED[proposal.review] + (f" with grade {grade}" if grade is not None else "")
        note(f"{verdict} by {proposal.reviewed_by}. Press a key to decide again.", kind="ok")
    st.info(
        f"{proposal.reason.capitalize()}: {proposal.explanation}."
        f" Proposed grade: {GRADE_NAMES[proposal.grade]}.",
        icon=ICONS.get(proposal.reason, ":material/help:"),
    )
    toolbar(proposal)
    left, right = st.columns(2, gap="medium")
    with left:
        for source in proposal.sources:
            with st.container(border=True, key=f"remap_old_{source.old_chunk}_{source.reviewer}"):
                st.html(
                    '<div class="rm-head">'
                    f"<b>Old passage · {html.escape(source.old_chunk)}</b>"
                    f"<span>{html.escape(source.reviewer)} graded {source.old_grade}</span></div>"
                )
                old, _ = review.diff(source.old_text, proposal.new_text)
                st.html(diff_html(old, changed="rm-gone"))
                st.html(figures(source))
                if source.elsewhere:
                    caption("The rest is proposed with: " + ", ".join(source.elsewhere))
                if source.note:
                    st.caption("Note:")
                    st.text(source.note)
    with right, st.container(border=True, key="remap_new"):
        title = proposal.new_title or ""
        st.html(
            '<div class="rm-head">'
            f"<b>Proposed chunk · {html.escape(proposal.new_chunk)}</b>"
            f"<span>{html.escape(title)}</span></div>"
        )
        pieces = review.shared_in(proposal.new_text, [s.old_text for s in proposal.sources])
        st.html(diff_html(pieces, changed="rm-new"))


def render() -> None:
    summaries = review.remaps(store)
    if not summaries:
        st.title("Remap queue")
        st.write(
            "Nothing to review. After importing a new chunking, carry the labels over with"
            " `labeler remap --from OLD --to NEW`: what the rules cannot decide on their own"
            " waits here."
        )
        return
    summary = _chosen(summaries)
    sidebar(summaries, summary)
    proposals = _proposals(summary)
    if not proposals and st.session_state.get("remap_mine"):
        st.title("Remap queue")
        note(
            f"No proposal of {summary.label} comes from your own labels: turn off “Only"
            " proposals from my own labels” to review the others'.",
            kind="info",
        )
        return
    if not proposals:
        st.title("Remap queue")
        note(
            f"Nothing waits in {summary.label}: every proposal is decided (turn on “Show"
            " decided proposals” to revisit them)."
            if summary.proposals
            else f"The remap {summary.label} carried everything on its own.",
            kind="ok",
        )
        return
    if summary.proposals and summary.decided == summary.proposals:
        note(
            f"All {summary.proposals} proposals of {summary.label} are decided;"
            " you can still revisit any of them.",
            kind="ok",
        )
    index = _position(proposals)
    proposal_view(summary, proposals, index)


render()
