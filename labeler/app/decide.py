"""What the grading page shows of the queue "decide A vs B": the sidebar's choice, the deep
link, the status line, the mark on a deciding chunk's card, and the way back once proven.

The queue itself is the grading loop's (``labeler.deciding`` registers the ``decide`` family
of ``labeler.labeling`` queues): next and previous question, the cursor's preference for the
marked chunks and the pool worker's follow-ahead all go through ``labeling``; nothing here
decides which question or chunk comes next. The Results page links here with
``?decide=A,B,METRIC&policy=POLICY``, which is also a link a reviewer can keep: the page keeps
it in the URL while the queue is on.
"""

from __future__ import annotations

import html

import streamlit as st

from labeler.app.widgets import note
from labeler.errors import LabelerError
from labeler.grading.consensus import POLICIES
from labeler.grading.decide import DECIDE, DEFAULT_POLICY, Comparison, DecisionQueue
from labeler.metrics.registry import label_next_spellings

FAMILY = DECIDE.name  # the value of the page's "Queue" choice that turns this queue on
QUEUE_KEY = "label_queue"
DEFAULT_METRIC = "ndcg@10"
_CHOICE_KEYS = ("label_decide_a", "label_decide_b", "label_decide_metric", "label_decide_policy")


def from_link(store) -> None:
    """``?decide=A,B,METRIC&policy=P`` (the Results page's link): turn the queue on with that
    comparison, once per link (the page writes the link back while the queue is on)."""
    link = st.query_params.get("decide")
    policy = st.query_params.get("policy") or DEFAULT_POLICY
    if not link or st.session_state.get("label_decide_link") == (link, policy):
        return
    st.session_state["label_decide_link"] = (link, policy)
    try:
        parts = Comparison.parse(link)
        comparison = Comparison(parts.run_a, parts.run_b, parts.metric, policy)
    except LabelerError as error:
        st.session_state["_flash_error"] = f"Cannot open the link's queue: {error}"
        return
    names = store.runs.names()
    unknown = [r for r in (comparison.run_a, comparison.run_b) if r not in names]
    if unknown or comparison.run_a == comparison.run_b or policy not in POLICIES:
        st.session_state["_flash_error"] = (
            f"Cannot decide {link!r}: the link needs two different imported runs"
            f" ({', '.join(names) or 'none imported'}) and a policy ({', '.join(POLICIES)})."
        )
        return
    st.session_state[QUEUE_KEY] = FAMILY
    for key, value in zip(_CHOICE_KEYS, _values(comparison), strict=True):
        st.session_state[key] = value
    st.session_state["label_decide_prior"] = st.query_params.get("prior") or None


def _values(comparison: Comparison) -> tuple[str, str, str, str]:
    return comparison.run_a, comparison.run_b, comparison.metric, comparison.policy


def sidebar_options(store, on_change) -> None:
    """Below the "Queue" choice: the two runs, the metric and the policy to decide with."""
    names = store.runs.names()
    if len(names) < 2:
        st.caption("Import two runs to decide between them.")
        return
    if st.session_state.get("label_decide_a") not in names:
        st.session_state["label_decide_a"] = names[0]
    others = [n for n in names if n != st.session_state["label_decide_a"]]
    if st.session_state.get("label_decide_b") not in others:
        st.session_state["label_decide_b"] = others[0]
    left, right = st.columns(2)
    left.selectbox("Run A", names, key="label_decide_a", on_change=on_change)
    right.selectbox("Run B", others, key="label_decide_b", on_change=on_change)
    st.session_state.setdefault("label_decide_metric", DEFAULT_METRIC)
    st.session_state.setdefault("label_decide_policy", DEFAULT_POLICY)
    left, right = st.columns(2)
    left.text_input(
        "Metric",
        key="label_decide_metric",
        on_change=on_change,
        help=f"One of {label_next_spellings()}.",
    )
    right.selectbox(
        "Disagreements",
        list(POLICIES),
        key="label_decide_policy",
        on_change=on_change,
        help="How reviewers' different grades of one chunk are settled: "
        + "; ".join(f"{p}: {POLICIES[p].summary}" for p in POLICIES),
    )


def comparison() -> Comparison | None:
    """The comparison chosen on the page (None when another queue is on)."""
    if st.session_state.get(QUEUE_KEY) != FAMILY:
        return None
    a, b, metric, policy = (st.session_state.get(k) for k in _CHOICE_KEYS)
    if not a or not b:
        return None
    prior = st.session_state.get("label_decide_prior")  # from the Results page's link
    return Comparison(a, b, (metric or DEFAULT_METRIC).strip(), policy or DEFAULT_POLICY, prior)


def current(store, chunking: str) -> tuple[Comparison, DecisionQueue] | None:
    """The chosen comparison and its queue (kept until a label or a run changes); None when
    another queue is on. A comparison that cannot be worked out raises its LabelerError."""
    chosen = comparison()
    if chosen is None:
        return None
    return chosen, chosen.queue(store, chunking)


def keep_link(chosen: Comparison | None) -> None:
    """The URL names the comparison while its queue is on (a link to keep), and not after."""
    if chosen is None:
        st.query_params.pop("decide", None)
        st.query_params.pop("policy", None)
        return
    link = f"{chosen.run_a},{chosen.run_b},{chosen.metric}"
    st.query_params["decide"] = link
    st.query_params["policy"] = chosen.policy
    st.session_state["label_decide_link"] = (link, chosen.policy)


def status(comparison: Comparison, queue: DecisionQueue, question_id: str | None, stop) -> None:
    """Where the comparison stands, in one line, and what is left to grade for it, here and in
    all; once proven, that it is, and the way back to every question."""
    decision = queue.decision
    if decision.status == "proven":
        with st.container(horizontal=True, vertical_alignment="center", wrap=False):
            note(f"{decision.sentence()}. Nothing more to grade for this comparison.", kind="ok")
            st.button(
                "Back to all questions",
                key="label_decide_stop",
                on_click=stop,
                icon=":material/arrow_back:",
                help="Leave this comparison's queue and grade every question, by id",
            )
        # No chunk decides anything any more: the cards drawn with a mark lose it.
        st.html("<style>.lbl-decides { display: none; }</style>")
        return
    here = len(queue.chunks.get(question_id, ())) if question_id else 0
    total = sum(len(c) for c in queue.chunks.values())
    left = (
        f"{here} chunk{'s' * (here != 1)} marked <i>decides</i> on this question"
        if here
        else "nothing left to grade for it on this question (<b>N</b>: the next one)"
    )
    st.html(
        '<div class="lbl-decide-status">'
        f"<b>{html.escape(decision.sentence())}</b>"
        f"<span>Deciding {html.escape(comparison.title)}: {left}; {total} chunks in"
        f" {len(queue.questions)} questions could still change it.</span></div>"
    )


def mark_html(queue_title: str) -> str:
    """The mark on a card whose grade can still change the comparison (escaped: run names are
    data). It says that the chunk decides, never which run found it (the cards stay blind)."""
    tip = html.escape(f"{queue_title}: its grade can still change the comparison", quote=True)
    return f'<span class="lbl-decides" title="{tip}">decides</span>'


__all__ = [
    "FAMILY",
    "comparison",
    "current",
    "from_link",
    "keep_link",
    "mark_html",
    "sidebar_options",
    "status",
]
