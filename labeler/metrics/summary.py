"""What the Results page shows, as data: each run's mean with a bootstrap interval, two runs'
difference question by question, how much of each run's top k the labels cover, and one run
measured on two versions of a test set.

The intervals come from ``labeler.metrics.comparison``'s bootstrap (the questions resampled with
replacement; the draws depend only on the number of questions and the seed, so every run of a
test set is resampled alike and a figure does not move when another run is added).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labeler.metrics.comparison import DEFAULT_SEED, bootstrap_means
from labeler.metrics.evaluation import RunResult

PAGE_RESAMPLES = 2_000  # an interval to two decimals; 10,000 buys a third for five times the time
WELL_JUDGED = 0.9  # below this share of a run's top k labelled, its figures get a warning


@dataclass(frozen=True, slots=True)
class MeanInterval:
    """A run's mean on a metric over the scored questions, and its bootstrap interval."""

    run: str
    metric: str
    mean: float | None
    low: float | None
    high: float | None
    questions: int


def mean_intervals(
    results: Sequence[RunResult],
    metrics: Sequence[str] | None = None,
    *,
    resamples: int = PAGE_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> tuple[MeanInterval, ...]:
    """Every run's mean of every metric with a percentile bootstrap interval."""
    out = []
    tail = (1.0 - confidence) / 2.0
    for result in results:
        names = list(metrics) if metrics is not None else list(result.metric_names)
        n = result.num_scored
        if n == 0:
            out += [MeanInterval(result.run, m, None, None, None, 0) for m in names]
            continue
        values = np.stack([result.values[m][result.scored] for m in names], axis=1)
        draws = bootstrap_means(values, resamples, seed)
        low, high = np.quantile(draws, [tail, 1.0 - tail], axis=0)
        out += [
            MeanInterval(
                result.run, m, float(values[:, i].mean()), float(low[i]), float(high[i]), n
            )
            for i, m in enumerate(names)
        ]
    return tuple(out)


@dataclass(frozen=True, slots=True)
class QuestionDifference:
    question: str
    a: float
    b: float

    @property
    def difference(self) -> float:
        return self.a - self.b


def question_differences(a: RunResult, b: RunResult, metric: str) -> tuple[QuestionDifference, ...]:
    """A's and B's value on every scored question, sorted by A - B (B's best first)."""
    if a.questions != b.questions:
        msg = f"runs {a.run!r} and {b.run!r} were scored on different questions"
        raise ValueError(msg)
    keep = np.flatnonzero(a.scored)
    va, vb = a.values[metric][keep], b.values[metric][keep]
    rows = [
        QuestionDifference(a.questions[i], float(x), float(y))
        for i, x, y in zip(keep.tolist(), va.tolist(), vb.tolist(), strict=True)
    ]
    return tuple(sorted(rows, key=lambda r: (r.difference, r.question)))


@dataclass(frozen=True, slots=True)
class Coverage:
    """The share of a run's top k that carries a label (judged@k), over the scored questions."""

    run: str
    k: int
    judged: float | None

    def warning(self, metric: str | None = None, threshold: float = WELL_JUDGED) -> str | None:
        """In words, when the labels cover too little of the run's top k to trust it."""
        if self.judged is None or self.judged >= threshold:
            return None
        figure = metric or f"precision@{self.k}"
        return (
            f"{self.run}'s top {self.k} is {100 * self.judged:.0f} % judged: unjudged chunks"
            f" count as not relevant, so its {figure} is a lower bound."
        )


def coverage(results: Sequence[RunResult], k: int) -> tuple[Coverage, ...]:
    """judged@k of each run (the results must hold ``judged@k``)."""
    return tuple(Coverage(r.run, k, r.mean(f"judged@{k}")) for r in results)


@dataclass(frozen=True, slots=True)
class VersionShift:
    """One run's mean on a metric measured on an older and a newer version of a test set."""

    run: str
    metric: str
    before: float | None
    after: float | None
    questions_before: int
    questions_after: int

    @property
    def change(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


def version_shift(
    before: Sequence[RunResult], after: Sequence[RunResult], metrics: Sequence[str]
) -> tuple[VersionShift, ...]:
    """Each run (paired by name) on each metric, before and after."""
    later = {r.run: r for r in after}
    return tuple(
        VersionShift(
            old.run,
            m,
            old.mean(m),
            later[old.run].mean(m),
            old.num_scored,
            later[old.run].num_scored,
        )
        for old in before
        if old.run in later
        for m in metrics
    )


@dataclass(frozen=True, slots=True)
class QuestionShift:
    """A question whose value moved between versions (None: not scored in that version)."""

    question: str
    before: float | None
    after: float | None

    @property
    def change(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


def question_shifts(before: RunResult, after: RunResult, metric: str) -> tuple[QuestionShift, ...]:
    """The questions whose value of ``metric`` differs between two versions (or that only one
    version scores), largest moves first."""
    old = before.per_question(metric)
    new = after.per_question(metric)
    rows = [
        QuestionShift(q, old.get(q), new.get(q))
        for q in sorted(set(old) | set(new))
        if old.get(q) is None or new.get(q) is None or abs(old[q] - new[q]) > 1e-12
    ]
    return tuple(
        sorted(rows, key=lambda r: (-abs(r.change) if r.change is not None else 1, r.question))
    )


__all__ = [
    "PAGE_RESAMPLES",
    "WELL_JUDGED",
    "Coverage",
    "MeanInterval",
    "QuestionDifference",
    "QuestionShift",
    "VersionShift",
    "coverage",
    "mean_intervals",
    "question_differences",
    "question_shifts",
    "version_shift",
]
