"""Import questions (JSONL or CSV), accepting the column names other tools write."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.batching import upsert_unique
from labeler.models import ImportReport
from labeler.readers import Progress, as_text, check_file, first_of, iter_records, require
from labeler.store import Store

QUESTION_FIELDS = ("question", "text", "query", "user_input", "input")
REFERENCE_FIELDS = ("reference_answer", "reference", "expected_output", "ground_truth")


def parse_tags(value: object, *, path: Path, line: int) -> list[str]:
    """Tags as a list, or as text separated by commas, semicolons or pipes (CSV cells)."""
    if value in (None, ""):
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise LabelerError(
                    "expected a JSON list", path=path, line=line, field="tags"
                ) from None
        else:
            for separator in ("|", ";"):
                text = text.replace(separator, ",")
            return [t.strip() for t in text.split(",") if t.strip()]
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise LabelerError("expected a list of text", path=path, line=line, field="tags")
    return [t.strip() for t in value if t.strip()]


def question_row(record: dict, *, path: Path, line: int) -> dict:
    """One question from a record, whichever accepted names it uses."""
    question_id = as_text(
        require(record, "id", path=path, line=line), path=path, line=line, field="id"
    )
    field, text = first_of(record, QUESTION_FIELDS)
    if field is None:
        msg = "no question text (expected one of: " + ", ".join(QUESTION_FIELDS) + ")"
        raise LabelerError(msg, path=path, line=line, field="question")
    row = {"id": question_id, "text": as_text(text, path=path, line=line, field=field).strip()}
    field, reference = first_of(record, REFERENCE_FIELDS)
    if field is not None:
        row["reference_answer"] = as_text(reference, path=path, line=line, field=field).strip()
    if "tags" in record:
        row["tags"] = parse_tags(record["tags"], path=path, line=line)
    return row


def import_questions(
    store: Store, path: str | Path, *, progress: Progress | None = None
) -> ImportReport:
    path = check_file(path)
    return write_questions(store, path, iter_records(path, progress))


def write_questions(
    store: Store, path: Path, records: Iterable[tuple[int, dict]], *, kind: str = "questions"
) -> ImportReport:
    """The checks and writes of a question import, over records from any reader."""
    with store.write():
        added, updated, unchanged = upsert_unique(
            ((line, question_row(record, path=path, line=line)) for line, record in records),
            store.upsert_questions,
            path=path,
            what="question",
            batch=5000,
        )
    return ImportReport(kind, str(path), added=added, updated=updated, unchanged=unchanged)
