"""Qrels files, one grammar for every consumer (``labeler import qrels``, ``labeler eval``, the
version reader): TREC qrels, JSON lines or JSON, by extension.

- TREC (any extension but the two below): ``question-id iteration chunk-id grade`` (the
  grammar of ``labeler.readers.trec``);
- JSON lines (``.jsonl``, ``.ndjson``): ``{"question_id", "chunk_id", "grade"}`` per line;
- JSON (``.json``): ``{"q1": {"chunk-a": 2, "chunk-b": 0}, "q2": {}}``, as pytrec_eval takes
  it; a question mapped to ``{}`` is in the test set with no label.

Ids and grades follow ``labeler.readers.fields``: a grade is any whole number here (the
consumer decides its scale). A (question, chunk) labelled twice is an error naming both lines;
a file with no label at all is an error unless the consumer allows it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from labeler.errors import LabelerError, cut
from labeler.readers.fields import as_grade, as_id, describe
from labeler.readers.files import JSON, JSONL, Progress, check_file, empty_file, text_of
from labeler.readers.jsonfiles import iter_jsonl, object_members
from labeler.readers.trec import BEIR_QRELS, QRELS, iter_fields


class QrelsRow(NamedTuple):
    """One label. ``chunk_id`` and ``grade`` are None for a question listed without labels."""

    line: int
    question_id: str
    chunk_id: str | None
    grade: int | None


def _trec(path: Path, progress: Progress | None, data: bytes | None) -> Iterator[QrelsRow]:
    for line, fields in iter_fields(path, QRELS, progress, data=data):
        grade = as_grade(fields[3], path=path, line=line)
        yield QrelsRow(line, fields[0], fields[2], grade)


def _jsonl(path: Path, progress: Progress | None) -> Iterator[QrelsRow]:
    for line, record in iter_jsonl(path, progress):
        question = as_id(record.get("question_id"), path=path, line=line, field="question_id")
        chunk = as_id(record.get("chunk_id"), path=path, line=line, field="chunk_id")
        if "grade" not in record:
            raise LabelerError("missing", path=path, line=line, field="grade")
        yield QrelsRow(line, question, chunk, as_grade(record["grade"], path=path, line=line))


def _json(path: Path) -> Iterator[QrelsRow]:
    text = text_of(path)
    start = len(text) - len(text.lstrip())
    if start == len(text):
        return
    if text[start] != "{":
        msg = "expected a JSON object mapping question -> {chunk: grade}"
        raise LabelerError(msg, path=path, line=1)
    for line, key, labels, _ in object_members(text, start, path=path):
        question = as_id(key, path=path, line=line, field="question_id")
        if not isinstance(labels, dict):
            msg = (
                f"question {question}: expected an object of chunk -> grade, got {describe(labels)}"
            )
            raise LabelerError(msg, path=path, line=line, field="question_id")
        if not labels:
            yield QrelsRow(line, question, None, None)
        for chunk_key, grade in labels.items():
            chunk = as_id(chunk_key, path=path, line=line, field="chunk_id")
            if isinstance(grade, str):  # a JSON grade is a number, not text
                msg = f"expected a whole number, got {describe(grade)}"
                raise LabelerError(msg, path=path, line=line, field="grade")
            yield QrelsRow(line, question, chunk, as_grade(grade, path=path, line=line))


def iter_qrels(
    path: str | Path,
    progress: Progress | None = None,
    *,
    allow_empty: bool = False,
    check_twice: bool = True,
    data: bytes | None = None,
) -> Iterator[QrelsRow]:
    """The labels of a qrels file (see the module docstring), in file order. ``data``: a TREC
    file's bytes, already read."""
    path = check_file(path) if data is None else Path(path)
    suffix = path.suffix.lower()
    if suffix in JSONL:
        rows = _jsonl(path, progress)
    elif suffix in JSON:
        rows = _json(path)
    else:
        rows = _trec(path, progress, data)
    yield from _checked(rows, path, allow_empty=allow_empty, check_twice=check_twice)


def iter_beir_qrels(
    path: str | Path, progress: Progress | None = None, *, allow_empty: bool = False
) -> Iterator[QrelsRow]:
    """The labels of a BEIR ``qrels/<split>.tsv``: ``query-id corpus-id score`` after an
    optional header line that is exactly those three names."""
    path = check_file(path)
    rows = (
        QrelsRow(
            line, fields[0], fields[1], as_grade(fields[2], path=path, line=line, field="score")
        )
        for line, fields in iter_fields(path, BEIR_QRELS, progress)
    )
    yield from _checked(rows, path, allow_empty=allow_empty, check_twice=True)


def _checked(
    rows: Iterator[QrelsRow], path: Path, *, allow_empty: bool, check_twice: bool
) -> Iterator[QrelsRow]:
    seen: dict[tuple[str, str], int] = {}
    count = 0
    for row in rows:
        if row.chunk_id is not None:
            count += 1
            if check_twice:
                key = (row.question_id, row.chunk_id)
                first = seen.get(key)
                if first is None:
                    seen[key] = row.line
                else:
                    msg = (
                        f"question {cut(row.question_id)}: chunk {cut(row.chunk_id)} is labelled"
                        f" twice (lines {first} and {row.line})"
                    )
                    raise LabelerError(msg, path=path, line=row.line, field="chunk_id")
        yield row
    if count == 0 and not allow_empty:
        raise empty_file(path, "labels")


__all__ = ["QrelsRow", "iter_beir_qrels", "iter_qrels"]
