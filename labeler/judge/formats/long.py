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

from labeler.errors import LabelerError, shown
from labeler.judge.records import (
    Item,
    JudgeFile,
    Rating,
    ReadOptions,
    answer_key,
    check_kind,
    chunk_key,
)
from labeler.judge.scales import parse_verdict
from labeler.readers import as_text, as_texts, iter_items, require

REQUIRED = ("metric", "rater", "rater_kind", "verdict")
OPTIONAL = ("question", "answer", "contexts", "chunk_id", "rationale")


def looks_long(record: dict) -> bool:
    return "metric" in record and "verdict" in record


def _optional_text(record: dict, name: str, *, path: Path, line: int) -> str | None:
    value = record.get(name)
    if type(value) is str:  # the common case, checked first: this runs for every row
        return value if value.strip() else None
    if value is None:
        return None
    return as_text(value, path=path, line=line, field=name)


def _required_text(record: dict, name: str, *, path: Path, line: int) -> str:
    value = record.get(name)
    if type(value) is str and value.strip():
        return value.strip()
    return as_text(
        require(record, name, path=path, line=line), path=path, line=line, field=name
    ).strip()


def _item(record: dict, path: Path, line: int, seen: dict) -> Item:
    """The row's item; rows repeating an item's details reuse the Item parsed the first time
    (most files repeat them on every row), so the core's consistency check is an identity."""
    raw = (
        record.get("item"),
        record.get("question"),
        record.get("answer"),
        record.get("contexts"),
        record.get("chunk_id"),
    )
    known = seen.get(raw[0]) if type(raw[0]) is str else None
    if known is not None and known[0] == raw:
        return known[1]
    question = _optional_text(record, "question", path=path, line=line)
    answer = _optional_text(record, "answer", path=path, line=line)
    contexts = (
        None
        if raw[3] in (None, "")
        else tuple(as_texts(raw[3], path=path, line=line, field="contexts"))
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
    if type(raw[0]) is str:
        seen[raw[0]] = (raw, item)
    return item


def _rows(path: Path, options: ReadOptions) -> Iterator[Rating]:
    seen: dict[str, tuple] = {}
    kinds: dict[str, str] = {}
    for line, record in iter_items(path):
        metric = _required_text(record, "metric", path=path, line=line)
        rater = _required_text(record, "rater", path=path, line=line)
        raw_kind = record.get("rater_kind")
        kind = kinds.get(raw_kind) if type(raw_kind) is str else None
        if kind is None:
            kind = check_kind(raw_kind, path=path, line=line)
            kinds[raw_kind] = kind
        raw = record.get("verdict")
        value = parse_verdict(raw)
        if value is None:
            if raw is None or raw == "":
                raise LabelerError("missing or empty", path=path, line=line, field="verdict")
            msg = f"expected a number or pass/fail, got {shown(raw)}"
            raise LabelerError(msg, path=path, line=line, field="verdict")
        if kind == "model" and options.judge:
            rater = options.judge
        yield Rating(
            line=line,
            item=_item(record, path, line, seen),
            metric=metric,
            rater=rater,
            kind=kind,
            value=value,
            rationale=_optional_text(record, "rationale", path=path, line=line),
        )


def read(path: Path, options: ReadOptions) -> JudgeFile:
    return JudgeFile(rows=_rows(path, options))


__all__ = ["OPTIONAL", "REQUIRED", "looks_long", "read"]
