"""What a judge file holds, as every format reader hands it to the import: the items rated, one
``Rating`` per verdict, and what the file tells of each metric (``MetricHint``). The readers
(``labeler.judge.formats``) produce these; ``labeler.judge.importing`` stores them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from labeler.errors import LabelerError, shown

KINDS = ("model", "human")


@dataclass(frozen=True, slots=True)
class Item:
    """What was rated. ``question`` is a question id or its text; ``contexts`` texts or chunk
    ids; ``chunk_id`` names the chunk of a (question, chunk) item."""

    key: str
    question: str | None = None
    answer: str | None = None
    contexts: tuple[str, ...] | None = None
    chunk_id: str | None = None


@dataclass(frozen=True, slots=True)
class Rating:
    line: int
    item: Item
    metric: str
    rater: str
    kind: str
    value: float
    passed: bool | None = None
    rationale: str | None = None
    extra: dict | None = None


@dataclass(slots=True)
class MetricHint:
    """What a file says about a metric: its scale, a score's threshold, which way passes."""

    scale: str | None = None
    threshold: float | None = None
    pass_when: str | None = None


@dataclass(slots=True)
class JudgeFile:
    """A reader's output: rows (read lazily), and what it learnt while reading them."""

    rows: Iterator[Rating]
    hints: dict[str, MetricHint] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    # Columns a reader took for metrics on trust (Ragas' numeric columns of names no metric
    # is known by): dropped, and reported, when their values turn out not to be scores from
    # 0 to 1.
    tentative: set[str] = field(default_factory=set)
    # Where the file holds a metric's values, when not in a field called "verdict" (a Ragas
    # column named after the metric): what an error about a value names.
    value_fields: dict[str, str] = field(default_factory=dict)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


@dataclass(frozen=True, slots=True)
class ReadOptions:
    judge: str | None = None  # the model rater's name, over what the file says
    reviewer: str | None = None  # the person's name where the file names nobody


def answer_key(question: str | None, answer: str | None, contexts: Iterable[str] | None) -> str:
    """An item id derived from what was rated, so the same answer to the same question with
    the same contexts is one item, whichever tool judged it and however often it is imported."""
    payload = json.dumps(
        [question or "", answer or "", list(contexts or ())], ensure_ascii=False
    ).encode("utf-8")
    return "answer-" + hashlib.sha1(payload).hexdigest()[:16]


def chunk_key(question: str, chunk_id: str) -> str:
    """An item id for a (question, chunk) pair named by its content."""
    payload = json.dumps([question, chunk_id], ensure_ascii=False).encode("utf-8")
    return "chunk-" + hashlib.sha1(payload).hexdigest()[:16]


def check_kind(value: object, *, path: Path, line: int, field: str = "rater_kind") -> str:
    kind = str(value or "").strip().lower()
    if kind not in KINDS:
        msg = f"expected model or human, got {shown(value)}"
        raise LabelerError(msg, path=path, line=line, field=field)
    return kind


__all__ = [
    "KINDS",
    "Item",
    "JudgeFile",
    "MetricHint",
    "Rating",
    "ReadOptions",
    "answer_key",
    "check_kind",
    "chunk_key",
]
