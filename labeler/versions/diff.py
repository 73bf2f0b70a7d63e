"""What changed between two test-set contents, question by question.

Labels are compared as qrels lines: a (question, chunk) judged only in the newer content is
"added" (also when its question is new), judged only in the older one "removed", judged in both
with another grade "regraded". A question is "edited" when its text, reference answer, tags,
unanswerable flag or conversation (a turn's history or rewrite) changed; one whose labels alone
changed is listed as "relabelled".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from labeler.conversations import turn_record
from labeler.versions.format import Content, QuestionEntry
from labeler.versions.reading import read_version

QUESTION_FIELDS = ("question", "reference_answer", "tags", "unanswerable", "conversation")


@dataclass(frozen=True, slots=True)
class LabelChange:
    chunk_id: str
    old: int | None
    new: int | None

    @property
    def kind(self) -> str:
        if self.old is None:
            return "added"
        return "removed" if self.new is None else "regraded"

    def as_dict(self) -> dict:
        return {"chunk_id": self.chunk_id, "change": self.kind, "old": self.old, "new": self.new}


@dataclass(frozen=True, slots=True)
class QuestionChange:
    """One question that differs. ``status``: added, removed, edited or relabelled."""

    id: str
    status: str
    old: QuestionEntry | None
    new: QuestionEntry | None
    fields: tuple[str, ...]
    labels: tuple[LabelChange, ...]

    def as_dict(self) -> dict:
        data: dict = {"id": self.id, "status": self.status}
        if self.fields:
            data["fields"] = {
                name: {
                    "old": _field(self.old, name),
                    "new": _field(self.new, name),
                }
                for name in self.fields
            }
        if self.status == "added" and self.new is not None:
            data["question"] = self.new.text
        if self.status == "removed" and self.old is not None:
            data["question"] = self.old.text
        data["labels"] = [change.as_dict() for change in self.labels]
        return data


def _value(question: QuestionEntry, name: str) -> object:
    """A field as questions.jsonl names it ("conversation" is the question's turn)."""
    return question.turn if name == "conversation" else getattr(question, name)


def _field(question: QuestionEntry | None, name: str) -> object:
    if question is None:
        return None
    value = _value(question, name)
    if name == "conversation":
        return None if value is None else turn_record(value)
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True, slots=True)
class VersionDiff:
    questions: tuple[QuestionChange, ...]
    chunks_changed: tuple[str, ...]

    def ids(self, status: str) -> list[str]:
        return [q.id for q in self.questions if q.status == status]

    def label_count(self, kind: str) -> int:
        return sum(1 for q in self.questions for change in q.labels if change.kind == kind)

    def summary(self) -> dict[str, int]:
        return {
            "questions_added": len(self.ids("added")),
            "questions_removed": len(self.ids("removed")),
            "questions_edited": len(self.ids("edited")),
            "labels_added": self.label_count("added"),
            "labels_removed": self.label_count("removed"),
            "labels_regraded": self.label_count("regraded"),
            "chunks_changed": len(self.chunks_changed),
        }

    @property
    def empty(self) -> bool:
        return not self.questions and not self.chunks_changed

    def rows(self) -> list[dict]:
        """One row per changed question (id, change, text, fields edited, label changes), as a
        table shows them."""
        rows = []
        for change in self.questions:
            question = change.new or change.old
            labels = "; ".join(
                f"{c.chunk_id}: {'none' if c.old is None else c.old} → "
                f"{'none' if c.new is None else c.new}"
                for c in change.labels
            )
            rows.append(
                {
                    "question": change.id,
                    "change": change.status,
                    "text": question.question,
                    "fields edited": ", ".join(change.fields),
                    "labels": labels,
                }
            )
        return rows

    def as_dict(self) -> dict:
        return {
            "summary": self.summary(),
            "questions": [q.as_dict() for q in self.questions],
            "chunks_changed": list(self.chunks_changed),
        }


def _label_changes(old: dict[str, int], new: dict[str, int]) -> tuple[LabelChange, ...]:
    return tuple(
        LabelChange(chunk_id, old.get(chunk_id), new.get(chunk_id))
        for chunk_id in sorted(set(old) | set(new))
        if old.get(chunk_id) != new.get(chunk_id)
    )


def diff_contents(old: Content, new: Content) -> VersionDiff:
    """Every question that differs between ``old`` and ``new``, by id."""
    changes = []
    for question_id in sorted(set(old.questions) | set(new.questions)):
        before = old.questions.get(question_id)
        after = new.questions.get(question_id)
        labels = _label_changes(
            dict(old.qrels.get(question_id, {})), dict(new.qrels.get(question_id, {}))
        )
        if before is None:
            changes.append(QuestionChange(question_id, "added", None, after, (), labels))
        elif after is None:
            changes.append(QuestionChange(question_id, "removed", before, None, (), labels))
        else:
            fields = tuple(
                name for name in QUESTION_FIELDS if _value(before, name) != _value(after, name)
            )
            if fields or labels:
                status = "edited" if fields else "relabelled"
                changes.append(QuestionChange(question_id, status, before, after, fields, labels))
    chunks_changed = tuple(
        chunk_id
        for chunk_id in sorted(set(old.chunks) & set(new.chunks))
        if old.chunks[chunk_id] != new.chunks[chunk_id]
    )
    return VersionDiff(questions=tuple(changes), chunks_changed=chunks_changed)


def diff_versions(old: str | Path, new: str | Path) -> VersionDiff:
    """What changed from version folder ``old`` to version folder ``new`` (both checked)."""
    return diff_contents(read_version(old).content, read_version(new).content)


def describe_changes(summary: dict[str, int], parent: int) -> str:
    """The one sentence saying what changed since the parent version (CLI and app alike)."""
    text = (
        f"since v{parent}: {summary['questions_added']} questions added,"
        f" {summary['questions_removed']} removed, {summary['questions_edited']} edited;"
        f" {summary['labels_added']} labels added, {summary['labels_removed']} removed,"
        f" {summary['labels_regraded']} regraded"
    )
    if summary.get("chunks_changed"):
        text += f"; {summary['chunks_changed']} chunk texts changed"
    return text


def changes_record(diff: VersionDiff, parent: int) -> dict:
    """The manifest's "changes": counts, and the ids of questions added, removed and edited."""
    return {
        "parent": parent,
        **diff.summary(),
        "added": diff.ids("added"),
        "removed": diff.ids("removed"),
        "edited": diff.ids("edited"),
        "relabelled": diff.ids("relabelled"),
    }


__all__ = [
    "LabelChange",
    "QuestionChange",
    "VersionDiff",
    "changes_record",
    "describe_changes",
    "diff_contents",
    "diff_versions",
]
