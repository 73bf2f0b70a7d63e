"""The team's figures, for a lead (the Team page): per reviewer, the work assigned and done, the
pace, the agreement on the overlap, when they were last active; and the questions waiting for
adjudication.

- **assigned / done**: questions assigned to the reviewer (``labeler assign``), and those of
  them the reviewer has fully graded (or marked unanswerable).
- **today / this week**: grades given by hand (not imports) since local midnight, and since
  Monday's.
- **median seconds per grade**: the median time between two consecutive grades of the
  reviewer's last ``PACE_GRADES``, leaving out gaps over ``BREAK_SECONDS`` (a break, not a
  grade).
- **kappa**: quadratic-weighted Cohen's kappa of the reviewer's grades against the other
  reviewer's, on every chunk both graded of the questions assigned to both (the overlap), each
  grade as it stood before its reviewer saw the other's (``store.labels.blind_labels``); None
  below ``MIN_SHARED`` shared chunks, where a kappa says nothing.
- **last active**: the reviewer's last change to a label or mark.

Who is listed: every account, every reviewer with work assigned, every reviewer with labels in
the chunking.
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from labeler import agreement
from labeler.accounts.roles import Right, require
from labeler.grading.disputes import disputes
from labeler.store import Store

PACE_GRADES = 500
BREAK_SECONDS = 600.0
MIN_SHARED = 10
GRADES = 3  # 0, 1, 2


@dataclass(frozen=True, slots=True)
class ReviewerFigures:
    reviewer: str
    role: str | None  # the account's role; None for a reviewer without an account
    assigned: int
    done: int
    today: int
    week: int
    median_seconds: float | None
    kappa: float | None
    shared: int  # chunks of the overlap graded by the reviewer and another
    last_active: str | None

    def as_dict(self) -> dict:
        return {
            "reviewer": self.reviewer,
            "role": self.role,
            "assigned": self.assigned,
            "done": self.done,
            "grades_today": self.today,
            "grades_this_week": self.week,
            "median_seconds_per_grade": self.median_seconds,
            "kappa": self.kappa,
            "shared_chunks": self.shared,
            "last_active": self.last_active,
        }


@dataclass(frozen=True, slots=True)
class Waiting:
    """A question with disputed chunks still to settle."""

    question_id: str
    text: str
    open_chunks: int
    reviewers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Team:
    reviewers: tuple[ReviewerFigures, ...]
    waiting: tuple[Waiting, ...]
    overlap_questions: int


def median_pace(times: list[str]) -> float | None:
    """The median of the gaps between consecutive times (ISO text), gaps over BREAK_SECONDS
    left out; None without a gap."""
    moments = [datetime.fromisoformat(t) for t in times]
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(moments)]
    kept = [g for g in gaps if 0 <= g <= BREAK_SECONDS]
    return statistics.median(kept) if kept else None


def _since(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def overlap_kappas(
    pairs: list[tuple[str, str, str]], grades: dict[tuple[str, str], dict[str, int]]
) -> dict[str, tuple[float | None, int]]:
    """{reviewer: (kappa, shared chunks)} on the overlap: for each (question, a, b) of
    ``pairs``, every chunk of the question both a and b graded in ``grades`` ({(question,
    chunk): {reviewer: grade}}) gives a pair of grades to each of the two."""
    firsts: dict[str, list[int]] = {}
    seconds: dict[str, list[int]] = {}
    by_question: dict[str, list[dict[str, int]]] = {}
    for (question, _), given in grades.items():
        by_question.setdefault(question, []).append(given)
    for question, a, b in pairs:
        for given in by_question.get(question, ()):
            if a in given and b in given:
                for one, other in ((a, b), (b, a)):
                    firsts.setdefault(one, []).append(given[one])
                    seconds.setdefault(one, []).append(given[other])
    out: dict[str, tuple[float | None, int]] = {}
    for reviewer, mine in firsts.items():
        theirs = seconds[reviewer]
        kappa = (
            agreement.cohen_kappa(mine, theirs, categories=GRADES, weights="quadratic")
            if len(mine) >= MIN_SHARED
            else None
        )
        out[reviewer] = (kappa, len(mine))
    return out


def team(
    store: Store, *, actor: str, chunking: str | None = None, now: datetime | None = None
) -> Team:
    """The Team page's figures (module docstring); a lead's or an owner's to see."""
    require(store, actor, Right.TEAM)
    chunking = chunking or store.corpus.current_chunking()
    moment = (now or datetime.now(UTC)).astimezone()
    midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    monday = midnight - timedelta(days=midnight.weekday())
    with store.snapshot():
        accounts = {a["name"]: a for a in store.accounts.all()}
        assigned = store.assignments.rows(chunking)
        pairs = store.assignments.overlap_pairs()
        overlap = {q for q, _, _ in pairs}
        grades: dict[tuple[str, str], dict[str, int]] = {}
        for question, chunk, reviewer, grade in store.labels.blind_labels(chunking):
            if question in overlap:
                grades.setdefault((question, chunk), {})[reviewer] = grade
        labelled = set(store.labels.counts(chunking)["by_reviewer"])
        names = sorted(set(accounts) | {r["reviewer"] for r in assigned} | labelled)
        today = store.assignments.grades_since(names, _since(midnight))
        week = store.assignments.grades_since(names, _since(monday))
        last = store.assignments.last_active()
        paces = {
            name: median_pace(store.assignments.grade_times(name, limit=PACE_GRADES))
            for name in names
        }
        found = disputes(store, chunking=chunking)
    kappas = overlap_kappas(pairs, grades)
    rows = []
    for name in names:
        mine = [r for r in assigned if r["reviewer"] == name]
        kappa, shared = kappas.get(name, (None, 0))
        rows.append(
            ReviewerFigures(
                reviewer=name,
                role=accounts[name]["role"] if name in accounts else None,
                assigned=len(mine),
                done=sum(bool(r["done"]) for r in mine),
                today=today.get(name, 0),
                week=week.get(name, 0),
                median_seconds=paces[name],
                kappa=kappa,
                shared=shared,
                last_active=last.get(name),
            )
        )
    waiting = tuple(
        Waiting(
            q.question_id,
            q.text,
            len(q.chunks) - q.settled,
            tuple(sorted({v.reviewer for c in q.chunks for v in c.votes})),
        )
        for q in found.questions
        if not q.done
    )
    return Team(tuple(rows), waiting, len(overlap))


__all__ = [
    "BREAK_SECONDS",
    "MIN_SHARED",
    "ReviewerFigures",
    "Team",
    "Waiting",
    "median_pace",
    "overlap_kappas",
    "team",
]
