"""The queues a reviewer can work through, in one list, and the questions they lead to.

Every queue is listed in ``QUEUES`` below, explicitly: the grading page offers them, and
``next_question``, ``previous_question``, the pool worker and ``labeler pool`` resolve a queue's
name (``<family>:<argument>`` for a queue of a family) here.
"""

from __future__ import annotations

from labeler.conversations import order_key
from labeler.errors import LabelerError
from labeler.grading.decide import DECIDE
from labeler.grading.queue import Queue, QueueFamily, after, before
from labeler.store import Store, check_reviewer


def _by_id(store: Store, chunking: str, reviewer: str, tag: str | None) -> list[dict]:
    """Every question by id, a conversation's turns together in turn order (where its first
    turn's id would sort), so N and P walk a conversation turn by turn."""
    return sorted(store.questions.queue(chunking, reviewer, tag=tag), key=_order)


def _order(row: dict) -> tuple[str, int, str]:
    if row.get("conversation") is None:
        return order_key(row["id"], None)
    return (row["conversation"], row["turn"], row["id"])


def _assigned_first(store: Store, chunking: str, reviewer: str, tag: str | None) -> list[dict]:
    """The questions assigned to the reviewer (``labeler assign``), then the rest, each part in
    the order of ``by-id`` (a conversation's turns in order): with nothing assigned, ``by-id``."""
    mine = store.assignments.of_reviewer(reviewer)
    rows = store.questions.queue(chunking, reviewer, tag=tag)
    return sorted(rows, key=lambda r: (r["id"] not in mine, _order(r)))


DEFAULT_QUEUE = "assigned"
ASSIGNED = Queue(DEFAULT_QUEUE, "assigned to me, then the rest", _assigned_first)
BY_ID = Queue("by-id", "every question, by id (a conversation's turns in order)", _by_id)

# The one list of queues. A queue's name has no ':' (it separates a family's argument).
QUEUES: dict[str, Queue | QueueFamily] = {queue.name: queue for queue in (ASSIGNED, BY_ID, DECIDE)}


def get_queue(name: str | None) -> Queue:
    """The queue of this name (``<family>:<argument>`` for a queue of a family)."""
    if name is None:
        name = DEFAULT_QUEUE
    base, colon, argument = name.partition(":")
    if base not in QUEUES:
        msg = f"unknown queue {base!r}; choose one of: {', '.join(QUEUES)}"
        raise LabelerError(msg, field="queue")
    queue = QUEUES[base]
    if isinstance(queue, QueueFamily):
        if not colon:
            msg = f"queue {base!r} needs an argument: {base}:..."
            raise LabelerError(msg, field="queue")
        return queue.make(argument)
    if colon:
        msg = f"queue {base!r} takes no argument, got {argument!r}"
        raise LabelerError(msg, field="queue")
    return queue


def queue_rows(
    store: Store,
    reviewer: str,
    *,
    queue: str | None = None,
    tag: str | None = None,
    chunking: str | None = None,
) -> list[dict]:
    chunking = chunking or store.corpus.current_chunking()
    return get_queue(queue).rows(store, chunking, check_reviewer(reviewer), tag)


def marked_chunks(
    store: Store, question_id: str, *, queue: str | None = None, chunking: str | None = None
) -> frozenset[str]:
    """The chunks of the question that the queue wants graded first (none for most queues)."""
    found = get_queue(queue).marked
    if found is None:
        return frozenset()
    return frozenset(found(store, chunking or store.corpus.current_chunking(), question_id))


def next_question(
    store: Store,
    reviewer: str,
    current: str | None,
    *,
    queue: str | None = None,
    tag: str | None = None,
    chunking: str | None = None,
) -> str | None:
    """The question to open after ``current`` (None: the first to work on): the first question
    not yet started or partly graded walking on from ``current``, then the first skipped one;
    when everything is done, simply the next one (``labeler.grading.queue.after``)."""
    return after(queue_rows(store, reviewer, queue=queue, tag=tag, chunking=chunking), current)


def previous_question(
    store: Store,
    reviewer: str,
    current: str | None,
    *,
    queue: str | None = None,
    tag: str | None = None,
    chunking: str | None = None,
) -> str | None:
    """The question before ``current`` in the queue (wrapping), whatever its state."""
    return before(queue_rows(store, reviewer, queue=queue, tag=tag, chunking=chunking), current)


__all__ = [
    "DEFAULT_QUEUE",
    "QUEUES",
    "get_queue",
    "marked_chunks",
    "next_question",
    "previous_question",
    "queue_rows",
]
