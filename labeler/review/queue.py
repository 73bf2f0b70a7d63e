"""The review queue: which generated questions, in which order, and moving through them.

The order is stored per question (``review_queue.queue_key``, see ``flagging.queue_key``):
duplicate clusters first with their members together, then other flagged questions by flag,
then the rest. Moving to the next question is one indexed query whatever the queue's size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from labeler.store import QueueFilter, Store

STATUS_RANK = {"accepted": 0, "pending": 1, "rejected": 2}


def next_question(
    store: Store, where: QueueFilter, current: str | None = None, *, skip: Sequence[str] = ()
) -> str | None:
    """The question after ``current`` in queue order (wrapping round), leaving out ``skip``
    while anything else is left; None when the queue is empty."""
    key = store.flags.queue_key(current) if current else None
    avoid = [*skip, *([current] if current else [])]
    for after, leave_out in ((key, avoid), (None, avoid), (key, []), (None, [])):
        found = store.flags.queue_next(where, after=after, skip=leave_out)
        if found:
            return found[0]
    return None


def previous_question(store: Store, where: QueueFilter, current: str) -> str | None:
    key = store.flags.queue_key(current)
    if key is None:
        return None
    found = store.flags.queue_next(where, before=key)
    return found[0] if found else None


def position(store: Store, where: QueueFilter, current: str) -> int | None:
    """1-based place of ``current`` in the queue, or None when it is not in it."""
    key = store.flags.queue_key(current)
    if key is None or not store.flags.in_queue(where, current):
        return None
    return store.flags.queue_position(where, key) + 1


def keepers(store: Store, where: QueueFilter) -> set[str]:
    """The first of each duplicate cluster among the questions of ``where``: the cluster's
    human question when it has one (then every generated member repeats it), else an accepted
    member, else the first pending one by id. A batch on "all but the first" spares these."""
    kept = set()
    for members in store.flags.duplicate_clusters(where).values():
        if any(m["origin"] != "generated" for m in members):
            continue
        ranked = sorted(members, key=lambda m: (STATUS_RANK.get(m["status"], 9), m["id"]))
        kept.add(ranked[0]["id"])
    return kept


def all_but_first(store: Store, where: QueueFilter) -> QueueFilter:
    """``where`` without the first question of each duplicate cluster."""
    return replace(where, exclude=(*where.exclude, *sorted(keepers(store, where))))


def list_questions(store: Store, where: QueueFilter) -> list[dict]:
    """The questions of the queue in order, as ``labeler review list --format json`` prints
    them: id, status, generator, synthesizer, persona, text, flags (name, reason, related)."""
    return store.flags.queue_rows_full(where)


__all__ = [
    "QueueFilter",
    "all_but_first",
    "keepers",
    "list_questions",
    "next_question",
    "position",
    "previous_question",
]
