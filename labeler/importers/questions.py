"""Import questions (JSON lines, CSV, TSV), accepting the column names other tools write."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.batching import upsert_unique
from labeler.models import ImportReport
from labeler.readers import (
    Progress,
    as_id,
    as_tags,
    as_text,
    check_file,
    empty_file,
    first_of,
    iter_records,
)
from labeler.store import Store

QUESTION_FIELDS = ("question", "text", "query", "user_input", "input")
REFERENCE_FIELDS = ("reference_answer", "reference", "expected_output", "ground_truth")


def parse_tags(value: object, *, path: Path, line: int) -> list[str]:
    """Tags by the one rule of ``labeler.readers.as_tags``."""
    return as_tags(value, path=path, line=line)


def question_row(record: dict, *, path: Path, line: int) -> dict:
    """One question from a record, whichever accepted names it uses."""
    question_id = as_id(record.get("id"), path=path, line=line, field="id")
    field, text = first_of(record, QUESTION_FIELDS)
    if field is None:
        msg = "no question text (expected one of: " + ", ".join(QUESTION_FIELDS) + ")"
        raise LabelerError(msg, path=path, line=line, field="question")
    row = {"id": question_id, "text": as_text(text, path=path, line=line, field=field).strip()}
    field, reference = first_of(record, REFERENCE_FIELDS)
    if field is not None:
        row["reference_answer"] = as_text(reference, path=path, line=line, field=field).strip()
    if "tags" in record:
        row["tags"] = as_tags(record["tags"], path=path, line=line)
    return row


def import_questions(
    store: Store, path: str | Path, *, progress: Progress | None = None
) -> ImportReport:
    path = check_file(path)
    return write_questions(
        store, path, iter_records(path, progress, accept=("jsonl", "json", "csv", "tsv"))
    )


def write_questions(
    store: Store, path: Path, records: Iterable[tuple[int, dict]], *, kind: str = "questions"
) -> ImportReport:
    """The checks and writes of a question import, over records from any reader. A file with
    no question is an error."""
    with store.write():
        added, updated, unchanged = upsert_unique(
            ((line, question_row(record, path=path, line=line)) for line, record in records),
            store.upsert_questions,
            path=path,
            what="question",
            batch=5000,
        )
        if not added + updated + unchanged:
            raise empty_file(path, kind)
    return ImportReport(kind, str(path), added=added, updated=updated, unchanged=unchanged)
