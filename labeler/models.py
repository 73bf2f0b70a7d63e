"""Small frozen value types that cross the boundaries between store, core and faces."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Grade(IntEnum):
    """How well a chunk answers a question. "Unlabelled" is not a grade: it is ``None``."""

    NOT_RELEVANT = 0
    PARTIAL = 1
    ANSWERS = 2


# The grades' names, for anything that shows a grade in words (the judge's pages, disputes).
GRADE_LABELS = {
    Grade.NOT_RELEVANT: "0 not relevant",
    Grade.PARTIAL: "1 helps partly",
    Grade.ANSWERS: "2 answers it",
}


@dataclass(frozen=True, slots=True)
class Chunk:
    id: str
    chunking: str
    text: str
    doc_id: str | None = None
    title: str | None = None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a conversation: who spoke (``user``, ``assistant`` or ``tool``, the
    roles of ``labeler.conversations``) and what they said."""

    role: str
    text: str


@dataclass(frozen=True, slots=True)
class Turn:
    """Where a question stands in a conversation: it is the user's turn ``number`` (1 for the
    first) of conversation ``conversation``, said after the messages of ``history`` (user,
    assistant and tool messages, oldest first). ``rewrite`` is a standalone form of the turn
    ("What is the sandbox's rate limit?" for "and in the sandbox?"), when one is known.
    ``search`` is how the pool's full-text search is asked (``labeler.conversations``'s
    search choices; None: the default), a grading setting, not part of a test set."""

    conversation: str
    number: int
    history: tuple[Message, ...] = ()
    rewrite: str | None = None
    search: str | None = None


@dataclass(frozen=True, slots=True)
class Question:
    """A question, wherever it travels: in the database, in a test-set version, in the metric
    engine. ``unanswerable`` is a reviewer's verdict as a version records it (consensus over
    the reviewers' marks); in the database it lives in the marks, per reviewer. What a source
    does not hold keeps its default (a metric engine's questions file may give only the id and
    the tags)."""

    id: str
    text: str = ""
    reference_answer: str | None = None
    tags: tuple[str, ...] = ()
    unanswerable: bool = False
    origin: str = "human"
    review_status: str = "accepted"
    generator: str | None = None
    source_chunk_ids: tuple[str, ...] = ()
    # The conversation the question is a turn of; None for a question that stands alone.
    turn: Turn | None = None

    @property
    def question(self) -> str:
        """The text, under the name a version's ``questions.jsonl`` gives it."""
        return self.text


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did. Importing the same file twice reports only ``unchanged``."""

    kind: str
    path: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0
    detail: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "path": self.path,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "detail": self.detail,
        }

    def summary(self) -> str:
        if not self.changed:
            text = f"{self.kind}: nothing changed ({self.unchanged} already present"
            if self.skipped:
                text += f", {self.skipped} skipped"
            return text + ")"
        parts = [f"{self.added} added", f"{self.updated} updated", f"{self.unchanged} unchanged"]
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        text = f"{self.kind}: " + ", ".join(parts)
        if self.detail:
            text += f" ({self.detail})"
        return text


__all__ = ["GRADE_LABELS", "Chunk", "Grade", "ImportReport", "Message", "Question", "Turn"]
