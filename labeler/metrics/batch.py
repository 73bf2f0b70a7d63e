"""Every ranking of one run against one test set, as flat arrays, and the few vectorised
primitives that all metrics are written in (see the ``vectorised`` lambdas in ``binary``,
``graded`` and ``context``).

Rows are the results that count (after ``depth``), grouped by question with each group in rank
order. Most work happens on the small subsets of rows that matter (relevant, labelled, with a
gain), and each primitive is computed once per cutoff, so asking for forty metrics costs little
more than asking for four. Every primitive returns one float per question of the test set;
a question without results gets 0 (an empty ranking), which is every metric's ``empty``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labeler.metrics.types import Gains

Cutoff = int | np.ndarray | None


def gains_of(grades: np.ndarray, gains: Gains) -> np.ndarray:
    """Gain per grade: g or 2**g - 1; 0 for grade 0, negative grades and no label."""
    positive = np.maximum(grades, 0).astype(np.float64)
    return positive if gains == "linear" else np.exp2(positive) - 1.0


@dataclass(frozen=True, slots=True)
class _Rows:
    question: np.ndarray
    position: np.ndarray


def group_positions(question: np.ndarray) -> np.ndarray:
    """Each row's 0-based position within its group: rows of one question are contiguous."""
    n = len(question)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(question[1:], question[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    sizes = np.diff(starts, append=n)
    position = np.arange(n)
    position -= np.repeat(starts, sizes)
    return position


class Batch:
    """The primitives. ``question``, ``position`` (0-based rank) and ``grade`` (-1: no label) are
    per result; ``num_relevant`` is per question; ``ideal_*`` are the labels with a positive
    grade, grouped by question, best first (the ideal ranking)."""

    def __init__(
        self,
        *,
        num_questions: int,
        question: np.ndarray,
        position: np.ndarray,
        grade: np.ndarray,
        num_relevant: np.ndarray,
        ideal_question: np.ndarray,
        ideal_position: np.ndarray,
        ideal_grade: np.ndarray,
        min_grade: int,
        gains: Gains,
    ) -> None:
        self.n = num_questions
        self.question = question
        self.position = position
        self.grade = grade
        self.num_relevant = num_relevant.astype(np.float64)
        self._ideal = _Rows(ideal_question, ideal_position)
        self._ideal_grade = ideal_grade
        self.min_grade = min_grade
        self.gains = gains
        self._cache: dict[tuple, np.ndarray] = {}
        self._subsets: dict[str, object] = {}

    # -- subsets of rows -------------------------------------------------------------------

    def _subset(self, name: str, mask: np.ndarray) -> _Rows:
        if name not in self._subsets:
            self._subsets[name] = _Rows(self.question[mask], self.position[mask])
        return self._subsets[name]

    @property
    def _relevant(self) -> _Rows:
        return self._subset("relevant", self.grade >= self.min_grade)

    @property
    def _labelled(self) -> _Rows:
        return self._subset("labelled", self.grade >= 0)

    def _precision_at_relevant(self) -> np.ndarray:
        """For each relevant row: relevant rows so far in its ranking / its rank."""
        if "precision" not in self._subsets:
            rows = self._relevant
            found = group_positions(rows.question) + 1
            self._subsets["precision"] = found / (rows.position + 1.0)
        return self._subsets["precision"]

    def _discounted_gain(self) -> tuple[_Rows, np.ndarray]:
        if "gain" not in self._subsets:
            mask = self.grade > 0
            # With min_grade 1 the rows with a gain are the relevant ones: the same subset.
            rows = self._relevant if self.min_grade == 1 else self._subset("gain rows", mask)
            values = gains_of(self.grade[mask], self.gains) / np.log2(rows.position + 2.0)
            self._subsets["gain"] = (rows, values)
        return self._subsets["gain"]

    def _count(self, rows: _Rows, k: Cutoff, weights: np.ndarray | None = None) -> np.ndarray:
        if k is None:
            question, w = rows.question, weights
        else:
            limit = k if np.isscalar(k) else k[rows.question]
            keep = rows.position < limit
            question = rows.question[keep]
            w = None if weights is None else weights[keep]
        return np.bincount(question, weights=w, minlength=self.n).astype(np.float64, copy=False)

    def _cached(self, name: str, k: Cutoff, compute) -> np.ndarray:
        if k is not None and not np.isscalar(k):
            return compute()
        key = (name, k)
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # -- the primitives --------------------------------------------------------------------

    def retrieved(self, k: Cutoff) -> np.ndarray:
        """Results in the top k (fewer when the ranking is shorter)."""
        everything = _Rows(self.question, self.position)
        return self._cached("retrieved", k, lambda: self._count(everything, k))

    def relevant_in_top(self, k: Cutoff) -> np.ndarray:
        """Relevant results (grade >= min_grade) in the top k; k may be one per question."""
        return self._cached("relevant", k, lambda: self._count(self._relevant, k))

    def judged_in_top(self, k: Cutoff) -> np.ndarray:
        """Labelled results (any grade >= 0) in the top k."""
        return self._cached("judged", k, lambda: self._count(self._labelled, k))

    def precision_sum(self, k: Cutoff) -> np.ndarray:
        """Sum of precision@rank over the relevant results in the top k."""
        return self._cached(
            "precision_sum",
            k,
            lambda: self._count(self._relevant, k, self._precision_at_relevant()),
        )

    def first_relevant_rank(self) -> np.ndarray:
        """Rank (1-based) of the first relevant result; infinity when there is none."""

        def compute() -> np.ndarray:
            rows = self._relevant
            ranks = np.full(self.n, np.inf)
            if len(rows.question):
                first = np.ones(len(rows.question), dtype=bool)
                first[1:] = rows.question[1:] != rows.question[:-1]
                ranks[rows.question[first]] = rows.position[first] + 1.0
            return ranks

        return self._cached("first_relevant", None, compute)

    def reciprocal_rank(self, k: Cutoff) -> np.ndarray:
        """1 / rank of the first relevant result if it is within the top k, else 0."""
        ranks = self.first_relevant_rank()
        if k is None:
            return 1.0 / ranks
        return (ranks <= k) * (1.0 / ranks)

    def dcg(self, k: Cutoff) -> np.ndarray:
        """Sum over the top k of gain / log2(rank + 1)."""

        def compute() -> np.ndarray:
            rows, values = self._discounted_gain()
            return self._count(rows, k, values)

        return self._cached("dcg", k, compute)

    def ideal_dcg(self, k: Cutoff) -> np.ndarray:
        """DCG of the best possible top k: every label of the question, ranked by gain."""

        def compute() -> np.ndarray:
            rows = self._ideal
            values = gains_of(self._ideal_grade, self.gains) / np.log2(rows.position + 2.0)
            return self._count(rows, k, values)

        return self._cached("ideal_dcg", k, compute)

    @staticmethod
    def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
        """numerator / denominator, and 0 where the denominator is 0."""
        out = np.zeros(np.shape(numerator))
        np.divide(numerator, denominator, out=out, where=denominator > 0)
        return out


__all__ = ["Batch", "gains_of", "group_positions"]
