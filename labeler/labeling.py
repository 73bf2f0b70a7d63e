"""The grading loop: which question next, open it with its candidates, grade, mark, add, settle.

Everything the grading page does goes through here, so a test can drive it without a browser:
the queues (which question a reviewer works on next), the cursor (which chunk a grade key
grades), the writes, and the adjudication of a (question, chunk) for every export. Progress is
kept per question in the store after every change, so the page's counters are one cheap count
instead of a walk over every pool.

A label is **stale** when its chunk's text was replaced after it was given (``labeler import
chunks --replace-text``): it counts as ungraded, for progress and for the cursor, and exports
leave it out until the reviewer confirms it (the same grade again) or changes it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from labeler.candidates import PoolEntry, pool
from labeler.errors import LabelerError, NotFoundError
from labeler.models import Chunk, Grade, Question
from labeler.store import EVERYONE, Store, check_reviewer

# views ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CandidateView:
    chunk: Chunk
    entry: PoolEntry
    # The reviewer's grade; for a stale label, the grade given for the old text.
    grade: Grade | None
    note: str | None
    # Other reviewers' grades; empty until the reviewer has finished the question themselves.
    others: tuple[tuple[str, Grade], ...]
    # The text the grade was given for, when the chunk's text has changed since (else None).
    graded_text: str | None = None

    @property
    def stale(self) -> bool:
        return self.graded_text is not None

    @property
    def needs_grade(self) -> bool:
        """Ungraded, or graded for a text the chunk no longer has."""
        return self.grade is None or self.stale


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
        """Chunks with a current grade (a stale grade counts as ungraded)."""
        return sum(not c.needs_grade for c in self.candidates)

    @property
    def stale(self) -> int:
        return sum(c.stale for c in self.candidates)


def _question(store: Store, question_id: str) -> Question:
    question = store.questions.get(question_id)
    if question is None:
        msg = f"unknown question {question_id!r}"
        raise NotFoundError(msg, field="question_id")
    return question


def open_question(
    store: Store, question_id: str, reviewer: str, *, chunking: str | None = None
) -> QuestionView:
    """Everything the grading page shows for one question and one reviewer."""
    reviewer = check_reviewer(reviewer)
    chunking = chunking or store.corpus.current_chunking()
    question = _question(store, question_id)
    entries = pool(store, question, chunking)
    chunks = store.corpus.get_chunks(chunking, [e.chunk_id for e in entries])
    labels = store.labels.question_labels(question_id, chunking)
    marks = store.labels.marks(question_id, chunking)
    progress = _save_progress(store, question_id, chunking, entries, labels, marks)
    complete = progress.get(reviewer, (0, 0, False))[2]
    mine = {r["chunk_id"]: r for r in labels if r["reviewer"] == reviewer}
    others: dict[str, list[tuple[str, Grade]]] = {}
    if complete:
        for r in labels:
            if r["reviewer"] != reviewer and r["state"] == "current":
                others.setdefault(r["chunk_id"], []).append((r["reviewer"], Grade(r["grade"])))
    my_marks = marks.get(reviewer, {})
    candidates = tuple(
        CandidateView(
            chunk=chunks[e.chunk_id],
            entry=e,
            grade=Grade(mine[e.chunk_id]["grade"]) if e.chunk_id in mine else None,
            note=mine[e.chunk_id]["note"] if e.chunk_id in mine else None,
            others=tuple(others.get(e.chunk_id, ())),
            graded_text=mine[e.chunk_id]["graded_text"] if e.chunk_id in mine else None,
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


# queues: which question next ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Queue:
    """An order in which a reviewer works through the questions.

    ``rows(store, chunking, reviewer, tag)`` returns the queue's questions in the queue's order,
    each a dict with at least ``id`` and ``state`` (``todo``, ``started``, ``skipped`` or
    ``done``, as ``store.questions.queue`` gives them). Another order is a new ``Queue`` passed to
    ``register_queue``: the grading page offers every registered queue, and ``next_question``
    walks any of them the same way.

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


def _by_id(store: Store, chunking: str, reviewer: str, tag: str | None) -> list[dict]:
    return sorted(store.questions.queue(chunking, reviewer, tag=tag), key=lambda r: r["id"])


