"""Label-next simulations shared by the benchmark and the calibration tests: a synthetic corpus,
the oracle loop (label the next pairs with known grades until proven) and the greedy reference
that knows the grades.

The synthetic corpus is deliberately *not* the relevance model's own story: relevance comes
from a latent match plus a per-question difficulty, runs score chunks with their own skill,
a shared lexical component (so runs overlap and share hard negatives) and noise, and some
questions have no answer at all. A model that were only right about itself would fail here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from labeler.metrics import evaluate
from labeler.metrics.contest import Contest, build_contest
from labeler.metrics.decision import decide_contest, mean_bounds
from labeler.metrics.difference import Frame, difference_of
from labeler.metrics.tables import Qrels, Run

# name -> (skill at finding relevant chunks, weight of the shared lexical score)
RUNS = {
    "strong": (6.0, 2.0),
    "good": (5.0, 2.0),
    "good-b": (4.8, 1.6),
    "weak": (3.0, 2.0),
    "good-c": (5.0, 1.8),  # within 0.01 of good-b on nDCG@10 (1,000 questions, seed 7)
}


@dataclass(frozen=True)
class Corpus:
    questions: tuple[str, ...]
    truth: Qrels  # every relevant chunk (grades 1 and 2); anything else is not relevant
    runs: dict[str, Run] = field(default_factory=dict)


def synthetic(
    questions: int = 1000,
    *,
    depth: int = 100,
    candidates: int = 300,
    seed: int = 0,
    runs: dict[str, tuple[float, float]] | None = None,
) -> Corpus:
    rng = np.random.default_rng(seed)
    runs = RUNS if runs is None else runs
    names = tuple(f"q{i:05d}" for i in range(questions))
    truth_q, truth_c, truth_g = [], [], []
    shared = rng.normal(size=(questions, candidates))
    relevance = np.zeros((questions, candidates))
    for i in range(questions):
        if rng.random() < 0.12:  # unanswerable: nothing relevant
            continue
        count = min(1 + rng.poisson(1.2), 6)
        chosen = rng.choice(candidates, size=count, replace=False)
        grades = np.where(rng.random(count) < 0.55, 2, 1)
        difficulty = rng.lognormal(0.0, 0.5)
        relevance[i, chosen] = grades / 2.0 / difficulty
        shared[i, chosen] += 0.5 * grades  # relevant chunks share the question's words
        truth_q += [names[i]] * count
        truth_c += [f"{names[i]}-c{j}" for j in chosen]
        truth_g += grades.tolist()
    truth = Qrels.from_rows(truth_q, truth_c, truth_g).with_questions(names)
    made: dict[str, Run] = {}
    chunk_names = np.array([f"c{j}" for j in range(candidates)])
    for name, (skill, lexical) in runs.items():
        score = skill * relevance + lexical * shared + rng.normal(size=shared.shape)
        top = np.argsort(-score, axis=1)[:, :depth]
        chunk_ids = [
            f"{names[i]}-{c}" for i in range(questions) for c in chunk_names[top[i]].tolist()
        ]
        made[name] = Run.from_rows(
            name,
            np.repeat(np.array(names), depth).tolist(),
            chunk_ids,
            ranks=np.tile(np.arange(1, depth + 1), questions),
        )
    return Corpus(names, truth, made)


def oracle_grades(start: Contest, truth: Qrels) -> np.ndarray:
    """The grade of every slot of the pool on the full labels (0 where the truth is silent)."""
    known = {(q, c): g for q, labels in truth.to_dict().items() for c, g in labels.items()}
    slots = range(start.size)
    ids = start.chunk_ids(np.arange(start.size))
    return np.array(
        [known.get((start.questions[start.question[i]], ids[i]), 0) for i in slots],
        dtype=np.int8,
    )


def truth_sign(truth: Qrels, run_a: Run, run_b: Run, metric: str) -> int:
    """+1 if A's mean is higher on the full labels, -1 if B's, 0 on an exact tie."""
    a = evaluate(truth, run_a, metric).mean(metric) or 0.0
    b = evaluate(truth, run_b, metric).mean(metric) or 0.0
    return int(np.sign(round(a - b, 12)))


@dataclass(frozen=True)
class Trace:
    pool: int
    truth: int
    named_at: int | None  # labels when a winner was first named (likely or proven)
    named: int  # the sign first named (0: never)
    proven_at: int | None
    wrong: int  # rounds whose named winner was not the truth's
    rounds: int
    probabilities: tuple[tuple[float, int], ...]  # (P(A beats B), labels) after each round


def label_next(
    start: Contest,
    oracle: np.ndarray,
    truth: int,
    *,
    budget: int = 20,
    stop_at_named: bool = False,
    rounds: int | None = None,
    prior: np.ndarray | None = None,
) -> Trace:
    """From ``start``, label the next ``budget`` pairs from the oracle, round after round,
    until proven (or until a winner is named, with ``stop_at_named``). ``prior``: a judge's
    grade per slot (-1: none), the relevance model's prior for the unlabelled ones."""
    contest = start
    named_at = proven_at = None
    named = wrong = count = 0
    seen = []
    while True:
        decision = decide_contest(contest, budget=budget, prior=prior)
        count += 1
        seen.append((decision.probability, decision.labelled))
        if decision.winner is not None:
            sign = 1 if decision.winner == contest.run_a else -1
            wrong += sign != truth
            if named_at is None:
                named_at, named = decision.labelled, sign
        if decision.status == "proven":
            proven_at = decision.labelled
            break
        if (stop_at_named and named_at is not None) or (rounds is not None and count >= rounds):
            break
        slot_of = {}
        free = np.flatnonzero(contest.grade < 0)
        ids = contest.chunk_ids(free)
        for slot, chunk in zip(free.tolist(), ids, strict=True):
            slot_of[contest.questions[contest.question[slot]], chunk] = slot
        grade = contest.grade.copy()
        for pair in decision.pairs:
            slot = slot_of[pair.question, pair.chunk]
            grade[slot] = oracle[slot]
        contest = contest.with_grades(grade)
    return Trace(start.size, truth, named_at, named, proven_at, wrong, count, tuple(seen))


