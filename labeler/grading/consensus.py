"""One grade per (question, chunk) from several reviewers, and the unanswerable rule.

The rules, in order, for each (question, chunk) that anyone graded:

1. An adjudicated grade (``labeler adjudicate``, ``labeler.grading.disputes.adjudicate``) wins.
2. Otherwise, when every reviewer gave the same grade, that grade.
3. Otherwise it is a disagreement: settled by the chosen policy, or listed (and the export
   stops) when no policy is chosen.

A reviewer who marked the question unanswerable has said that no chunk answers it: for every
chunk someone else graded and they did not, they count as having graded it 0. So "unanswerable"
against another reviewer's 2 is an ordinary disagreement, settled the same way. A reviewer's own
grade on a chunk wins over their own mark.

A question is exported as unanswerable when someone marked it so and no chunk's consensus grade
is 1 or more. A question nobody marked keeps its qrels even when they are all 0.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from labeler.errors import LabelerError

# What a reviewer who marked the question unanswerable implicitly gives a chunk.
IMPLIED_BY_MARK = 0


def _majority(grades: list[int]) -> int:
    counts = Counter(grades)
    top = max(counts.values())
    return min(g for g, n in counts.items() if n == top)


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    summary: str
    settle: Callable[[list[int]], int]


POLICIES = {
    policy.name: policy
    for policy in (
        Policy(
            "median",
            "the median grade; with an even count, the lower of the two middle grades",
            statistics.median_low,
        ),
        Policy("max", "the highest grade anyone gave", max),
        Policy("min", "the lowest grade anyone gave", min),
        Policy(
            "majority",
            "the grade most reviewers gave; a tie goes to the lower of the tied grades",
            _majority,
        ),
    )
}


def get_policy(name: str | None) -> Policy | None:
    if name is None:
        return None
    if name not in POLICIES:
        msg = f"unknown policy {name!r}; choose one of: {', '.join(POLICIES)}"
        raise LabelerError(msg, field="policy")
    return POLICIES[name]


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Reviewers who graded the same (question, chunk) differently. ``grades`` holds
    (reviewer, grade, how): how is "grade" or "unanswerable" (a grade implied by the mark)."""

    question_id: str
    chunk_id: str
    grades: tuple[tuple[str, int, str], ...]

    def describe(self) -> str:
        parts = [
            f"{reviewer} {'unanswerable' if how == 'unanswerable' else grade}"
            for reviewer, grade, how in self.grades
        ]
        return f"{self.question_id} / {self.chunk_id}: " + ", ".join(parts)

    def as_dict(self) -> dict:
        return {
            "question_id": self.question_id,
            "chunk_id": self.chunk_id,
            "grades": [{"reviewer": r, "grade": g, "how": h} for r, g, h in self.grades],
        }


@dataclass(frozen=True, slots=True)
class Consensus:
    """Per question: {chunk: grade} where settled, whether unanswerable, who judged it."""

    grades: Mapping[str, Mapping[str, int]]
    unanswerable: frozenset[str]
    reviewers: Mapping[str, frozenset[str]]
    disagreements: tuple[Disagreement, ...]
    adjudicated: int
    settled: int


def consensus(
    labels: Iterable[tuple[str, str, str, int]],
    marks: Iterable[tuple[str, str]],
    adjudications: Mapping[tuple[str, str], int],
    *,
    policy: Policy | None = None,
    questions: set[str] | None = None,
) -> Consensus:
    """Apply the rules above to (question, chunk, reviewer, grade) labels and (question,
    reviewer) unanswerable marks, for ``questions`` (all when None)."""
    return combine(by_question(labels, marks, adjudications, policy=policy, questions=questions))


@dataclass(frozen=True, slots=True)
class QuestionConsensus:
    """One question's part of a ``Consensus``: each question is settled on its own labels,
    marks and adjudications, so a part stays right until one of those changes."""

    grades: Mapping[str, int]
    reviewers: frozenset[str]
    unanswerable: bool
    disagreements: tuple[Disagreement, ...]
    adjudicated: int
    settled: int