_Q = TypeVar("_Q", Queue, QueueFamily)
DEFAULT_QUEUE = "by-id"
QUEUES: dict[str, Queue | QueueFamily] = {
    DEFAULT_QUEUE: Queue(DEFAULT_QUEUE, "every question, by id", _by_id),
}


def register_queue(queue: _Q) -> _Q:
    """Add a queue or a family of queues (or replace the one of that name); returns it."""
    if ":" in queue.name:
        msg = f"a queue's name has no ':' (it separates a family's argument): {queue.name!r}"
        raise ValueError(msg)
    QUEUES[queue.name] = queue
    return queue


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
    """The question to open after ``current`` (None: the first to work on).

    Walking the queue from just after ``current`` and wrapping round: the first question not
    yet started or partly graded, then the first skipped one; when everything is done, simply
    the next one. None when the queue is empty.
    """
    rows = queue_rows(store, reviewer, queue=queue, tag=tag, chunking=chunking)
    if not rows:
        return None
    ids = [r["id"] for r in rows]
    start = ids.index(current) + 1 if current in ids else 0
    ordered = rows[start:] + rows[:start]
    for wanted in (("todo", "started"), ("skipped",)):
        for row in ordered:
            if row["state"] in wanted and row["id"] != current:
                return row["id"]
    if ordered[0]["id"] != current or len(ordered) == 1:
        return ordered[0]["id"]
    return ordered[1]["id"]


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
    ids = [r["id"] for r in queue_rows(store, reviewer, queue=queue, tag=tag, chunking=chunking)]
    if current not in ids:
        return None
    return ids[ids.index(current) - 1]


# the cursor: which chunk a grade key grades -------------------------------------------------


def first_to_grade(view: QuestionView, prefer: Collection[str] = ()) -> int:
    """Where the cursor starts on a question: its first chunk that needs a grade, one of
    ``prefer`` (chunk ids, such as those a queue marks) if any of them needs one; else 0."""
    needing = [i for i, c in enumerate(view.candidates) if c.needs_grade]
    first = needing[0] if needing else 0
    return next((i for i in needing if view.candidates[i].chunk.id in prefer), first)


def after_grade(needs_grade: Sequence[bool], cursor: int, prefer: Collection[int] = ()) -> int:
    """Where the cursor goes once the chunk at ``cursor`` is graded: the next chunk (wrapping)
    that still needs a grade, one at a position in ``prefer`` (a queue's marked chunks) if any
    of them still needs one; when none needs a grade, simply the next one (staying on the last).

    ``needs_grade`` is per candidate, the chunk just graded included (its value is ignored).
    """
    count = len(needs_grade)
    if count == 0:
        return 0
    waiting = [i for i in ((cursor + step) % count for step in range(1, count)) if needs_grade[i]]
    if not waiting:
        return min(cursor + 1, count - 1)
    return next((i for i in waiting if i in prefer), waiting[0])


def move(count: int, cursor: int, step: int) -> int:
    """The cursor moved by ``step`` chunks (J/K), wrapping round."""
    return (cursor + step) % count if count else 0


# writes --------------------------------------------------------------------------------------


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
    """Record a grade (and note); returns the previous grade. Progress follows at once.

    The same grade on a stale label confirms it for the chunk's new text.
    """
    chunking = chunking or store.corpus.current_chunking()
    with store.write():
        previous = store.labels.set_grade(
            question_id, chunking, chunk_id, reviewer, int(value), note=note
        )
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
) -> bool:
    """A note explains a grade: it needs one, and never changes it (read and written in one
    transaction, so a regrade in another tab is never undone). True if the note changed."""
    chunking = chunking or store.corpus.current_chunking()
    return store.labels.set_note(question_id, chunking, chunk_id, reviewer, note)


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
    chunking = chunking or store.corpus.current_chunking()
    with store.write():
        if unanswerable is not None:
            store.labels.set_mark(
                question_id, chunking, reviewer, mark="unanswerable", value=unanswerable
            )
        if skipped is not None:
            store.labels.set_mark(question_id, chunking, reviewer, mark="skipped", value=skipped)
        refresh_progress(store, question_id, chunking)


