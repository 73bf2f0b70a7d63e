"""What the grading page shows of the queue "decide A vs B": the sidebar's choice, the deep
link, which queue the page walks (``settle``), the status line, the mark on a deciding chunk's
card, and the way back once proven.

The queue itself is the grading loop's (the ``decide`` family of ``labeler.grading.queues``,
made in ``labeler.grading.decide``): next and previous question, the cursor's preference for the
marked chunks and the pool worker's follow-ahead all go through ``labeler.grading``; nothing here
decides which question or chunk comes next. The Results page links here with
``?decide=A,B,METRIC&policy=POLICY``, which is also a link a reviewer can keep: the page keeps
it in the URL while the queue is on.
"""

from __future__ import annotations

import html
import time

import streamlit as st

from labeler.app.pages import PAGES_DIR
from labeler.app.state import say, store_fragment, user_errors
from labeler.app.tables import Column, show_table
from labeler.app.widgets import note
from labeler.errors import LabelerError
from labeler.grading import queues
from labeler.grading.consensus import POLICIES
from labeler.grading.decide import DECIDE, Comparison, DecisionQueue
from labeler.grading.policy import project_policy
from labeler.grading.queue import Queue
from labeler.metrics.registry import label_next_metrics, label_next_spellings

FAMILY = DECIDE.name  # the value of the page's "Queue" choice that turns this queue on
STATUS = "label_status"  # the status line's fragment
STATUS_YIELD_S = 0.03  # see status_line()
RESULTS_PAIRS = 10  # the most decisive pairs the Results page lists
AT_ONCE_QUESTIONS = 2_000  # up to this many, the Results page works the decision out as it opens
QUEUE_KEY = "label_queue"
DEFAULT_METRIC = "ndcg@10"
_CHOICE_KEYS = ("label_decide_a", "label_decide_b", "label_decide_metric", "label_decide_policy")


def queue_chosen() -> None:
    """A callback: another comparison to decide opens at the top of its queue (where the
    next-question rule starts); any other queue keeps the question."""
    if st.session_state.get(QUEUE_KEY) == FAMILY:
        st.query_params.pop("question", None)
        st.session_state.pop("label_trail", None)


def stop() -> None:
    """The comparison is proven: back to every question (the sidebar's choice too)."""
    st.session_state[QUEUE_KEY] = queues.DEFAULT_QUEUE
    st.rerun()


def from_link(store) -> None:
    """``?decide=A,B,METRIC&policy=P`` (the Results page's link): turn the queue on with that
    comparison, once per link (the page writes the link back while the queue is on)."""
    link = st.query_params.get("decide")
    policy = st.query_params.get("policy") or project_policy(store)
    if not link or st.session_state.get("label_decide_link") == (link, policy):
        return
    st.session_state["label_decide_link"] = (link, policy)
    try:
        parts = Comparison.parse(link)
        comparison = Comparison(parts.run_a, parts.run_b, parts.metric, policy).check(store)
    except LabelerError as error:
        say(f"Cannot open the link's queue: {error}", kind="error")
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
    st.session_state.setdefault("label_decide_policy", project_policy(store))
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
    return Comparison(a, b, (metric or DEFAULT_METRIC).strip(), policy or None, prior)


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
    if chosen.policy:
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


def settle(store) -> tuple[Comparison, DecisionQueue] | None:
    """Which queue the reviewer works through, as ``labeling`` names it (kept for the
    callbacks); for "decide A vs B", the comparison and its queue. None for any other queue,
    and when the comparison cannot be worked out (a metric without its cutoff, say): the
    reason is kept for the band to show, and the page walks every question meanwhile."""
    chosen = st.session_state.get("label_queue") or queues.DEFAULT_QUEUE
    st.session_state.pop("label_decide_error", None)
    try:
        deciding = current(store, store.corpus.current_chunking())
    except LabelerError as error:
        st.session_state["label_decide_error"] = str(error)
        deciding = None
    keep_link(deciding[0] if deciding else None)
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
def status_line(store) -> None:
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
        deciding = current(store, store.corpus.current_chunking())
        if deciding is not None:
            status(*deciding, st.session_state.get("label_qid"), stop)
    st.session_state.pop("label_status_stale", None)


