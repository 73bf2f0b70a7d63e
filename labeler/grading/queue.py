"""What a queue is, and how a reviewer walks one.

A queue is an order in which a reviewer works through the questions; its rows carry each
question's state (``todo``, ``started``, ``skipped`` or ``done``, as ``store.questions.queue``
gives them). The walking rule is here once: the grading page's Next, the pool worker's look
ahead and ``labeler pool`` all go through ``upcoming``. The queues themselves are listed in
``labeler.grading.queues``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from labeler.store import Store


@dataclass(frozen=True, slots=True)
class Queue:
    """An order in which a reviewer works through the questions.

    ``rows(store, chunking, reviewer, tag)`` returns the queue's questions in the queue's order,
    each a dict with at least ``id`` and ``state`` (``todo``, ``started``, ``skipped`` or
    ``done``, as ``store.questions.queue`` gives them). Another order is a new ``Queue`` added to
    the list in ``labeler.grading.queues``: the grading page offers every queue listed there,
    and ``next_question`` walks any of them the same way.

    ``marked(store, chunking, question_id)``, if given, names the chunks of a question that the
    queue wants graded first (the chunks that decide between two runs, say): the page marks
    them, and the cursor visits them before the other chunks still to grade.
    """

    name: str
    title: str
    rows: Callable[[Store, str, str, str | None], list[dict]]
    marked: Callable[[Store, str, str], Collection[str]] | None = None


@dataclass(frozen=True, slots=True)
class QueueFamily:
    """Queues that take an argument: ``<name>:<argument>`` names one of them, which
    ``make(argument)`` returns (a ``LabelerError`` for a bad argument). "decide A vs B" is one:
    ``decide:hybrid,bm25,ndcg@10,median`` is the queue of that comparison. Such a name goes
    wherever a queue's name does (``next_question``, the pool worker's ``follow``)."""

    name: str
    title: str
    make: Callable[[str], Queue]

    def named(self, argument: str) -> str:
        return f"{self.name}:{argument}"


def upcoming(rows: Sequence[dict], current: str | None, count: int) -> list[str]:
    """The next ``count`` questions a reviewer on ``current`` opens by pressing Next: walking
    the queue ``rows`` on from ``current`` and wrapping, those still to do or partly graded,
    then the skipped ones. Done questions are left out."""
    ids = [r["id"] for r in rows]
    start = ids.index(current) + 1 if current in ids else 0
    ordered = [r for r in rows[start:] + rows[:start] if r["id"] != current]
    ahead = [r["id"] for r in ordered if r["state"] in ("todo", "started")]
    ahead += [r["id"] for r in ordered if r["state"] == "skipped"]
    return ahead[:count]


def after(rows: Sequence[dict], current: str | None) -> str | None:
    """The question Next opens from ``current``: the first ``upcoming`` one; when every
    question is done, simply the next one (wrapping). None when the queue is empty."""
    ahead = upcoming(rows, current, 1)
    if ahead:
        return ahead[0]
    ids = [r["id"] for r in rows]
    if not ids:
        return None
    return ids[(ids.index(current) + 1) % len(ids)] if current in ids else ids[0]


def before(rows: Sequence[dict], current: str | None) -> str | None:
    """The question Previous opens from ``current``: the one before it (wrapping), whatever
    its state; None when ``current`` is not in the queue."""
    ids = [r["id"] for r in rows]
    if current not in ids:
        return None
    return ids[ids.index(current) - 1]


__all__ = ["Queue", "QueueFamily", "after", "before", "upcoming"]
