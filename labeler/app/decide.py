"""The grading page's queue "decide A vs B": the questions in label-next order, the chunks whose
grades decide the comparison marked, and where the comparison stands.

The maths and the queue are the core's (``labeler.deciding``, cached until a label or a run
changes); this module holds what the grading page shows of them: the sidebar's choice, the
status line, the mark on a card. The Results page links here with ``?decide=A,B,METRIC``
(and ``&policy=``), which is also a deep link a reviewer can keep.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import streamlit as st

from labeler.deciding import DecisionQueue, decision_queue
from labeler.exporters.consensus import POLICIES
from labeler.metrics.contest import SPELLINGS

EVERY = "every question, by id"
DECIDE = "decide A vs B"
MODE_KEY = "label_decide_mode"
DEFAULT_METRIC = "ndcg@10"
DEFAULT_POLICY = "median"


@dataclass(frozen=True, slots=True)
class Choice:
    run_a: str
    run_b: str
    metric: str
    policy: str

    @property
    def title(self) -> str:
        return f"{self.run_a} vs {self.run_b} on {self.metric}"


def from_link(store) -> None:
    """``?decide=A,B,METRIC&policy=P`` (from the Results page): start the queue with it."""
    link = st.query_params.get("decide")
    if not link or st.session_state.get("label_decide_link") == link:
        return
    st.session_state["label_decide_link"] = link
    parts = [p.strip() for p in link.split(",")]
    names = store.run_names()
    if len(parts) != 3 or parts[0] not in names or parts[1] not in names:
        st.session_state["_flash_error"] = f"Cannot decide {link!r}: expected two imported runs"
        return
    st.session_state[MODE_KEY] = DECIDE
    st.session_state["label_decide_a"], st.session_state["label_decide_b"] = parts[0], parts[1]
    st.session_state["label_decide_metric"] = parts[2]
    policy = st.query_params.get("policy")
    if policy in POLICIES:
        st.session_state["label_decide_policy"] = policy


def sidebar_choice(store) -> None:
    """The queue: every question by id, or the questions that decide A vs B."""
    st.radio("Queue", [EVERY, DECIDE], key=MODE_KEY, horizontal=True)
    if st.session_state.get(MODE_KEY) != DECIDE:
        return
    names = store.run_names()
    if len(names) < 2:
        st.caption("Import two runs to decide between them.")
        return
    left, right = st.columns(2)
    left.selectbox("A", names, key="label_decide_a")
    others = [n for n in names if n != st.session_state["label_decide_a"]]
    if st.session_state.get("label_decide_b") not in others:
        st.session_state["label_decide_b"] = others[0]
    right.selectbox("B", others, key="label_decide_b")
    st.session_state.setdefault("label_decide_metric", DEFAULT_METRIC)
    st.text_input("Metric", key="label_decide_metric", help=f"One of {SPELLINGS}.")
    st.session_state.setdefault("label_decide_policy", DEFAULT_POLICY)
    st.selectbox("When reviewers disagree", list(POLICIES), key="label_decide_policy")


def choice() -> Choice | None:
    if st.session_state.get(MODE_KEY) != DECIDE:
        return None
    a, b = st.session_state.get("label_decide_a"), st.session_state.get("label_decide_b")
    if not a or not b or a == b:
        return None
    return Choice(
        a,
        b,
        (st.session_state.get("label_decide_metric") or DEFAULT_METRIC).strip(),
        st.session_state.get("label_decide_policy") or DEFAULT_POLICY,
    )


def current_queue(store, chunking: str) -> DecisionQueue | None:
    """The queue of the chosen comparison (None when the page walks every question)."""
    chosen = choice()
    if chosen is None:
        return None
    return decision_queue(
        store, chosen.run_a, chosen.run_b, chosen.metric, policy=chosen.policy, chunking=chunking
    )


def in_order(rows: list[dict], queue: DecisionQueue | None) -> list[dict]:
    """The grading queue's rows in label-next order, only those that decide the comparison;
    unchanged when the page walks every question."""
    if queue is None:
        return rows
    by_id = {r["id"]: r for r in rows}
    return [by_id[q] for q in queue.questions if q in by_id]


def status(queue: DecisionQueue) -> None:
    """Where the comparison stands, in one line; when proven, that there is nothing left."""
    decision = queue.decision
    if decision.status == "proven":
        st.success(
            f"{decision.sentence()}. Nothing more to grade for this comparison.",
            icon=":material/verified:",
        )
        return
    left = sum(len(c) for c in queue.chunks.values())
    st.info(
        f"{decision.sentence()} · {left} pairs in {len(queue.questions)} questions could still"
        " change it; the marked chunks decide it",
        icon=":material/balance:",
    )


def start(queue: DecisionQueue) -> None:
    """On a newly chosen comparison, open its most decisive question."""
    decision = queue.decision
    key = (decision.run_a, decision.run_b, decision.metric)
    if st.session_state.get("label_decide_started") != key:
        st.session_state["label_decide_started"] = key
        st.query_params["question"] = queue.questions[0]


def stop() -> None:
    """Back to every question (a callback)."""
    st.session_state[MODE_KEY] = EVERY
    st.session_state.pop("label_decide_started", None)
    st.query_params.pop("decide", None)


def mark_html(queue: DecisionQueue | None, question_id: str, chunk_id: str) -> str:
    """A badge for a card whose grade decides the comparison (escaped: run names are data)."""
    if queue is None or chunk_id not in queue.chunks.get(question_id, ()):
        return ""
    decision = queue.decision
    who = html.escape(f"{decision.run_a} vs {decision.run_b}")
    return (
        '<span class="lbl-decides" style="background:#fff3bf;border-radius:8px;padding:0 8px;'
        f'margin-right:8px;color:#5c3c00">decides {who}</span>'
    )


__all__ = [
    "DECIDE",
    "EVERY",
    "Choice",
    "choice",
    "current_queue",
    "from_link",
    "in_order",
    "mark_html",
    "sidebar_choice",
    "start",
    "status",
    "stop",
]
