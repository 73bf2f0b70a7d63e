"""Qrels and runs from pandas DataFrames, by the same rules as files (ids by
``labeler.readers.as_id``, grades and ranks whole numbers, scores finite)."""

from __future__ import annotations

from typing import Any

from labeler.errors import LabelerError
from labeler.metrics.tables import Qrels, Run
from labeler.readers import as_grade, as_id, as_rank, as_score


def _column(df: Any, name: str | None) -> list | None:
    if name is None:
        return None
    if name not in df.columns:
        raise LabelerError(
            f"no column {name!r}; columns: {', '.join(map(str, df.columns))}", field=name
        )
    column = df[name]
    if column.isna().any():
        raise LabelerError("has empty values", field=name)
    return column.tolist()


def _each(values: list, convert: Any, field: str) -> list:
    out = []
    for row, value in enumerate(values):
        try:
            out.append(convert(value.item() if hasattr(value, "item") else value, field=field))
        except LabelerError as error:
            raise LabelerError(f"row {row}: {error.message}", field=field) from None
    return out


def qrels_from_dataframe(
    df: Any, *, question: str = "question_id", chunk: str = "chunk_id", grade: str = "grade"
) -> Qrels:
    """Labels from a pandas DataFrame, one row per (question, chunk, grade)."""
    return Qrels.from_rows(
        _each(_column(df, question), as_id, question),
        _each(_column(df, chunk), as_id, chunk),
        _each(_column(df, grade), as_grade, grade),
    )


def run_from_dataframe(
    df: Any,
    *,
    name: str = "run",
    question: str = "question_id",
    chunk: str = "chunk_id",
    rank: str | None = "rank",
    score: str | None = "score",
) -> Run:
    """A run from a pandas DataFrame, one row per result; ``rank``/``score`` columns are used
    when present (pass None to ignore one), otherwise the row order is the ranking."""
    rank = rank if rank is not None and rank in df.columns else None
    score = score if score is not None and score in df.columns else None
    ranks = _column(df, rank)
    scores = _column(df, score)
    return Run.from_rows(
        name,
        _each(_column(df, question), as_id, question),
        _each(_column(df, chunk), as_id, chunk),
        ranks=None if ranks is None else _each(ranks, as_rank, rank or "rank"),
        scores=None if scores is None else _each(scores, as_score, score or "score"),
    )


__all__ = ["qrels_from_dataframe", "run_from_dataframe"]
