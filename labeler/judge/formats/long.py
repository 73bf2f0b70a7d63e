"""The generic long format: one rating per row, JSONL, CSV or a JSON array.

Fields: ``item`` (your id for what was rated), ``metric``, ``rater``, ``rater_kind`` (``model``
or ``human``), ``verdict`` (a number; true/false, yes/no, pass/fail read as 1/0), and optional
``question`` (a question id, or its text), ``answer``, ``contexts`` (a list of texts or of chunk
ids; in CSV a JSON list), ``chunk_id`` (the chunk of a (question, chunk) item), ``rationale``.
An item's details may be repeated on each of its rows or given once.

``item`` may be left out of a row that gives an ``answer`` (or a ``question`` and a
``chunk_id``): the item is then the one the content names, keyed as the DeepEval and Ragas
imports key it, so people's verdicts in this format join a DeepEval run's test cases.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.matching import iter_items, parse_list
from labeler.judge.importing import (
    Item,
    JudgeFile,
    Rating,
    ReadOptions,
    answer_key,
    check_kind,
    chunk_key,
)
from labeler.judge.scales import parse_verdict
from labeler.readers import as_text, require

REQUIRED = ("metric", "rater", "rater_kind", "verdict")
OPTIONAL = ("question", "answer", "contexts", "chunk_id", "rationale")


def looks_long(record: dict) -> bool:
    return "metric" in record and "verdict" in record


def _optional_text(record: dict, name: str, *, path: Path, line: int) -> str | None:
    value = record.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return as_text(value, path=path, line=line, field=name)


def _rows(path: Path, options: ReadOptions) -> Iterator[Rating]:
    for line, record in iter_items(path):
        values = {
            name: as_text(
                require(record, name, path=path, line=line), path=path, line=line, field=name
            )
            for name in REQUIRED
            if name != "verdict"
        }
        raw = require(record, "verdict", path=path, line=line)
        value = parse_verdict(raw)
        if value is None:
            msg = f"expected a number or pass/fail, got {raw!r}"
            raise LabelerError(msg, path=path, line=line, field="verdict")
        raw_contexts = record.get("contexts")
        question = _optional_text(record, "question", path=path, line=line)
        answer = _optional_text(record, "answer", path=path, line=line)
        contexts = (
            None
            if raw_contexts in (None, "")
            else tuple(parse_list(raw_contexts, path=path, line=line, field="contexts"))
        )
        chunk_id = (_optional_text(record, "chunk_id", path=path, line=line) or "").strip() or None
        key = (_optional_text(record, "item", path=path, line=line) or "").strip()
        if not key:
            if answer is not None:
                key = answer_key(question, answer, contexts)
            elif question is not None and chunk_id is not None:
                key = chunk_key(question, chunk_id)
            else:
                msg = "missing (an item id, or an answer or a question and chunk_id to name it)"
                raise LabelerError(msg, path=path, line=line, field="item")
        item = Item(key, question, answer, contexts, chunk_id)
        kind = check_kind(values["rater_kind"], path=path, line=line)
        rater = values["rater"].strip()
        if kind == "model" and options.judge:
            rater = options.judge
        yield Rating(
            line=line,
            item=item,
            metric=values["metric"].strip(),
            rater=rater,
            kind=kind,
            value=value,
            rationale=_optional_text(record, "rationale", path=path, line=line),
        )


def read(path: Path, options: ReadOptions) -> JudgeFile:
    return JudgeFile(rows=_rows(path, options))


__all__ = ["OPTIONAL", "REQUIRED", "looks_long", "read"]
