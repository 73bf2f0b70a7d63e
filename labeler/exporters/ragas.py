"""Ragas: ``ragas.jsonl`` and ``ragas.csv``, one sample per question.

Each sample holds ``user_input`` (the question), ``reference`` (the reference answer, left out
when there is none, as Ragas does), ``reference_contexts`` (the texts of the chunks graded
``min_grade`` or more, best grade first, then by chunk id), ``reference_context_ids`` (their ids,
in the same order) and ``synthesizer_name`` (``labeler:<name>@v<N>``, which
``Testset.from_list`` requires and ``EvaluationDataset`` ignores).

Load with ``EvaluationDataset.from_jsonl("ragas.jsonl")`` or ``Testset.from_list(rows)``. In the
CSV, list columns hold JSON arrays (also valid Python literals, as Ragas' own CSVs have them);
text cells are neutralised against formulas as in every CSV we write (``labeler.spreadsheet``).
"""

from __future__ import annotations

import json
from pathlib import Path

from labeler.exporters.writing import csv_line, relevant_chunks, write_text
from labeler.spreadsheet import text_cell
from labeler.versions.format import Version

JSONL = "ragas.jsonl"
CSV = "ragas.csv"
COLUMNS = (
    "user_input",
    "reference",
    "reference_contexts",
    "reference_context_ids",
    "synthesizer_name",
)


def samples(version: Version, min_grade: int) -> list[dict]:
    content = version.content
    rows = []
    for question_id in sorted(content.questions):
        question = content.questions[question_id]
        relevant = relevant_chunks(version, question_id, min_grade)
        row = {"user_input": question.text}
        if question.reference_answer is not None:
            row["reference"] = question.reference_answer
        row["reference_contexts"] = [content.chunks[c].text for c, _ in relevant]
        row["reference_context_ids"] = [c for c, _ in relevant]
        row["synthesizer_name"] = f"labeler:{version.name}@v{version.number}"
        rows.append(row)
    return rows


def write(version: Version, out: Path, min_grade: int) -> list[Path]:
    jsonl, table = [], [csv_line(COLUMNS)]
    for row in samples(version, min_grade):
        jsonl.append(json.dumps(row, ensure_ascii=False) + "\n")
        cells = (
            row["user_input"],
            row.get("reference", ""),
            json.dumps(row["reference_contexts"], ensure_ascii=False),
            json.dumps(row["reference_context_ids"], ensure_ascii=False),
            row["synthesizer_name"],
        )
        table.append(csv_line(text_cell(c) for c in cells))
    return [write_text(out / JSONL, "".join(jsonl)), write_text(out / CSV, "".join(table))]


__all__ = ["COLUMNS", "CSV", "JSONL", "samples", "write"]
