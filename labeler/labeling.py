"""The grading loop: open a question with its candidates, grade, mark, add, keep progress.

Everything the grading page does goes through here, so a test can drive it without a browser.
Progress is kept per question in the store after every change, so the page's counters are one
cheap count instead of a walk over every pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from labeler.candidates import PoolEntry, pool
from labeler.errors import LabelerError, NotFoundError
from labeler.models import Chunk, Grade, Question
from labeler.store import EVERYONE, Store, check_reviewer


@dataclass(frozen=True, slots=True)
class CandidateView:
    chunk: Chunk
    entry: PoolEntry
    grade: Grade | None
    note: str | None
    # Other reviewers' grades; empty until the reviewer has finished the question themselves.
    others: tuple[tuple[str, Grade], ...]


@dataclass(frozen=True, slots=True)
class QuestionView:
    question: Question
    chunking: str
    reviewer: str
    candidates: tuple[CandidateView, ...]
    unanswerable: bool
    skipped: bool
    complete: bool
    others_visible: bool
    # Reviewers (other than this one) who marked the question unanswerable; shown once visible.
    others_unanswerable: tuple[str, ...]

    @property
    def graded(self) -> int:
        return sum(c.grade is not None for c in self.candidates)


def _question(store: Store, question_id: str) -> Question:
    question = store.get_question(question_id)
    if question is None:
        msg = f"unknown question {question_id!r}"
        raise NotFoundError(msg, field="question_id")
    return question


def open_question(
    store: Store, question_id: str, reviewer: str, *, chunking: str | None = None
) -> QuestionView:
    """Everything the grading page shows for one question and one reviewer."""
    reviewer = check_reviewer(reviewer)
    chunking = chunking or store.current_chunking()
    question = _question(store, question_id)
    entries = pool(store, question, chunking)
    chunks = store.get_chunks(chunking, [e.chunk_id for e in entries])
    labels = store.question_labels(question_id, chunking)
    marks = store.marks(question_id, chunking)
    progress = _save_progress(store, question_id, chunking, entries, labels, marks)
    complete = progress.get(reviewer, (0, 0, False))[2]
    mine = {r["chunk_id"]: r for r in labels if r["reviewer"] == reviewer}
    others: dict[str, list[tuple[str, Grade]]] = {}
    if complete:
        for r in labels:
            if r["reviewer"] != reviewer:
                others.setdefault(r["chunk_id"], []).append((r["reviewer"], Grade(r["grade"])))
    my_marks = marks.get(reviewer, {})
    candidates = tuple(
        CandidateView(
            chunk=chunks[e.chunk_id],
            entry=e,
            grade=Grade(mine[e.chunk_id]["grade"]) if e.chunk_id in mine else None,
            note=mine[e.chunk_id]["note"] if e.chunk_id in mine else None,
            others=tuple(others.get(e.chunk_id, ())),
        )
        for e in entries
        if e.chunk_id in chunks
    )
    return QuestionView(
        question=question,
        chunking=chunking,
        reviewer=reviewer,
        candidates=candidates,
        unanswerable=my_marks.get("unanswerable", False),
        skipped=my_marks.get("skipped", False),
        complete=complete,
        others_visible=complete,
        others_unanswerable=tuple(
            sorted(r for r, m in marks.items() if r != reviewer and m["unanswerable"])
        )
        if complete
        else (),
    )


def grade(
    store: Store,
    question_id: str,
    chunk_id: str,
    reviewer: str,
    value: int,
    *,
    note: str | None = None,
    chunking: str | None = None,
) -> int | None:
    """Record a grade (and note); returns the previous grade. Progress follows at once."""
    chunking = chunking or store.current_chunking()
    with store.write():
        previous = store.set_grade(question_id, chunking, chunk_id, reviewer, int(value), note=note)
        refresh_progress(store, question_id, chunking)
    return previous


def set_note(
    store: Store,
    question_id: str,
    chunk_id: str,
    reviewer: str,
    note: str,
    *,
    chunking: str | None = None,
) -> None:
    """A note needs a grade to hang on: the note explains the grade."""
    chunking = chunking or store.current_chunking()
    current = {
        r["chunk_id"]: r["grade"]
        for r in store.question_labels(question_id, chunking)
        if r["reviewer"] == reviewer
    }
    if chunk_id not in current:
        msg = "grade the chunk before adding a note"
        raise LabelerError(msg, field="note")
    store.set_grade(question_id, chunking, chunk_id, reviewer, current[chunk_id], note=note)


def mark(
    store: Store,
    question_id: str,
    reviewer: str,
    *,
    unanswerable: bool | None = None,
    skipped: bool | None = None,
    chunking: str | None = None,
) -> None:
    """Mark a question unanswerable (no chunk in the corpus answers it) or skipped, or unmark."""
    chunking = chunking or store.current_chunking()
    with store.write():
        if unanswerable is not None:
            store.set_mark(question_id, chunking, reviewer, mark="unanswerable", value=unanswerable)
        if skipped is not None:
            store.set_mark(question_id, chunking, reviewer, mark="skipped", value=skipped)
        refresh_progress(store, question_id, chunking)


def add_candidate(
    store: Store, question_id: str, chunk_id: str, reviewer: str, *, chunking: str | None = None
) -> bool:
    """Add a chunk found with the search box to the question's pool; True if it was new."""
    chunking = chunking or store.current_chunking()
    reviewer = check_reviewer(reviewer)
    _question(store, question_id)
    if store.get_chunk(chunking, chunk_id) is None:
        msg = f"unknown chunk {chunk_id!r} in chunking {chunking!r}"
        raise NotFoundError(msg, field="chunk_id")
    with store.write():
        added = store.add_to_pool(
            question_id, chunking, [chunk_id], source="search", added_by=reviewer
        )
        refresh_progress(store, question_id, chunking)
    return added > 0


