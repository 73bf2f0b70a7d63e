"""A judge's grades as the relevance model's prior for the chunks no person graded.

The relevance model (``labeler.metrics.relevance_model``) gives each unjudged chunk a grade
distribution from where the two runs put it. A judge that graded the chunk adds evidence: with
the judge a noisy reader of the true grade, whose confusion P(judge says j | true grade g) is
learnt from the chunks both it and people graded, Bayes' rule gives

    P(g | cell, judge says j)  is proportional to  P(g | cell) x P(j | g).

The confusion is a Dirichlet per true grade: a prior worth ``PRIOR_WEIGHT`` labels that takes
the judge to be right more often than not (``PRIOR_RIGHT``), plus the overlap, a question's m
labels counting as sqrt(m) as in the relevance model. A good judge, once checked on a few
dozen labels, then sharpens the model a lot; a bad one is found out by the same labels and
changes little. Each simulated world draws its confusion afresh, so an uncertain judge widens
the distribution of the difference instead of narrowing it. Chunks the judge did not grade
keep the relevance model's distribution.

Pure data in: the judge's grades arrive as ``{(question, chunk): grade}`` (the caller reads
them from wherever they live), turned here into one grade per slot of the contest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from labeler.metrics.contest import Contest
from labeler.metrics.relevance_model import _clustered, _dirichlet

NONE = 3  # the judge level of a chunk the judge did not grade
LEVELS = 4
PRIOR_WEIGHT = 6.0  # labels' worth of the prior confusion, per true grade
PRIOR_RIGHT = 0.6  # the share of it on the judge being right


def slot_grades(contest: Contest, prior: Mapping[tuple[str, str], int]) -> np.ndarray:
    """The judge's grade of each slot of ``contest`` (-1 where it gave none); grades other
    than 0, 1 and 2 are ignored."""
    grades = np.full(contest.size, -1, dtype=np.int8)
    if not prior or contest.size == 0:
        return grades
    chunks = contest.chunk_ids(np.arange(contest.size))
    questions = contest.questions
    for slot, (q, chunk) in enumerate(zip(contest.question.tolist(), chunks, strict=True)):
        grade = prior.get((questions[q], chunk))
        if grade in (0, 1, 2):
            grades[slot] = grade
    return grades


@dataclass(frozen=True, slots=True, eq=False)
class JudgePrior:
    """The judge's grade per slot and the Dirichlet parameters of its confusion (3 x 3: true
    grade by the judge's grade)."""

    grades: np.ndarray
    confusion: np.ndarray

    @classmethod
    def fit(cls, contest: Contest, grades: np.ndarray) -> JudgePrior:
        grades = np.asarray(grades, dtype=np.int8)
        both = (contest.grade >= 0) & (grades >= 0)
        off = PRIOR_WEIGHT * (1.0 - PRIOR_RIGHT) / 2.0
        confusion = np.full((3, 3), off) + np.eye(3) * (PRIOR_WEIGHT * PRIOR_RIGHT - off)
        truth, said = contest.grade[both].astype(np.int64), grades[both].astype(np.int64)
        weight = _clustered(contest.question[both], truth * 3 + said)
        np.add.at(confusion, (truth, said), weight)
        return cls(grades, confusion)

    @property
    def agreement(self) -> float:
        """The confusion's expected share of the judge's grades that are right."""
        rows = self.confusion / self.confusion.sum(axis=1, keepdims=True)
        return float(np.trace(rows) / 3.0)

    def levels(self, slots: np.ndarray) -> np.ndarray:
        """The judge level (0, 1, 2, or ``NONE``) of each of ``slots``."""
        found = self.grades[slots]
        return np.where(found >= 0, found, NONE).astype(np.int64)

    def combine(self, rng: np.random.Generator, theta: np.ndarray) -> np.ndarray:
        """(worlds, cells x LEVELS, 3): the grade distribution of each cell of ``theta``
        (worlds, cells, 3) given each judge level (level ``NONE``: the cell's own), the
        confusion drawn afresh per world."""
        worlds, cells = theta.shape[:2]
        draws = _dirichlet(rng, np.broadcast_to(self.confusion, (worlds, 3, 3)).copy())
        out = np.empty((worlds, cells, LEVELS, 3))
        for level in range(3):
            weighted = theta * draws[:, None, :, level]  # P(g | cell) x P(j | g)
            out[:, :, level] = weighted / np.maximum(weighted.sum(axis=-1, keepdims=True), 1e-300)
        out[:, :, NONE] = theta
        return out.reshape(worlds, cells * LEVELS, 3)


__all__ = ["LEVELS", "NONE", "JudgePrior", "slot_grades"]
