"""The project's counts, defined once: what "questions", "graded" and the rest mean, in the
words every face uses (``labeler status``, the Data page, the grading page's progress line, the
README's tour).

Before, the number of questions read 88 in the README (the hand-written ones), 93 or 94 on the
grading page (those in the grading queue) and 128 on the Data page (every row, rejected ones
included): three true numbers of three different things under one word (issue #23). Each count
is now a ``Count`` in ``COUNTS`` with its label and meaning, and ``project_counts`` works them
all out at once:

- questions: the questions being graded, the test set's questions: written by people,
  generated and accepted on the Review questions page, or turns of a conversation;
- generated questions waiting: generated questions nobody has accepted or rejected yet (they
  are not graded and not exported until accepted);
- turns: those of the questions that are a turn of a conversation (``labeler import mtrag``,
  a multi-turn sample accepted in review): each turn is graded and scored as a question;
- fully graded: questions whose every candidate chunk has a grade from someone, or that someone
  marked unanswerable (the grading page's "everyone");
- answerable: questions with a relevant chunk (a grade of 1 or more once reviewers'
  disagreements are settled by the project's policy): the questions every metric averages
  over at min_grade 1 (the Results page's "means over N questions").
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from labeler.grading.current import settled
from labeler.grading.policy import project_policy

if TYPE_CHECKING:
    from labeler.store import Store


@dataclass(frozen=True, slots=True)
class Count:
    """One count: its key (JSON, code), the words pages show, what it means (README, docs)."""

    key: str
    label: str
    meaning: str


COUNTS: tuple[Count, ...] = (
    Count(
        "questions",
        "questions",
        "the questions being graded: written by people, generated and accepted in review, or"
        " turns of a conversation",
    ),
    Count(
        "waiting",
        "generated questions waiting",
        "generated questions not yet accepted or rejected (graded once accepted)",
    ),
    Count("turns", "turns", "those of the questions that are a turn of a conversation"),
    Count(
        "graded",
        "fully graded",
        "questions whose every candidate chunk has someone's grade, or marked unanswerable",
    ),
    Count(
        "answerable",
        "answerable",
        "questions with a chunk graded 1 or more (disagreements settled by the project's"
        " policy): the questions the metrics average over",
    ),
)
LABELS = {count.key: count.label for count in COUNTS}


@dataclass(frozen=True, slots=True)
class ProjectCounts:
    """The counts of ``COUNTS`` for one chunking, with the rejected questions and the policy
    "answerable" was settled by (for the sentence that names them)."""

    questions: int
    waiting: int
    turns: int
    graded: int
    answerable: int
    rejected: int
    unanswerable: int
    policy: str

    def as_dict(self) -> dict[str, int | str]:
        return asdict(self)

    def sentence(self) -> str:
        """The counts in one line, in the words of ``COUNTS`` (the Data page, ``status``)."""
        return (
            f"{self.questions} {LABELS['questions']} ({self.graded} {LABELS['graded']},"
            f" {self.answerable} {LABELS['answerable']}, {self.unanswerable} marked"
            f" unanswerable) · {self.waiting} {LABELS['waiting']} for review"
            f" · {self.rejected} rejected · {self.turns} {LABELS['turns']}"
        )


def counts_table() -> str:
    """The README's table of the counts, from ``COUNTS`` (tests/test_docs.py holds it equal)."""
    rows = ["| count | what it counts |", "| --- | --- |"]
    rows += [f"| {count.label} | {count.meaning} |" for count in COUNTS]
    return "\n".join(rows)


def project_status(store: Store) -> dict:
    """``labeler status``'s figures: what the tables hold (``Store.status``) and the counts of
    ``COUNTS`` under their keys, so the command and the Data page show one set of numbers."""
    status = store.status()
    status["counts"] = project_counts(store, chunking=status["current_chunking"]).as_dict()
    return status


def project_counts(store: Store, *, chunking: str | None = None) -> ProjectCounts:
    """Every count of ``COUNTS`` for ``chunking`` (default: the current one)."""
    chunking = chunking or store.corpus.current_chunking()
    policy = project_policy(store)
    by_status = store.questions.count_by_status()
    graded = store.progress.counts(chunking, None)["everyone"]
    questions, agreed = settled(store, policy=policy, chunking=chunking)
    answerable = sum(1 for q in questions if any(g >= 1 for g in agreed.grades.get(q, {}).values()))
    return ProjectCounts(
        questions=len(questions),
        waiting=by_status.get("pending", 0),
        turns=len(store.conversations.of(questions)),
        graded=graded,
        answerable=answerable,
        rejected=by_status.get("rejected", 0),
        unanswerable=len(agreed.unanswerable),
        policy=policy,
    )


__all__ = [
    "COUNTS",
    "LABELS",
    "Count",
    "ProjectCounts",
    "counts_table",
    "project_counts",
    "project_status",
]
