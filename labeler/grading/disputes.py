"""Where reviewers disagree on relevance grades, and settling it: the adjudication page's core.

A chunk is disputed when the reviewers of its question gave it different grades, a reviewer who
marked the question unanswerable counting as a 0 on the chunks others graded (the export's
consensus rules, ``labeler.grading.consensus``, so the two never differ on what needs
settling). A lead settles a disputed chunk with an adjudication, which every later export
takes as the chunk's grade; it is kept in the label history. Settled chunks stay listed, with
their final grade, so progress shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeler.accounts.roles import Right, require
from labeler.grading.consensus import consensus
from labeler.models import GRADE_LABELS, Grade
from labeler.store import Store, check_reviewer


@dataclass(frozen=True, slots=True)
class Vote:
    reviewer: str
    grade: int
    how: str  # "grade", or "unanswerable" (a 0 implied by the reviewer's mark)
    note: str | None

    @property
    def label(self) -> str:
        if self.how == "unanswerable":
            return "unanswerable (0)"
        return GRADE_LABELS[Grade(self.grade)]


@dataclass(frozen=True, slots=True)
class DisputedChunk:
    chunk_id: str
    title: str | None
    text: str | None
    votes: tuple[Vote, ...]
    settled: int | None
    settled_by: str | None
    settled_note: str | None


@dataclass(frozen=True, slots=True)
class DisputedQuestion:
    question_id: str
    text: str
    tags: tuple[str, ...]
    chunks: tuple[DisputedChunk, ...]

    @property
    def settled(self) -> int:
        return sum(c.settled is not None for c in self.chunks)

    @property
    def done(self) -> bool:
        return self.settled == len(self.chunks)


@dataclass(frozen=True, slots=True)
class Disputes:
    questions: tuple[DisputedQuestion, ...]
    reviewers: tuple[str, ...]  # everyone with a vote in some dispute (for the pair filter)

    @property
    def chunks(self) -> int:
        return sum(len(q.chunks) for q in self.questions)

    @property
    def settled(self) -> int:
        return sum(q.settled for q in self.questions)

    def next_open(self, after: str | None = None) -> str | None:
        """The first question after ``after`` (wrapping) with a chunk still to settle."""
        ids = [q.question_id for q in self.questions]
        start = ids.index(after) + 1 if after in ids else 0
        ordered = self.questions[start:] + self.questions[:start]
        return next((q.question_id for q in ordered if not q.done), None)


def disputes(
    store: Store,
    *,
    tag: str | None = None,
    pair: tuple[str, str] | None = None,
    chunking: str | None = None,
) -> Disputes:
    """Every disputed chunk, grouped by question (by id), settled ones included.

    ``tag`` keeps questions with that tag; ``pair`` keeps chunks on which those two reviewers
    both voted and differ.
    """
    chunking = chunking or store.corpus.current_chunking()
    with store.snapshot():
        found = consensus(
            store.labels.chunking_labels(chunking), store.labels.unanswerable_marks(chunking), {}
        )
        settled = store.adjudications.rows(chunking)
        tags = store.questions.tag_map()
        by_question: dict[str, list] = {}
        for d in found.disagreements:
            if tag is not None and tag not in tags.get(d.question_id, ()):
                continue
            votes = {r: g for r, g, _ in d.grades}
            if pair is not None and not (
                pair[0] in votes and pair[1] in votes and votes[pair[0]] != votes[pair[1]]
            ):
                continue
            by_question.setdefault(d.question_id, []).append(d)
        questions = []
        everyone: set[str] = set()
        for question_id in sorted(by_question):
            question = store.questions.get(question_id)
            notes = {
                (r["chunk_id"], r["reviewer"]): r["note"]
                for r in store.labels.question_labels(question_id, chunking)
            }
            chunk_ids = [d.chunk_id for d in by_question[question_id]]
            chunks = store.corpus.get_chunks(chunking, chunk_ids)
            rows = []
            for d in by_question[question_id]:
                chunk = chunks.get(d.chunk_id)
                adjudication = settled.get((question_id, d.chunk_id))
                everyone.update(r for r, _, _ in d.grades)
                rows.append(
                    DisputedChunk(
                        chunk_id=d.chunk_id,
                        title=chunk.title if chunk else None,
                        text=chunk.text if chunk else None,
                        votes=tuple(
                            Vote(r, g, how, notes.get((d.chunk_id, r))) for r, g, how in d.grades
                        ),
                        settled=adjudication["grade"] if adjudication else None,
                        settled_by=adjudication["reviewer"] if adjudication else None,
                        settled_note=adjudication["note"] if adjudication else None,
                    )
                )
            questions.append(
                DisputedQuestion(
                    question_id,
                    question.text if question else "",
                    tuple(tags.get(question_id, ())),
                    tuple(rows),
                )
            )
    return Disputes(tuple(questions), tuple(sorted(everyone)))


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

    An adjudicated grade wins over the reviewers' grades (see ``labeler.grading.consensus``).
    Returns the previously adjudicated grade; the act is kept in the label history (actions
    ``adjudicate`` and ``unadjudicate``, with who, when, old and new grade and the note), which
    ``adjudication_history`` lists. Only a lead (or an owner) adjudicates on a team server.
    """
    require(store, check_reviewer(reviewer), Right.ADJUDICATE)
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


__all__ = [
    "DisputedChunk",
    "DisputedQuestion",
    "Disputes",
    "Vote",
    "adjudicate",
    "adjudication_history",
    "disputes",
]
