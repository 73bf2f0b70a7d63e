"""``labeler judge ratings``: what a judge said, pair by pair, as JSON lines or CSV, so a person
can read it: the question, the chunk or the answer, the judge, its verdict and its reason, and
for a rating a judge run made, the model, the prompt, the host, the tokens, the latency and
the raw answer. ``--failed`` lists instead the calls that gave no verdict, with their raw text.

CSV goes through ``labeler.spreadsheet``: a reason starting with ``=`` never runs as a formula.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from labeler.errors import NotFoundError
from labeler.judge.metrics import normalise
from labeler.judge.prompts import prompt_kind
from labeler.judge.scales import RELEVANCE
from labeler.spreadsheet import csv_cell, csv_line, text_cell
from labeler.store import Store

RATING_FIELDS = (
    "question",
    "chunk",
    "answer",
    "judge",
    "value",
    "reason",
    "model",
    "prompt",
    "host",
    "tokens_in",
    "tokens_out",
    "latency_ms",
    "raw",
)
FAILURE_FIELDS = (
    "question",
    "chunk",
    "answer",
    "judge",
    "model",
    "host",
    "error",
    "raw",
    "tries",
    "at",
)


def _metric(store: Store, metric: str) -> str:
    """The stored metric ``metric`` names (relevance under any spelling is ``relevance``)."""
    if normalise(metric) == RELEVANCE:
        return RELEVANCE
    known = store.ratings.metrics()
    if metric not in known:
        msg = f"no metric {metric!r} (metrics: {', '.join(known) or 'none yet'})"
        raise NotFoundError(msg, field="metric")
    return metric


def ratings(store: Store, metric: str, *, judge: str | None = None) -> list[dict]:
    """One row per judge's rating (see ``RATING_FIELDS``)."""
    chunking = store.corpus.current_chunking()
    name = _metric(store, metric)
    rows = store.judge_calls.judge_ratings(name, judge, chunking)
    if judge is not None and not rows and judge not in store.ratings.raters():
        raise NotFoundError(f"no judge {judge!r}", field="judge")
    return [
        {
            "question": r["question_id"] or r["question"],
            "chunk": r["chunk_id"],
            "answer": r["answer"],
            "judge": r["judge"],
            "value": int(r["value"]) if float(r["value"]).is_integer() else r["value"],
            "reason": r["reason"],
            "model": r["model"],
            "prompt": f"{r['prompt_version']}-{r['prompt_hash'][:8]}" if r["prompt_hash"] else None,
            "host": r["host"],
            "tokens_in": r["tokens_in"],
            "tokens_out": r["tokens_out"],
            "latency_ms": r["latency_ms"],
            "raw": r["raw"],
        }
        for r in rows
    ]


def failures(store: Store, metric: str, *, judge: str | None = None) -> list[dict]:
    """Calls that gave no verdict and were not answered since (see ``FAILURE_FIELDS``)."""
    prompt_kind(metric)
    name = RELEVANCE if normalise(metric) == RELEVANCE else metric
    return [
        {
            "question": r["question_id"] or r["question"],
            "chunk": r["chunk_id"],
            "answer": r["answer"],
            "judge": r["judge"],
            "model": r["model"],
            "host": r["host"],
            "error": r["error"],
            "raw": r["raw"],
            "tries": r["tries"],
            "at": r["at"],
        }
        for r in store.judge_calls.failures(name, judge)
    ]


def jsonl_lines(rows: list[dict]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"


def csv_lines(rows: list[dict], fields: tuple[str, ...]) -> Iterator[str]:
    yield csv_line(fields)
    for row in rows:
        cells = []
        for name in fields:
            value = row.get(name)
            if value is None:
                cells.append("")
            elif isinstance(value, str):
                cells.append(text_cell(value))
            else:
                cells.append(csv_cell(str(value)))
        yield csv_line(cells)


__all__ = ["FAILURE_FIELDS", "RATING_FIELDS", "csv_lines", "failures", "jsonl_lines", "ratings"]
