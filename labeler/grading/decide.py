"""Decide A vs B on the project's own labels: ``labeler next`` and the grading page's queue.

The maths is ``labeler.metrics.decision`` (plain qrels and runs); this module feeds it the
consensus of the current labels and the runs (``labeler.grading.current``), and turns the ranked
pairs into a queue of questions, each with the chunks that decide.

That queue is the queue family ``decide`` (listed in ``labeler.grading.queues``):
``decide:A,B,METRIC,POLICY`` walks the questions in label-next order and marks the chunks
that decide, so the grading page, ``next_question`` and the pool worker all follow it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labeler.errors import LabelerError
from labeler.grading.consensus import POLICIES
from labeler.grading.current import current_labels, stored_run
from labeler.grading.queue import Queue, QueueFamily
from labeler.metrics.decision import (
    DEFAULT_BUDGET,
    DEFAULT_CONFIDENCE,
    DEFAULT_SEED,
    Decision,
    check_confidence,
    decide,
)
from labeler.metrics.types import DEFAULT_OPTIONS, Options

if TYPE_CHECKING:
    from labeler.metrics.tables import Run
    from labeler.store import Store


@dataclass(frozen=True, slots=True)
class DecisionQueue:
    """Questions in label-next order, each with its chunks to grade, most decisive first."""

    decision: Decision
    questions: tuple[str, ...]
    chunks: dict[str, tuple[str, ...]]

    def position(self, question_id: str) -> int | None:
        try:
            return self.questions.index(question_id)
        except ValueError:
            return None


def decide_runs(
    store: Store,
    run_a: str,
    run_b: str,
    metric: str,
    *,
    policy: str | None = None,
    chunking: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    budget: int | None = DEFAULT_BUDGET,
    options: Options = DEFAULT_OPTIONS,
    seed: int = DEFAULT_SEED,
    runs: Callable[[str], Run] | None = None,
    prior: str | None = None,
) -> Decision:
    """Is ``run_a`` better than ``run_b`` on ``metric`` with the current labels, and which
    ``budget`` pairs to grade next. ``runs`` turns a name into its run (by default the run
    imported under that name; ``labeler.sources.next_pairs`` also takes files). ``prior``
    names a judge whose relevance grades are the relevance model's prior for the chunks no
    person graded (``labeler.metrics.judge_prior``); off by default."""
    check_confidence(confidence)
    if run_a == run_b:
        msg = f"compare two different runs, not {run_a!r} with itself"
        raise LabelerError(msg, field="run")
    chunking = chunking or store.corpus.current_chunking()
    resolve = runs if runs is not None else functools.partial(stored_run, store)
    a, b = resolve(run_a), resolve(run_b)
    if a.name == b.name:
        msg = f"both runs are named {a.name!r}: compare two different runs"
        raise LabelerError(msg, field="run")
    labels = current_labels(store, policy=policy, chunking=chunking)
    grades = None if prior is None else judge_grades(store, prior, chunking)
    return decide(
        labels.qrels,
        a,
        b,
        metric,
        questions=labels.questions,
        unanswerable=labels.unanswerable,
        confidence=confidence,
        budget=budget,
        options=options,
        seed=seed,
        prior=grades,
    )


def judge_grades(store: Store, judge: str, chunking: str) -> dict[tuple[str, str], int]:
    """A judge's relevance grades, as label-next's prior; an unknown judge is an error."""
    judges = store.ratings.metric_judges().get("relevance", [])
    if judge not in judges:
        msg = f"{judge!r} has no relevance grade; judges: {', '.join(judges) or 'none yet'}"
        raise LabelerError(msg, field="prior")
    return store.ratings.relevance_grades(judge, chunking)


_KEPT: dict[tuple, DecisionQueue] = {}
_KEPT_LOCK = threading.Lock()  # the app asks from several threads
_KEEP = 8  # decisions kept: a handful of comparisons followed at once


def decision_queue(
    store: Store,
    run_a: str,
    run_b: str,
    metric: str,
    *,
    policy: str | None = None,
    chunking: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    prior: str | None = None,
) -> DecisionQueue:
    """Every unjudged pair in label-next order, grouped by question (a question's place is
    that of its most decisive pair). Kept until a label or a run changes (or, with a judge's
    ``prior``, a rating), so the grading page can ask for it on every question it opens."""
    chunking = chunking or store.corpus.current_chunking()
    key = (
        str(store.path),
        run_a,
        run_b,
        metric,
        policy,
        chunking,
        confidence,
        store.labels.revision(),
        prior,
        None if prior is None else store.ratings.revision(),
    )
    with _KEPT_LOCK:
        kept = _KEPT.get(key)
    if kept is None:
        kept = _decision_queue(store, run_a, run_b, metric, policy, chunking, confidence, prior)
        with _KEPT_LOCK:
            while len(_KEPT) >= _KEEP:
                _KEPT.pop(next(iter(_KEPT)))
            _KEPT[key] = kept
    return kept


def _decision_queue(
    store: Store,
    run_a: str,
    run_b: str,
    metric: str,
    policy: str | None,
    chunking: str,
    confidence: float,
    prior: str | None = None,
) -> DecisionQueue:
    decision = decide_runs(
        store,
        run_a,
        run_b,
        metric,
        policy=policy,
        chunking=chunking,
        confidence=confidence,
        budget=None,
        prior=prior,
    )
    chunks: dict[str, list[str]] = {}
    for pair in decision.pairs:
        chunks.setdefault(pair.question, []).append(pair.chunk)
    return DecisionQueue(decision, tuple(chunks), {q: tuple(c) for q, c in chunks.items()})


# the grading loop's queue ------------------------------------------------------------------

DEFAULT_POLICY = "median"


@dataclass(frozen=True, slots=True)
class Comparison:
    """What a "decide A vs B" queue decides: two imported runs, a metric, and how reviewers'
    disagreements are settled."""

    run_a: str
    run_b: str
    metric: str
    policy: str = DEFAULT_POLICY
    prior: str | None = None  # a judge whose grades are the relevance model's prior

    @classmethod
    def parse(cls, argument: str) -> Comparison:
        """``A,B,METRIC`` or ``A,B,METRIC,POLICY`` (a queue's argument, a deep link)."""
        parts = [p.strip() for p in argument.split(",")]
        if len(parts) not in (3, 4) or not all(parts):
            msg = f"expected RUN_A,RUN_B,METRIC[,POLICY], got {argument!r}"
            raise LabelerError(msg, field="decide")
        return cls(*parts)

    def check(self, store: Store) -> Comparison:
        """Refuse a comparison its queue cannot walk: two different runs imported under those
        names, and a known policy (the metric is checked when it is worked out)."""
        names = store.runs.names()
        unknown = [r for r in (self.run_a, self.run_b) if r not in names]
        if unknown or self.run_a == self.run_b or self.policy not in POLICIES:
            msg = (
                f"cannot decide {self.argument!r}: it needs two different imported runs"
                f" ({', '.join(names) or 'none imported'}) and a policy ({', '.join(POLICIES)})"
            )
            raise LabelerError(msg, field="decide")
        return self

    @property
    def title(self) -> str:
        return f"{self.run_a} vs {self.run_b} on {self.metric}"

    @property
    def argument(self) -> str:
        return f"{self.run_a},{self.run_b},{self.metric},{self.policy}"

    @property
    def queue_name(self) -> str:
        return DECIDE.named(self.argument)

    def queue(self, store: Store, chunking: str | None = None) -> DecisionQueue:
        return decision_queue(
            store,
            self.run_a,
            self.run_b,
            self.metric,
            policy=self.policy,
            chunking=chunking,
            prior=self.prior,
        )


def _queue(argument: str) -> Queue:
    comparison = Comparison.parse(argument)

    def rows(store: Store, chunking: str, reviewer: str, tag: str | None) -> list[dict]:
        by_id = {r["id"]: r for r in store.questions.queue(chunking, reviewer, tag=tag)}
        return [by_id[q] for q in comparison.queue(store, chunking).questions if q in by_id]

    def marked(store: Store, chunking: str, question_id: str) -> tuple[str, ...]:
        return comparison.queue(store, chunking).chunks.get(question_id, ())

    return Queue(comparison.queue_name, f"decide {comparison.title}", rows, marked)


# Only the questions whose pairs can still change the comparison, most decisive first.
DECIDE = QueueFamily("decide", "decide A vs B", _queue)


__all__ = [
    "DECIDE",
    "DEFAULT_POLICY",
    "Comparison",
    "DecisionQueue",
    "decide_runs",
    "decision_queue",
    "judge_grades",
]