def add_candidate(
    store: Store, question_id: str, chunk_id: str, reviewer: str, *, chunking: str | None = None
) -> bool:
    """Add a chunk found with the search box to the question's pool; True if it was new."""
    chunking = chunking or store.corpus.current_chunking()
    reviewer = check_reviewer(reviewer)
    _question(store, question_id)
    if store.corpus.get_chunk(chunking, chunk_id) is None:
        msg = f"unknown chunk {chunk_id!r} in chunking {chunking!r}"
        raise NotFoundError(msg, field="chunk_id")
    with store.write():
        added = store.pools.add(
            question_id, chunking, [chunk_id], source="search", added_by=reviewer
        )
        refresh_progress(store, question_id, chunking)
    return added > 0


def adjudicate(
    store: Store,
    question_id: str,
    chunk_id: str,
    grade: int | None,
    reviewer: str,
    note: str | None = None,
    *,
    chunking: str | None = None,
) -> int | None:
    """Settle the grade of (question, chunk) for every future export; ``None`` withdraws it.

    An adjudicated grade wins over the reviewers' grades (see ``labeler.exporters.consensus``).
    Returns the previously adjudicated grade; the act is kept in the label history (actions
    ``adjudicate`` and ``unadjudicate``, with who, when, old and new grade and the note), which
    ``adjudications`` lists.
    """
    chunking = chunking or store.corpus.current_chunking()
    return store.adjudications.set(question_id, chunking, chunk_id, grade, reviewer, note=note)


def adjudication_history(
    store: Store, question_id: str, chunk_id: str, *, chunking: str | None = None
) -> list[dict]:
    """Every adjudication of (question, chunk), oldest first: reviewer, action, old_grade,
    new_grade, note, at."""
    chunking = chunking or store.corpus.current_chunking()
    return [
        {k: v for k, v in event.items() if k != "chunk_id"}
        for event in store.labels.history(question_id, chunking)
        if event["chunk_id"] == chunk_id and event["action"] in ("adjudicate", "unadjudicate")
    ]


# progress ------------------------------------------------------------------------------------


def refresh_progress(store: Store, question_id: str, chunking: str) -> None:
    """Recompute who has fully graded this question, after anything that may change it."""
    entries = pool(store, _question(store, question_id), chunking)
    _save_progress(
        store,
        question_id,
        chunking,
        entries,
        store.labels.question_labels(question_id, chunking),
        store.labels.marks(question_id, chunking),
    )


def _compute_progress(
    entries: list[PoolEntry], labels: list[dict], marks: dict[str, dict]
) -> dict[str, tuple[int, int, bool]]:
    """Fully graded: every pooled chunk has a current grade, or the question is marked
    unanswerable. Per reviewer, and for everyone together (any reviewer's grade counts)."""
    pool_ids = {e.chunk_id for e in entries}
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


def _save_progress(
    store: Store,
    question_id: str,
    chunking: str,
    entries: list[PoolEntry],
    labels: list[dict],
    marks: dict[str, dict],
) -> dict[str, tuple[int, int, bool]]:
    """Compute progress from what was read; write it only when it changed, so opening a
    question is a read. The write re-reads labels and marks inside its transaction: progress
    computed from a read that another reviewer's grade overtook is never stored."""
    result = _compute_progress(entries, labels, marks)
    stored = store.progress.of_question(question_id, chunking)
    if all(stored.get(r) == v for r, v in result.items()):
        return result
    with store.write():
        result = _compute_progress(
            entries,
            store.labels.question_labels(question_id, chunking),
            store.labels.marks(question_id, chunking),
        )
        store.progress.save(question_id, chunking, [(r, *v) for r, v in result.items()])
    return result


def progress(store: Store, reviewer: str | None, *, chunking: str | None = None) -> dict[str, int]:
    """Questions fully graded by this reviewer and by everyone, the total, and grades today."""
    chunking = chunking or store.corpus.current_chunking()
    counts = store.progress.counts(chunking, reviewer)
    midnight = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    counts["today"] = store.progress.grades_since(reviewer, midnight) if reviewer else 0
    return counts


__all__ = [
    "DEFAULT_QUEUE",
    "QUEUES",
    "CandidateView",
    "QuestionView",
    "Queue",
    "QueueFamily",
    "add_candidate",
    "adjudicate",
    "adjudication_history",
    "after_grade",
    "first_to_grade",
    "get_queue",
    "grade",
    "mark",
    "marked_chunks",
    "move",
    "next_question",
    "open_question",
    "previous_question",
    "progress",
    "queue_rows",
    "refresh_progress",
    "register_queue",
    "set_note",
]
