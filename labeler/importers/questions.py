"""Import questions (JSON lines, CSV, TSV), accepting the column names other tools write.

A record may be a turn of a conversation: ``conversation`` holds its conversation's id, its turn
number, the messages before it and its rewrite, as a test-set version writes them
(``labeler.conversations``).

A record with ``origin: generated`` is a generated question to review, from any generator:
``generator``, ``contexts`` (the texts it was generated from, or chunk ids) and ``metadata``
(an object; its ``synthesizer_name``/``synthesizer`` and ``persona_name``/``persona`` are the
question's synthesizer and persona, as top-level fields of those names are). Such records go
through the same matching and writing as Ragas' and DeepEval's files
(``labeler.importers.generated``); the id may be left out (then it is derived from the text).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from labeler.conversations import TurnRegister, read_turn
from labeler.errors import LabelerError, shown
from labeler.importers.batching import refuse_question_text_changes, upsert_unique
from labeler.importers.generated import (
    GeneratedImport,
    GeneratedQuestion,
    stable_id,
    write_generated,
)
from labeler.importers.registry import IMPORT_KINDS
from labeler.models import ImportReport
from labeler.readers import (
    Progress,
    as_bool,
    as_id,
    as_object,
    as_tags,
    as_text,
    as_texts,
    check_file,
    empty_file,
    first_of,
    iter_records,
)
from labeler.store import Store

ORIGINS = ("human", "generated")
GENERATED_ID_PREFIX = "gen"

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
    turn = read_turn(record.get("conversation"), path=path, line=line)
    if turn is not None:
        row["turn"] = turn
    check_unanswerable(record, path=path, line=line)
    return row


def check_unanswerable(record: dict, *, path: Path, line: int) -> None:
    """A file's ``unanswerable`` flag must be a flag (true or false, as every reader takes
    one), never ignored when it is "maybe". A question file does not set the mark: the mark
    is a reviewer's label (``labeler import testset`` brings a version's marks in)."""
    as_bool(record.get("unanswerable"), path=path, line=line, field="unanswerable")


def _is_generated(record: dict, *, path: Path, line: int) -> bool:
    origin = as_text(record.get("origin"), path=path, line=line, field="origin", optional=True)
    if origin is None:
        return False
    if origin not in ORIGINS:
        msg = f"expected one of {', '.join(ORIGINS)}, got {shown(origin)}"
        raise LabelerError(msg, path=path, line=line, field="origin")
    return origin == "generated"


def generated_question(record: dict, *, path: Path, line: int) -> GeneratedQuestion:
    """One generated question from a plain record (see the module docstring)."""
    field, text = first_of(record, QUESTION_FIELDS)
    if field is None:
        msg = "no question text (expected one of: " + ", ".join(QUESTION_FIELDS) + ")"
        raise LabelerError(msg, path=path, line=line, field="question")
    text = as_text(text, path=path, line=line, field=field).strip()
    where = {"path": path, "line": line}
    given = record.get("id")
    question_id = (
        as_id(given, **where, field="id")
        if given not in (None, "")
        else stable_id(GENERATED_ID_PREFIX, text)
    )
    contexts = as_texts(record.get("contexts"), **where, field="contexts")
    metadata = as_object(record.get("metadata"), **where, field="metadata")
    check_unanswerable(record, **where)
    both = {**metadata, **record}

    def optional(names: tuple[str, ...], within: dict = record) -> str | None:
        name, value = first_of(within, names)
        found = as_text(value, **where, field=name, optional=True)
        return found.strip() if found else None

    return GeneratedQuestion(
        line=line,
        id=question_id,
        text=text,
        reference=optional(REFERENCE_FIELDS),
        generator=optional(("generator",)),
        # Each context may be a chunk id: matched by id first, else as text.
        contexts=tuple(contexts),
        context_ids=tuple(contexts),
        synthesizer=optional(("synthesizer", "synthesizer_name"), both),
        persona=optional(("persona", "persona_name"), both),
        metadata=metadata,
        tags=tuple(as_tags(record.get("tags"), **where)),
        turn=read_turn(record.get("conversation"), **where),
    )


def import_questions(
    store: Store,
    path: str | Path,
    *,
    progress: Progress | None = None,
    replace_text: bool = False,
) -> ImportReport | GeneratedImport:
    """Questions, human ones (accepted) and generated ones (pending review, contexts matched
    to chunks), in one transaction. A file with no question is an error. A file that gives a
    question carrying labels a new text is refused, unless ``replace_text``: then its labels
    become stale (``labeler.store.Questions.upsert``)."""
    path = check_file(path)
    generated: list[GeneratedQuestion] = []

    def human(records: Iterable[tuple[int, dict]]) -> Iterable[tuple[int, dict]]:
        for line, record in records:
            if _is_generated(record, path=path, line=line):
                generated.append(generated_question(record, path=path, line=line))
            else:
                yield line, record

    records = iter_records(path, progress, accept=IMPORT_KINDS["questions"].reads)
    with store.write():
        report = write_questions(
            store, path, human(records), required=False, replace_text=replace_text
        )
        if not generated:
            if not report.added + report.updated + report.unchanged:
                raise empty_file(path, "questions")
            return report
        result = write_generated(store, path, generated, kind="questions")
    both = result.report
    return replace(
        result,
        report=replace(
            both,
            added=both.added + report.added,
            updated=both.updated + report.updated,
            unchanged=both.unchanged + report.unchanged,
        ),
    )


def write_questions(
    store: Store,
    path: Path,
    records: Iterable[tuple[int, dict]],
    *,
    kind: str = "questions",
    required: bool = True,
    replace_text: bool = False,
) -> ImportReport:
    """The checks and writes of a question import, over records from any reader. A file with
    no question is an error (unless not ``required``: a file of generated questions only); so
    is one that changes the text of a judged question, unless ``replace_text``."""
    with store.write():
        added, updated, unchanged = upsert_unique(
            _unique_turns(
                (
                    (line, {**question_row(record, path=path, line=line), "line": line})
                    for line, record in records
                ),
                path,
            ),
            lambda rows: store.questions.upsert(rows, replace_text=replace_text),
            path=path,
            what="question",
            batch=5000,
        )
        if required and not added + updated + unchanged:
            raise empty_file(path, kind)
        changes = store.questions.take_text_changes()
        refuse_question_text_changes([c for c in changes if not c[3]], path=path)
    detail = ""
    stale = sum(c[2] for c in changes)
    if changes:
        detail = (
            f"{len(changes)} graded question{'' if len(changes) == 1 else 's'} got a new text:"
            f" {stale} label{'' if stale == 1 else 's'} now stale"
        )
    return ImportReport(
        kind, str(path), added=added, updated=updated, unchanged=unchanged, detail=detail
    )


def _unique_turns(rows: Iterable[tuple[int, dict]], path: Path) -> Iterable[tuple[int, dict]]:
    """The rows, checked as they pass: one question per turn of a conversation in a file."""
    register = TurnRegister(path)
    for line, row in rows:
        if "turn" in row:
            register.add(line, row["id"], row["turn"])
        yield line, row