def by_question(
    labels: Iterable[tuple[str, str, str, int]],
    marks: Iterable[tuple[str, str]],
    adjudications: Mapping[tuple[str, str], int],
    *,
    policy: Policy | None = None,
    questions: set[str] | None = None,
) -> dict[str, QuestionConsensus]:
    """``consensus`` question by question: {question: its part}, for every question of
    ``questions`` (all when None) with a label or a mark, in id order."""
    grouped: dict[str, dict[str, dict[str, int]]] = {}
    for question_id, chunk_id, reviewer, grade in labels:
        if questions is None or question_id in questions:
            grouped.setdefault(question_id, {}).setdefault(chunk_id, {})[reviewer] = grade
    marked: dict[str, set[str]] = {}
    for question_id, reviewer in marks:
        if questions is None or question_id in questions:
            marked.setdefault(question_id, set()).add(reviewer)
    return {
        question_id: _question(
            question_id,
            grouped.get(question_id, {}),
            marked.get(question_id, set()),
            adjudications,
            policy,
        )
        for question_id in sorted(set(grouped) | set(marked))
    }


def _question(
    question_id: str,
    chunks: Mapping[str, Mapping[str, int]],
    markers: set[str],
    adjudications: Mapping[tuple[str, str], int],
    policy: Policy | None,
) -> QuestionConsensus:
    settled_here: dict[str, int] = {}
    disagreements: list[Disagreement] = []
    adjudicated = settled = 0
    for chunk_id in sorted(chunks):
        given = chunks[chunk_id]
        if len(given) == 1 and not markers and (question_id, chunk_id) not in adjudications:
            settled_here[chunk_id] = next(iter(given.values()))  # one reviewer: no vote
            continue
        votes = [(r, g, "grade") for r, g in sorted(given.items())]
        votes += [(r, IMPLIED_BY_MARK, "unanswerable") for r in sorted(markers - set(given))]
        values = sorted({g for _, g, _ in votes})
        if (question_id, chunk_id) in adjudications:
            settled_here[chunk_id] = adjudications[question_id, chunk_id]
            adjudicated += 1
        elif len(values) == 1:
            settled_here[chunk_id] = values[0]
        elif policy is not None:
            settled_here[chunk_id] = policy.settle([g for _, g, _ in votes])
            settled += 1
        else:
            disagreements.append(Disagreement(question_id, chunk_id, tuple(votes)))
    return QuestionConsensus(
        grades=settled_here,
        reviewers=frozenset({r for given in chunks.values() for r in given} | markers),
        unanswerable=bool(markers) and not any(g >= 1 for g in settled_here.values()),
        disagreements=tuple(disagreements),
        adjudicated=adjudicated,
        settled=settled,
    )


def combine(parts: Mapping[str, QuestionConsensus]) -> Consensus:
    """The ``Consensus`` of questions settled one by one (``by_question``), in id order."""
    order = sorted(parts)
    return Consensus(
        grades={q: parts[q].grades for q in order},
        unanswerable=frozenset(q for q in order if parts[q].unanswerable),
        reviewers={q: parts[q].reviewers for q in order},
        disagreements=tuple(d for q in order for d in parts[q].disagreements),
        adjudicated=sum(parts[q].adjudicated for q in order),
        settled=sum(parts[q].settled for q in order),
    )


class DisagreementError(LabelerError):
    """Reviewers disagree and no policy was chosen; ``disagreements`` lists every one."""

    def __init__(self, disagreements: tuple[Disagreement, ...]) -> None:
        first = disagreements[0].describe()
        more = f" (and {len(disagreements) - 1} more)" if len(disagreements) > 1 else ""
        message = (
            f"{len(disagreements)} disagreement(s) between reviewers, e.g. {first}{more}; settle"
            " them with `labeler adjudicate` or choose --policy"
            f" ({', '.join(POLICIES)})"
        )
        super().__init__(message, field="policy")
        self.disagreements = disagreements


__all__ = [
    "IMPLIED_BY_MARK",
    "POLICIES",
    "Consensus",
    "Disagreement",
    "DisagreementError",
    "Policy",
    "QuestionConsensus",
    "by_question",
    "combine",
    "consensus",
    "get_policy",
]
