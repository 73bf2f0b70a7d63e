"""Who has fully graded a question: every candidate in its pool has a current grade, or the
question is marked unanswerable. Kept per question in the store (``store.progress``) after
everything that can change it: a grade, a mark, an import, and a pool that gains or loses
candidates (``candidates.ensure_pools``, when a search pool or a dense pool is computed), so
the pages' counters are one cheap count instead of a walk over every pool.
"""

from __future__ import annotations

from collections.abc import Iterable

from labeler.store import EVERYONE, Store


def compute_progress(
    chunk_ids: Iterable[str], labels: list[dict], marks: dict[str, dict]
) -> dict[str, tuple[int, int, bool]]:
    """Fully graded: every pooled chunk (``chunk_ids``: the pool's) has a current grade, or the
    question is marked unanswerable. Per reviewer, and for everyone together (any reviewer's
    grade counts)."""
    pool_ids = set(chunk_ids)
    size = len(pool_ids)
    by_reviewer: dict[str, set[str]] = {}
    for row in labels:
        if row["state"] == "current":
            by_reviewer.setdefault(row["reviewer"], set()).add(row["chunk_id"])
    reviewers = set(by_reviewer) | set(marks) | {r["reviewer"] for r in labels}
    result: dict[str, tuple[int, int, bool]] = {}
    for reviewer in reviewers:
        graded = len(by_reviewer.get(reviewer, set()) & pool_ids)
        done = marks.get(reviewer, {}).get("unanswerable", False) or (size > 0 and graded == size)
        result[reviewer] = (size, graded, done)
    anyone = set().union(*by_reviewer.values()) & pool_ids if by_reviewer else set()
    result[EVERYONE] = (
        size,
        len(anyone),
        any(m["unanswerable"] for m in marks.values()) or (size > 0 and len(anyone) == size),
    )
    return result


def save_progress(
    store: Store,
    question_id: str,
    chunking: str,
    chunk_ids: Iterable[str],
    labels: list[dict],
    marks: dict[str, dict],
) -> dict[str, tuple[int, int, bool]]:
    """Compute progress from what was read; write it only when it changed, so opening a
    question is a read. The write re-reads labels and marks inside its transaction: progress
    computed from a read that another reviewer's grade overtook is never stored."""
    chunk_ids = set(chunk_ids)
    result = compute_progress(chunk_ids, labels, marks)
    stored = store.progress.of_question(question_id, chunking)
    if all(stored.get(r) == v for r, v in result.items()):
        return result
    with store.write():
        result = compute_progress(
            chunk_ids,
            store.labels.question_labels(question_id, chunking),
            store.labels.marks(question_id, chunking),
        )
        store.progress.save(question_id, chunking, [(r, *v) for r, v in result.items()])
    return result


__all__ = ["compute_progress", "save_progress"]
