"""Run files, one grammar for every consumer (``labeler import run``, ``labeler eval``): TREC
runs, JSON lines or JSON, by extension.

- TREC (any extension but the two below): ``question-id Q0 chunk-id rank score run-name``,
  fields after the sixth ignored (the grammar of ``labeler.readers.trec``);
- JSON lines (``.jsonl``, ``.ndjson``): one result per line
  ``{"question_id", "chunk_id", "rank"?, "score"?}`` (a rank or a score, the same on every
  line), or one question per line ``{"question_id", "chunk_ids": [...], "scores": [...]?}``
  (the list is the ranking: ranks 1, 2, ...);
- JSON (``.json``): ``{"q1": ["c1", "c2"]}`` (ranked) or ``{"q1": {"c1": 12.5}}`` (scored),
  as pytrec_eval takes them.

Ranks are whole numbers from 1, scores finite numbers (``labeler.readers.fields``). A file with
no result is an error. A run's ranking is its ranks when it states them (equal ranks keep the
file's order), else its scores (descending, equal scores by chunk id descending, as trec_eval
sorts), else the order of its lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from labeler.errors import LabelerError, cut
from labeler.readers.fields import as_id, as_ids, as_rank, as_score, describe
from labeler.readers.files import JSON, JSONL, Progress, check_file, empty_file, text_of
from labeler.readers.jsonfiles import iter_jsonl, object_members
from labeler.readers.trec import RUN, iter_fields


class RunRow(NamedTuple):
    """One result. ``tag`` is the TREC run name (None in JSON files)."""

    line: int
    question_id: str
    chunk_id: str
    rank: int | None
    score: float | None
    tag: str | None = None


def _trec(path: Path, progress: Progress | None) -> Iterator[RunRow]:
    for line, fields in iter_fields(path, RUN, progress):
        yield RunRow(
            line,
            fields[0],
            fields[2],
            as_rank(fields[3], path=path, line=line),
            as_score(fields[4], path=path, line=line),
            fields[5],
        )


def _scores(record: dict, count: int, *, path: Path, line: int) -> list[float | None]:
    given = record.get("scores")
    if given is None:
        return [None] * count
    if not isinstance(given, list) or len(given) != count:
        msg = f"expected a list of {count} numbers, as long as chunk_ids"
        raise LabelerError(msg, path=path, line=line, field="scores")
    return [as_score(s, path=path, line=line, field="scores") for s in given]


def _jsonl(path: Path, progress: Progress | None) -> Iterator[RunRow]:
    for line, record in iter_jsonl(path, progress):
        question = as_id(record.get("question_id"), path=path, line=line, field="question_id")
        if "chunk_ids" in record:
            if not isinstance(record["chunk_ids"], list):
                msg = f"expected a list of chunk ids, got {describe(record['chunk_ids'])}"
                raise LabelerError(msg, path=path, line=line, field="chunk_ids")
            chunks = as_ids(record["chunk_ids"], path=path, line=line, field="chunk_ids")
            scores = _scores(record, len(chunks), path=path, line=line)
            for rank, (chunk, score) in enumerate(zip(chunks, scores, strict=True), start=1):
                yield RunRow(line, question, chunk, rank, score)
            continue
        chunk = as_id(record.get("chunk_id"), path=path, line=line, field="chunk_id")
        rank = record.get("rank")
        rank = None if rank is None else as_rank(rank, path=path, line=line)
        score = as_score(record.get("score"), path=path, line=line, optional=True)
        if rank is None and score is None:
            raise LabelerError("needs a rank or a score", path=path, line=line, field="rank")
        yield RunRow(line, question, chunk, rank, score)


def _json(path: Path) -> Iterator[RunRow]:
    text = text_of(path)
    start = len(text) - len(text.lstrip())
    if start == len(text):
        return
    if text[start] != "{":
        msg = "expected a JSON object mapping question -> ranked chunk ids or {chunk: score}"
        raise LabelerError(msg, path=path, line=1)
    for line, key, results, _ in object_members(text, start, path=path):
        question = as_id(key, path=path, line=line, field="question_id")
        if isinstance(results, list):
            for rank, chunk in enumerate(results, start=1):
                yield RunRow(
                    line, question, as_id(chunk, path=path, line=line, field="chunk_id"), rank, None
                )
        elif isinstance(results, dict):
            for chunk, score in results.items():
                if isinstance(score, str):  # a JSON score is a number, not text
                    msg = f"expected a number, got {describe(score)}"
                    raise LabelerError(msg, path=path, line=line, field="score")
                chunk_id = as_id(chunk, path=path, line=line, field="chunk_id")
                yield RunRow(line, question, chunk_id, None, as_score(score, path=path, line=line))
        else:
            msg = (
                f"question {cut(question)}: expected a list of chunk ids or {{chunk: score}},"
                f" got {describe(results)}"
            )
            raise LabelerError(msg, path=path, line=line, field="question_id")


def iter_run(
    path: str | Path, progress: Progress | None = None, *, allow_empty: bool = False
) -> Iterator[RunRow]:
    """The results of a run file (see the module docstring), in file order. Whether rows carry
    a rank, and a score, is the same on every row: a file that gives them on some rows only is
    an error naming the first row that differs."""
    path = check_file(path)
    suffix = path.suffix.lower()
    if suffix in JSONL:
        rows = _jsonl(path, progress)
    elif suffix in JSON:
        rows = _json(path)
    else:
        rows = _trec(path, progress)
    first: RunRow | None = None
    for row in rows:
        if first is None:
            first = row
        else:
            for field, mine, theirs in (
                ("rank", row.rank, first.rank),
                ("score", row.score, first.score),
            ):
                if (mine is None) != (theirs is None):
                    where = f"line {first.line}" if first.line != row.line else "the lines before"
                    msg = (
                        f"given here but not on {where}"
                        if theirs is None
                        else f"missing here but given on {where}"
                    )
                    raise LabelerError(msg, path=path, line=row.line, field=field)
        yield row
    if first is None and not allow_empty:
        raise empty_file(path, "results")


def lines_listing(path: str | Path, question_id: str, chunk_id: str) -> list[int]:
    """The lines of a run file that list ``chunk_id`` for ``question_id`` (a line listing it
    twice, in a JSON list, counts twice): read again, on the error path of a run read into
    columns without its lines, to name both places a chunk is listed twice. Empty when the
    file cannot be read again (an upload's temporary copy, gone)."""
    try:
        return [
            row.line
            for row in iter_run(path, allow_empty=True)
            if row.chunk_id == chunk_id and row.question_id == question_id
        ]
    except LabelerError:
        return []


__all__ = ["RunRow", "iter_run", "lines_listing"]
