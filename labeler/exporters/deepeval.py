"""DeepEval: ``goldens.json``, a JSON list of goldens, one per question.

Each golden holds ``input`` (the question), ``expected_output`` (the reference answer or null),
``context`` (the texts of the chunks graded ``min_grade`` or more, best grade first, then by
chunk id) and ``additional_metadata``: ``question_id``, ``chunk_ids`` and ``grades`` (in the
order of ``context``), ``tags``, ``unanswerable`` and ``testset`` (``<name>@v<N>``).

Load with ``EvaluationDataset(goldens=[Golden(**g) for g in json.load(f)])`` or
``dataset.add_goldens_from_json_file(path, input_key_name="input", ...)``.
"""

from __future__ import annotations

import json
from pathlib import Path

from labeler.exporters.writing import relevant_chunks, write_text
from labeler.versions.format import Version

FILE = "goldens.json"


def goldens(version: Version, min_grade: int) -> list[dict]:
    content = version.content
    rows = []
    for question_id in sorted(content.questions):
        question = content.questions[question_id]
        relevant = relevant_chunks(version, question_id, min_grade)
        rows.append(
            {
                "input": question.text,
                "expected_output": question.reference_answer,
                "context": [content.chunks[c].text for c, _ in relevant],
                "additional_metadata": {
                    "question_id": question.id,
                    "chunk_ids": [c for c, _ in relevant],
                    "grades": [g for _, g in relevant],
                    "tags": list(question.tags),
                    "unanswerable": question.unanswerable,
                    "testset": f"{version.name}@v{version.number}",
                },
            }
        )
    return rows


def write(version: Version, out: Path, min_grade: int) -> list[Path]:
    # One golden per line: readable in a diff, and encoded by json's fast (C) encoder, which
    # indent= would replace by the pure-Python one.
    rows = [json.dumps(g, ensure_ascii=False) for g in goldens(version, min_grade)]
    text = "[\n" + ",\n".join(rows) + "\n]\n" if rows else "[]\n"
    return [write_text(out / FILE, text)]


__all__ = ["FILE", "goldens", "write"]