def refresh_progress(store: Store, question_id: str, chunking: str) -> None:
    """Recompute who has fully graded this question, after anything that may change it."""
    entries = pool(store, _question(store, question_id), chunking)
    _save_progress(
        store,
        question_id,
        chunking,
        entries,
        store.question_labels(question_id, chunking),
        store.marks(question_id, chunking),
    )


def _save_progress(
    store: Store,
    question_id: str,
    chunking: str,
    entries: list[PoolEntry],
    labels: list[dict],
    marks: dict[str, dict],
) -> dict[str, tuple[int, int, bool]]:
    """Fully graded: every pooled chunk has a grade, or the question is marked unanswerable.

    Per reviewer, and for everyone together (any reviewer's grade counts). Written only when it
    changed, so opening a question is a read.
    """
    pool_ids = {e.chunk_id for e in entries}
    size = len(pool_ids)
    by_reviewer: dict[str, set[str]] = {}
    for row in labels:
        by_reviewer.setdefault(row["reviewer"], set()).add(row["chunk_id"])
    reviewers = set(by_reviewer) | set(marks)
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
    stored = store.question_progress(question_id, chunking)
    if any(stored.get(r) != v for r, v in result.items()):
        store.save_progress(question_id, chunking, [(r, *v) for r, v in result.items()])
    return result


def progress(store: Store, reviewer: str | None, *, chunking: str | None = None) -> dict[str, int]:
    """Questions fully graded by this reviewer and by everyone, the total, and grades today."""
    chunking = chunking or store.current_chunking()
    counts = store.progress_counts(chunking, reviewer)
    midnight = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    counts["today"] = store.grades_since(reviewer, midnight) if reviewer else 0
    return counts


__all__ = [
    "CandidateView",
    "QuestionView",
    "add_candidate",
    "grade",
    "mark",
    "open_question",
    "progress",
    "refresh_progress",
    "set_note",
]