def _margin(bounds, sign: int) -> np.ndarray:
    side = bounds.low if sign > 0 else -bounds.high
    return np.where(bounds.can_drop, np.minimum(side, 0.0), side) * bounds.can_score


def greedy(start: Contest, oracle: np.ndarray, sign: int, *, batch: int = 20) -> int | None:
    """Labels a greedy order that knows the grades needs to prove the truth's winner: each
    round, the ``batch`` pairs whose true grade raises the proof margin most (each pair's
    question bounded again with that grade), ties to the pair that narrows its question
    most. None when the labels cannot prove it (a tie, or a winner the pool cannot show)."""
    contest = start
    difference = difference_of(contest)
    if sign == 0:
        return None
    while True:
        bounds = difference.bounds(Frame.of(contest))
        low, high, sure = mean_bounds(bounds)
        if sure and ((sign > 0 and low > 1e-12) or (sign < 0 and high < -1e-12)):
            return contest.labelled
        free = np.flatnonzero(contest.grade < 0)
        if len(free) == 0:
            return None
        questions = contest.question[free]
        copies = contest.take(questions)
        grade = copies.grade.copy()
        grade[copies.starts[:-1] + (free - contest.starts[questions])] = oracle[free]
        after = difference.bounds(Frame.of(copies.with_grades(grade)))
        rise = _margin(after, sign) - _margin(bounds, sign)[questions]
        narrower = (bounds.high - bounds.low)[questions] - (after.high - after.low)
        pick = free[np.lexsort((-narrower, -rise))[:batch]]
        grade = contest.grade.copy()
        grade[pick] = oracle[pick]
        contest = contest.with_grades(grade)


def fresh(questions, run_a: Run, run_b: Run, metric: str) -> Contest:
    """The pool of two runs before anyone labels anything."""
    empty = Qrels.from_rows([], [], []).with_questions(questions)
    return build_contest(empty, run_a, run_b, metric, questions=questions)


__all__ = [
    "Corpus",
    "Trace",
    "fresh",
    "greedy",
    "label_next",
    "oracle_grades",
    "synthetic",
    "truth_sign",
]
