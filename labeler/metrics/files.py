"""Qrels, runs and questions files, for the metric engine.

The formats and every rule are those of ``labeler.readers`` (the same grammar ``labeler import``
reads): TREC, JSON lines or JSON by extension, ids and numbers by the one set of converters,
errors naming the file, the line and the field. A big TREC file is split by numpy straight into
columns (``labeler.metrics.fastread``) when a scan proves it plain; anything else is read
line by line by the grammar itself.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from labeler.errors import LabelerError
from labeler.metrics.fastread import fast_qrels, fast_run
from labeler.metrics.keys import HashCollision
from labeler.metrics.tables import Qrels, Run
from labeler.metrics.types import Order
from labeler.readers.files import JSON, JSONL, check_file, empty_file

if TYPE_CHECKING:
    from labeler.models import Question


def _trec(path: Path) -> bool:
    return path.suffix.lower() not in (*JSONL, *JSON)


def _rows_qrels(path: Path) -> Qrels:
    from labeler.readers.qrels import iter_qrels  # the line reader: loaded when it is needed

    questions: list[str] = []
    chunks: list[str] = []
    grades: list[int] = []
    listed: list[str] = []
    for _, question, chunk, grade in iter_qrels(path):
        if chunk is None:
            listed.append(question)
            continue
        questions.append(question)
        chunks.append(chunk)
        grades.append(grade)  # type: ignore[arg-type]
    qrels = Qrels.from_rows(questions, chunks, grades, source=str(path))
    return qrels.with_questions(listed) if listed else qrels


def read_qrels(path: str | Path) -> Qrels:
    """Labels from a TREC qrels, JSON lines or JSON file (the grammar of
    ``labeler.readers.qrels``). A question labelled twice, or a file with no label, is an
    error."""
    path = check_file(path)
    if _trec(path):
        qrels = fast_qrels(path)
        if qrels is not None:
            try:
                qrels.pair_keys()  # the duplicate check, cached for the evaluation
            except LabelerError:
                pass  # the line reader raises it again, naming both lines
            else:
                qrels.ideal_rows()  # cached too: here it runs beside the reading of the runs
                return qrels
    return _rows_qrels(path)


def _ranks_from_scores(questions: list[str], chunks: list[str], scores: list[float]) -> list[int]:
    """Ranks of a run that gives scores only: by score descending, equal scores by chunk id
    descending (trec_eval's order, and the order ``labeler import run`` stores)."""
    order = sorted(range(len(chunks)), key=chunks.__getitem__, reverse=True)
    order.sort(key=lambda i: (questions[i], -scores[i]))
    ranks = [0] * len(chunks)
    previous, rank = None, 0
    for i in order:
        rank = rank + 1 if questions[i] == previous else 1
        previous = questions[i]
        ranks[i] = rank
    return ranks


def _rows_run(path: Path, name: str, *, keep_ranks: bool, keep_scores: bool) -> Run:
    from labeler.readers.runs import iter_run  # the line reader: loaded when it is needed

    questions: list[str] = []
    chunks: list[str] = []
    ranks: list[int | None] = []
    scores: list[float | None] = []
    for row in iter_run(path):
        questions.append(row.question_id)
        chunks.append(row.chunk_id)
        ranks.append(row.rank)
        scores.append(row.score)
    has_ranks, has_scores = ranks[0] is not None, scores[0] is not None
    if not has_ranks:  # scores only: the grammar ranks them
        ranks = _ranks_from_scores(questions, chunks, scores)  # type: ignore[arg-type]
    return Run.from_rows(
        name,
        questions,
        chunks,
        ranks=ranks if keep_ranks else None,  # type: ignore[arg-type]
        scores=scores if keep_scores and has_scores else None,  # type: ignore[arg-type]
        source=str(path),
    )


def read_run(path: str | Path, *, name: str | None = None, order: Order | None = None) -> Run:
    """A run from a TREC run, JSON lines or JSON file (the grammar of ``labeler.readers.runs``);
    its name defaults to the file's stem.

    Every field is checked, whatever ``order`` ("rank" or "score") the evaluation uses, but
    only the column it needs is kept (a big run has no memory to spare); None keeps both.
    """
    path = check_file(path)
    name = name or path.stem
    keep_ranks, keep_scores = order != "score", order != "rank"
    run = (
        fast_run(path, name, keep_ranks=keep_ranks, keep_scores=keep_scores)
        if _trec(path)
        else None
    )
    if run is None:
        run = _rows_run(path, name, keep_ranks=keep_ranks, keep_scores=keep_scores)
    if order != "score":
        run.pair_keys()  # sorted here, beside the reading of the test set (see Run.pair_keys)
        with contextlib.suppress(HashCollision):  # the evaluation then works exactly
            run.first_listed_twice()  # checked here too
    return run


def read_questions(path: str | Path) -> tuple[Question, ...]:
    """Questions JSON lines: ``id`` (or ``question_id``), optional ``tags`` (a list of text),
    ``unanswerable`` (true or false) and ``conversation`` (a turn's, as a version's
    questions.jsonl holds it); other fields are ignored."""
    from labeler.conversations import read_turn  # the test set's questions only: loaded here
    from labeler.models import Question
    from labeler.readers.fields import as_bool, as_id, as_tags
    from labeler.readers.jsonfiles import iter_jsonl

    path = check_file(path)
    out: dict[str, Question] = {}
    for line, record in iter_jsonl(path):
        where = {"path": path, "line": line}
        field = "id" if "id" in record or "question_id" not in record else "question_id"
        question_id = as_id(record.get(field), **where, field=field)
        tags = record.get("tags")
        if tags is not None and not isinstance(tags, list):
            raise LabelerError("expected a list of text", **where, field="tags")
        flag = record.get("unanswerable")
        if flag is not None and not isinstance(flag, bool):
            raise LabelerError(
                f"expected true or false, got {flag!r}", **where, field="unanswerable"
            )
        if question_id in out:
            raise LabelerError(f"question {question_id} appears twice", **where, field=field)
        out[question_id] = Question(
            id=question_id,
            tags=tuple(as_tags(tags, **where)),
            unanswerable=as_bool(flag, **where, field="unanswerable"),
            turn=read_turn(record.get("conversation"), **where),
        )
    if not out:
        raise empty_file(path, "questions")
    return tuple(out.values())


__all__ = ["read_qrels", "read_questions", "read_run"]