def problem() -> None:
    """The chosen comparison cannot be worked out: why, where the status line would be."""
    problem = st.session_state.get("label_decide_error")
    if problem:
        note(problem, kind="error")


# the Results page's section -------------------------------------------------------------------


def worked_out(store, comparison: Comparison):
    """The comparison's decision for the Results page: at once on a small project (0.2 s on
    the demo), or when already worked out; on a large one only when asked, since it takes
    seconds (16 s of CPU at 10,000 questions, most of the page's first open: issue #23)."""
    chunking = store.corpus.current_chunking()
    kept = comparison.kept(store, chunking)
    if kept is not None:
        return kept.decision
    questions = store.questions.count()
    if questions <= AT_ONCE_QUESTIONS or st.button(
        f"Work it out ({questions:,} questions: it takes a while)", key="results_decide_work"
    ):
        return comparison.queue(store, chunking).decision
    return None


def results_section(store, run_a: str, run_b: str, metrics: list[str], policy: str | None) -> None:
    """Which pairs settle A vs B (current labels, imported runs only). The decision is the
    grading page's queue's (kept until a label or a run changes): reruns of this page cost
    nothing, and its link opens the grading page on a queue already worked out."""
    st.subheader("Label next")
    decidable = {d.name for d in label_next_metrics()}
    choices = [m for m in metrics if m.split("@")[0] in decidable]
    imported = set(store.runs.names())
    if not choices or run_a not in imported or run_b not in imported:
        titles = ", ".join(d.title for d in label_next_metrics())
        st.caption(f"Label next works on imported runs with one of: {titles}.")
        return
    metric = st.selectbox("Decide on", choices, key="results_decide_metric")
    judges = store.ratings.metric_judges().get("relevance", [])
    prior = st.selectbox(
        "Judge's grades as the model's prior",
        [None, *judges],
        format_func=lambda j: "none" if j is None else j,
        key="results_decide_prior",
        help="For chunks nobody graded, an LLM judge's grade informs how likely they are to"
        " be relevant (weighed by how often it agrees with people). Proof needs people.",
    )
    comparison = Comparison(run_a, run_b, metric, policy or project_policy(store), prior)
    decision = worked_out(store, comparison)
    if decision is None:
        return
    note(decision.sentence(), kind="ok" if decision.status == "proven" else "info")
    st.caption(
        f"{decision.labelled} of the {decision.pool} pairs in the two runs' top"
        f" {metric.partition('@')[2] or 'results'} are labelled. Proven: no grading of the"
        " unjudged chunks can reverse it; likely: the relevance model, learnt from the labels"
        " so far, gives the leader this probability (docs/results.md)."
    )
    if decision.pairs:
        show_table(
            [p.as_dict() for p in decision.pairs[:RESULTS_PAIRS]],
            [Column("question", "text"), Column("chunk", "text"), Column("weight", digits=4)],
            key="results_next_pairs",
        )
        st.page_link(
            str(PAGES_DIR / "label.py"),
            label=f"Grade them: decide {run_a} vs {run_b} on the grading page",
            icon=":material/checklist:",
            query_params={"decide": f"{run_a},{run_b},{metric}", "policy": comparison.policy}
            | ({"prior": prior} if prior else {}),
        )


__all__ = [
    "FAMILY",
    "STATUS",
    "comparison",
    "current",
    "from_link",
    "keep_link",
    "mark_html",
    "problem",
    "queue_chosen",
    "results_section",
    "settle",
    "sidebar_options",
    "status",
    "status_line",
    "stop",
]
