"""Work assigned to reviewers (``labeler assign``): questions split among them, a share given
to two reviewers for agreement.

The split (``split``) is a pure function of the questions, the reviewers, the overlap share and
the seed: the questions are shuffled by the seed; the first ``round(overlap * n)`` go to two
reviewers each, the two with the fewest questions so far; the rest to one each, the one with
the fewest so far (ties go to the reviewer named first). So every reviewer gets the same number
of questions, give or take one, and the pairs of the overlap rotate through the reviewers.

Which questions: those named (``questions``), else the accepted questions (with ``tag``) that
nobody has been assigned yet, ``count`` of them at most (the first of the shuffle). Assigning a
question again to the same reviewer changes nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from labeler.accounts.roles import Right, may, require
from labeler.errors import LabelerError, NotFoundError, PermissionDenied
from labeler.names import check_name
from labeler.store import Store


@dataclass(frozen=True, slots=True)
class Assignment:
    question_id: str
    reviewer: str
    overlap: bool


@dataclass(frozen=True, slots=True)
class AssignResult:
    batch: str
    assignments: tuple[Assignment, ...]
    added: int  # pairs that were new (the others were assigned already)

    @property
    def per_reviewer(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for a in self.assignments:
            counts[a.reviewer] = counts.get(a.reviewer, 0) + 1
        return counts

    @property
    def questions(self) -> int:
        return len({a.question_id for a in self.assignments})

    @property
    def overlap_questions(self) -> int:
        return len({a.question_id for a in self.assignments if a.overlap})

    def as_dict(self) -> dict:
        return {
            "batch": self.batch,
            "questions": self.questions,
            "overlap_questions": self.overlap_questions,
            "added": self.added,
            "per_reviewer": self.per_reviewer,
            "assignments": [
                {"question_id": a.question_id, "reviewer": a.reviewer, "overlap": a.overlap}
                for a in self.assignments
            ],
        }


def split(
    questions: Sequence[str], reviewers: Sequence[str], *, overlap: float, seed: int
) -> list[Assignment]:
    """The split described in the module docstring, in the order of the shuffle."""
    if not reviewers:
        raise LabelerError("name at least one reviewer (--to NAME)", field="to")
    if len(set(reviewers)) != len(reviewers):
        raise LabelerError("a reviewer is named twice", field="to")
    if not 0 <= overlap <= 1:
        msg = f"the overlap is a share from 0 to 1, got {overlap}"
        raise LabelerError(msg, field="overlap")
    shared = round(overlap * len(questions))
    if shared and len(reviewers) < 2:
        raise LabelerError("an overlap needs two reviewers or more", field="overlap")
    order = sorted(questions)
    random.Random(seed).shuffle(order)
    load = dict.fromkeys(reviewers, 0)
    out: list[Assignment] = []
    for number, question in enumerate(order):
        width = 2 if number < shared else 1
        chosen = sorted(reviewers, key=lambda r: (load[r], reviewers.index(r)))[:width]
        for reviewer in chosen:
            load[reviewer] += 1
            out.append(Assignment(question, reviewer, width == 2))
    return out


def _candidates(store: Store, tag: str | None, questions: Sequence[str] | None) -> list[str]:
    accepted = set(store.questions.accepted_ids())
    if tag is not None:
        accepted = {q for q, tags in store.questions.tag_map().items() if tag in tags} & accepted
    if questions:
        missing = [q for q in questions if store.questions.get(q) is None]
        if missing:
            msg = f"unknown question {missing[0]!r}"
            raise NotFoundError(msg, field="questions")
        waiting = [q for q in questions if q not in accepted]
        if waiting:
            msg = f"question {waiting[0]!r} is not accepted (generated questions wait for review)"
            raise LabelerError(msg, field="questions")
        return list(dict.fromkeys(questions))
    taken = store.assignments.assigned_questions()
    return sorted(accepted - taken)


def _check_reviewers(store: Store, reviewers: Sequence[str]) -> list[str]:
    names = [check_name(r, field="to") for r in reviewers]
    if store.accounts.any():
        for name in names:
            account = store.accounts.get(name)
            if account is None or account["disabled"] or not may(account["role"], Right.GRADE):
                msg = f"{name!r} is not an enabled account on this project (labeler user list)"
                raise PermissionDenied(msg, field="to")
    return names


def assign(
    store: Store,
    reviewers: Sequence[str],
    *,
    actor: str,
    tag: str | None = None,
    questions: Sequence[str] | None = None,
    count: int | None = None,
    overlap: float = 0.2,
    seed: int = 0,
) -> AssignResult:
    """Split questions among ``reviewers`` and record it (one transaction): see the module
    docstring. ``count`` caps the questions taken from the shuffle."""
    require(store, actor, Right.ASSIGN)
    names = _check_reviewers(store, reviewers)
    if count is not None and count < 1:
        raise LabelerError("--count is 1 or more", field="count")
    with store.write():
        pool = _candidates(store, tag, questions)
        plan = split(pool, names, overlap=overlap, seed=seed)
        if count is not None:
            kept = list(dict.fromkeys(a.question_id for a in plan))[:count]
            plan = split(kept, names, overlap=overlap, seed=seed)
        if not plan:
            raise LabelerError("no question to assign (every one is assigned already?)")
        batch = f"assign-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S.%fZ')}"
        added = store.assignments.add(
            [(a.question_id, a.reviewer, a.overlap) for a in plan],
            batch=batch,
            actor=actor,
            at=datetime.now(UTC).isoformat(timespec="microseconds"),
        )
    return AssignResult(batch, tuple(plan), added)


def load_assignments(
    store: Store, rows: Sequence[tuple[str, str]], *, batch: str, actor: str
) -> int:
    """Record given (question, reviewer) pairs as they are (the demo's); a question given to
    two reviewers is in the overlap. Returns how many pairs were new."""
    require(store, actor, Right.ASSIGN)
    _check_reviewers(store, sorted({r for _, r in rows}))
    width: dict[str, int] = {}
    for question, _ in rows:
        width[question] = width.get(question, 0) + 1
    return store.assignments.add(
        [(q, r, width[q] > 1) for q, r in rows],
        batch=batch,
        actor=actor,
        at=datetime.now(UTC).isoformat(timespec="microseconds"),
    )


def assignment_list(store: Store, *, chunking: str | None = None) -> list[dict]:
    """Every assignment: question_id, reviewer, batch, overlap, assigned_by, assigned_at, done."""
    chunking = chunking or store.corpus.current_chunking()
    rows = store.assignments.rows(chunking)
    for row in rows:
        row["overlap"] = bool(row["overlap"])
        row["done"] = bool(row["done"])
    return rows


__all__ = [
    "AssignResult",
    "Assignment",
    "assign",
    "assignment_list",
    "load_assignments",
    "split",
]
