"""Small frozen value types of the metric engine: a parsed metric, a registry entry, the options
of an evaluation, and one question as the reference formulas see it.

Pure Python on purpose: the CLI imports this module (through the registry) when it starts, and
``labeler eval`` must not pay for numpy before it has read its options.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from labeler.errors import LabelerError

KRule = Literal["required", "optional", "none"]
Order = Literal["rank", "score"]
Gains = Literal["linear", "exp"]

ORDERS: tuple[Order, ...] = ("rank", "score")
GAINS: tuple[Gains, ...] = ("linear", "exp")


@dataclass(frozen=True, slots=True, order=True)
class Metric:
    """One metric at one cutoff, as a user names it: ``ndcg@10`` is ``Metric("ndcg", 10)``.

    ``k`` is None for a metric computed over the whole ranking (``ndcg``, ``mrr``, ``map``,
    ``r_precision``).
    """

    name: str
    k: int | None = None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"


@dataclass(frozen=True, slots=True)
class Options:
    """How rankings and labels are read; recorded beside every figure so a baseline and a new
    evaluation can be checked for comparability.

    - ``min_grade``: a chunk is relevant for the binary metrics when its grade is at least this.
    - ``order``: ``rank`` reads a run in the order it states (its rank column, else the file's
      order; equal ranks keep the file's order); ``score`` sorts by score, descending, ties by
      chunk id descending byte-wise, as trec_eval does.
    - ``depth``: only the first ``depth`` results of each ranking count (trec_eval ``-M``).
    - ``gains``: nDCG's gain for grade g: ``linear`` g, ``exp`` 2**g - 1.
    """

    min_grade: int = 1
    order: Order = "rank"
    depth: int | None = None
    gains: Gains = "linear"

    def __post_init__(self) -> None:
        if isinstance(self.min_grade, bool) or not isinstance(self.min_grade, int):
            raise LabelerError(
                f"expected a whole number, got {self.min_grade!r}", field="min-grade"
            )
        if self.min_grade < 1:
            msg = f"must be at least 1 (grade 0 means not relevant), got {self.min_grade}"
            raise LabelerError(msg, field="min-grade")
        if self.order not in ORDERS:
            msg = f"expected one of {', '.join(ORDERS)}, got {self.order!r}"
            raise LabelerError(msg, field="order")
        if self.gains not in GAINS:
            msg = f"expected one of {', '.join(GAINS)}, got {self.gains!r}"
            raise LabelerError(msg, field="gains")
        if self.depth is not None and (
            isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1
        ):
            raise LabelerError(
                f"must be a positive whole number, got {self.depth!r}", field="depth"
            )

    def as_dict(self) -> dict[str, Any]:
        return {
            "min_grade": self.min_grade,
            "order": self.order,
            "depth": self.depth,
            "gains": self.gains,
        }


DEFAULT_OPTIONS = Options()
"""Every option at its default: relevant from grade 1, runs in their own order, every result,
linear gains."""


@dataclass(frozen=True, slots=True)
class QuestionInput:
    """One question as the reference formulas see it.

    ``ranked`` holds the grade of each result in rank order, already cut to ``Options.depth``;
    ``None`` marks a chunk nobody labelled. ``grades`` holds every label the question has.
    A negative grade (TREC's "in the pool but not judged") counts as no label, as in trec_eval.
    """

    ranked: tuple[int | None, ...]
    grades: tuple[int, ...]
    min_grade: int = 1
    gains: Gains = "linear"

    def relevant(self, grade: int | None) -> bool:
        return grade is not None and grade >= self.min_grade

    def labelled(self, grade: int | None) -> bool:
        return grade is not None and grade >= 0

    def gain(self, grade: int | None) -> float:
        if grade is None or grade <= 0:
            return 0.0
        return float(grade) if self.gains == "linear" else float(2**grade - 1)

    @property
    def num_relevant(self) -> int:
        return sum(1 for g in self.grades if g >= self.min_grade)


@dataclass(frozen=True, slots=True)
class MetricDef:
    """A metric as registered once: everything the parser, the CLI, the README and the tests
    need to know about it.

    ``reference`` is the definition in plain Python over one question (the formula the docs
    state); ``vectorised`` computes the same over every question at once from a ``Batch``'s
    primitives (see ``labeler.metrics.batch``). Tests hold the two to each other and to trec_eval.
    ``label_next`` declares that label next supports it: its parser, ``labeler next --help``, the
    README and the Results page's choices all read that.
    """

    name: str
    title: str
    k: KRule
    formula: str
    relevance: str
    empty: float
    reference: Callable[[QuestionInput, int | None], float]
    vectorised: Callable[[Any, int | None], Any]
    trec_eval: str | None = None
    trec_eval_cut: str | None = None
    note: str = ""
    # Label next (``labeler next``, the "decide A vs B" queue) can decide a comparison on this
    # metric: the name of the ``Difference`` in ``labeler.metrics.difference`` that bounds A - B
    # on it. None: label next does not support it.
    label_next: str | None = None

    @property
    def spelling(self) -> str:
        """How a user writes it: ``recall@k``, ``ndcg`` / ``ndcg@k``, ``r_precision``."""
        if self.k == "required":
            return f"{self.name}@k"
        if self.k == "optional":
            return f"{self.name}, {self.name}@k"
        return self.name


__all__ = [
    "DEFAULT_OPTIONS",
    "GAINS",
    "ORDERS",
    "Gains",
    "KRule",
    "Metric",
    "MetricDef",
    "Options",
    "Order",
    "QuestionInput",
]
