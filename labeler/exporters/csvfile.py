"""A spreadsheet: ``labels.csv``, one row per (question, chunk, grade).

UTF-8 with a byte-order mark (so Excel reads accents right), LF line endings, columns
``question_id, question, reference_answer, tags, unanswerable, chunk_id, grade, doc_id, title,
chunk_text, conversation_id, turn, rewrite``; tags joined with ``|``. An unanswerable question
gets one row with no chunk. The last three are empty for a question that stands alone; for a
turn of a conversation they place it (sort by conversation and turn to read a conversation's
user turns in order; the assistant's replies are in the BEIR, Ragas and DeepEval formats).

A cell that starts with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or ``'`` gets a
leading ``'``, so a spreadsheet never runs text from a chunk as a formula (CSV injection);
``unescape_cell`` takes it off again.
"""

from __future__ import annotations

from pathlib import Path

from labeler.exporters.writing import csv_cell, csv_line, write_text
from labeler.spreadsheet import escape_cell, unescape_cell
from labeler.versions.format import Version

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
    "conversation_id",
    "turn",
    "rewrite",
)


def write(version: Version, out: Path, min_grade: int) -> list[Path]:
    content = version.content
    lines = [csv_line(COLUMNS)]
    # A question's cells repeat on each of its rows, a chunk's on every row naming it: escape
    # and quote each once.
    tails: dict[str, tuple[str, str, str, str]] = {}
    for question_id in sorted(content.questions):
        question = content.questions[question_id]
        head = csv_line(
            csv_cell(escape_cell(v))
            for v in (
                question.id,
                question.text,
                question.reference_answer or "",
                "|".join(question.tags),
                "true" if question.unanswerable else "false",
            )
        )[:-1]
        turn = question.turn
        end = csv_line(
            csv_cell(escape_cell(v))
            for v in (
                (turn.conversation, str(turn.number), turn.rewrite or "")
                if turn is not None
                else ("", "", "")
            )
        )[:-1]
        judged = sorted(content.qrels.get(question_id, {}).items())
        if not judged:
            lines.append(f"{head},,,,,,{end}\n")
        for chunk_id, grade in judged:
            tail = tails.get(chunk_id)
            if tail is None:
                chunk = content.chunks[chunk_id]
                cells = (chunk_id, chunk.doc_id or "", chunk.title or "", chunk.text)
                tail = tails[chunk_id] = tuple(csv_cell(escape_cell(v)) for v in cells)
            lines.append(f"{head},{tail[0]},{grade},{tail[1]},{tail[2]},{tail[3]},{end}\n")
    return [write_text(out / FILE, "".join(lines), bom=True)]


__all__ = ["COLUMNS", "FILE", "escape_cell", "unescape_cell", "write"]
