"""A spreadsheet: ``labels.csv``, one row per (question, chunk, grade).

UTF-8 with a byte-order mark (so Excel reads accents right), LF line endings, columns
``question_id, question, reference_answer, tags, unanswerable, chunk_id, grade, doc_id, title,
chunk_text``; tags joined with ``|``. An unanswerable question gets one row with no chunk.

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or ``'`` gets a
leading ``'``, so a spreadsheet never runs text from a chunk as a formula (CSV injection);
``unescape_cell`` takes it off again.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from labeler.exporters.layout import Version
from labeler.exporters.writing import write_text

FILE = "labels.csv"
COLUMNS = (
    "question_id",
    "question",
    "reference_answer",
    "tags",
    "unanswerable",
    "chunk_id",
    "grade",
    "doc_id",
    "title",
    "chunk_text",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def escape_cell(value: str) -> str:
    return "'" + value if value.startswith(_FORMULA_START) else value


def unescape_cell(value: str) -> str:
    return value[1:] if value.startswith("'") else value


def write(version: Version, out: Path, min_grade: int) -> list[Path]:
    content = version.content
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for question_id in sorted(content.questions):
        question = content.questions[question_id]
        head = [
            question.id,
            question.question,
            question.reference_answer or "",
            "|".join(question.tags),
            "true" if question.unanswerable else "false",
        ]
        judged = sorted(content.qrels.get(question_id, {}).items())
        if not judged:
            writer.writerow([escape_cell(v) for v in [*head, "", "", "", "", ""]])
        for chunk_id, grade in judged:
            chunk = content.chunks[chunk_id]
            tail = [chunk_id, str(grade), chunk.doc_id or "", chunk.title or "", chunk.text]
            writer.writerow([escape_cell(v) for v in [*head, *tail]])
    return [write_text(out / FILE, buffer.getvalue(), bom=True)]


__all__ = ["COLUMNS", "FILE", "escape_cell", "unescape_cell", "write"]
