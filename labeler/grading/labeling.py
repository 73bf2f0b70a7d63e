"""One question at a time: open it with its candidates, grade, note, mark, add a candidate.

Everything the grading page does to a question goes through here, so a test can drive it
without a browser (which question comes next is ``labeler.grading.queues``, which chunk a key
grades ``labeler.grading.cursor``). Progress is kept per question in the store after every
change, so the page's counters are one cheap count instead of a walk over every pool.

A label is **stale** when its chunk's text was replaced after it was given (``labeler import
chunks --replace-text``): it counts as ungraded, for progress and for the cursor, and exports
leave it out until the reviewer confirms it (the same grade again) or changes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from labeler.errors import NotFoundError
from labeler.grading.candidates import PoolEntry, pool
from labeler.grading.completion import save_progress
from labeler.models import Chunk, Grade, Question
from labeler.store import Store, check_reviewer

# views ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    judge: str
    grade: Grade
    reason: str | None


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
    # The judge's grade and reason, when a lead shows it (``labeler judge reveal``) and only
    # once this reviewer has a current grade of the chunk: never before their own.
    judge: JudgeVerdict | None = None

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
    progress = save_progress(
        store, question_id, chunking, [e.chunk_id for e in entries], labels, marks
    )
    complete = progress.get(reviewer, (0, 0, False))[2]
    mine = {r["chunk_id"]: r for r in labels if r["reviewer"] == reviewer}
    others: dict[str, list[tuple[str, Grade]]] = {}
    if complete:
        for r in labels:
            if r["reviewer"] != reviewer and r["state"] == "current":
                others.setdefault(r["chunk_id"], []).append((r["reviewer"], Grade(r["grade"])))
    my_marks = marks.get(reviewer, {})
    verdicts = _judge_verdicts(store, question_id, chunking, mine)
    candidates = tuple(
        CandidateView(
            chunk=chunks[e.chunk_id],
            entry=e,
            grade=Grade(mine[e.chunk_id]["grade"]) if e.chunk_id in mine else None,
            note=mine[e.chunk_id]["note"] if e.chunk_id in mine else None,
            others=tuple(others.get(e.chunk_id, ())),
            graded_text=mine[e.chunk_id]["graded_text"] if e.chunk_id in mine else None,
            judge=verdicts.get(e.chunk_id),
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


def _judge_verdicts(
    store: Store, question_id: str, chunking: str, mine: dict[str, dict]
) -> dict[str, JudgeVerdict]:
    """The shown judge's grade of each chunk this reviewer has a current grade of (a stale
    grade is no grade: the judge stays hidden until it is confirmed); none when no judge is
    shown."""
    judge = store.ratings.revealed_judge()
    graded = {c for c, row in mine.items() if row["graded_text"] is None}
    if judge is None or not graded:
        return {}
    return {
        chunk: JudgeVerdict(judge, Grade(int(value)), reason)
        for chunk, (value, reason) in store.ratings.relevance_verdicts(
            judge, chunking, question_id
        ).items()
        if chunk in graded
    }


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


# progress ------------------------------------------------------------------------------------


def refresh_progress(store: Store, question_id: str, chunking: str) -> None:
    """Recompute who has fully graded this question, after anything that may change it."""
    entries = pool(store, _question(store, question_id), chunking)
    save_progress(
        store,
        question_id,
        chunking,
        [e.chunk_id for e in entries],
        store.labels.question_labels(question_id, chunking),
        store.labels.marks(question_id, chunking),
    )


def progress(store: Store, reviewer: str | None, *, chunking: str | None = None) -> dict[str, int]:
    """Questions fully graded by this reviewer and by everyone, the total, and grades today."""
    chunking = chunking or store.corpus.current_chunking()
    counts = store.progress.counts(chunking, reviewer)
    midnight = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    counts["today"] = store.progress.grades_since(reviewer, midnight) if reviewer else 0
    return counts


__all__ = [
    "CandidateView",
    "JudgeVerdict",
    "QuestionView",
    "add_candidate",
    "grade",
    "mark",
    "open_question",
    "progress",
    "refresh_progress",
    "set_note",
]
