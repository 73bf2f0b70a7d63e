"""TREC qrels (``qrels.txt``): ``question-id 0 chunk-id grade``, for trec_eval and friends.

Every judged (question, chunk) is a line, grade 0 included (trec_eval counts it as judged and
not relevant). Unanswerable questions have no line.
"""

from __future__ import annotations

from pathlib import Path

from labeler.exporters.writing import write_text
from labeler.versions.format import Version

FILE = "qrels.txt"


def write(version: Version, out: Path, min_grade: int) -> list[Path]:
    lines = "".join(f"{q} 0 {c} {g}\n" for q, c, g in version.content.qrels_lines())
    return [write_text(out / FILE, lines)]


def read(path: Path) -> dict[str, dict[str, int]]:
    """{question: {chunk: grade}} from a TREC qrels file (any whitespace between columns)."""
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            question_id, _, chunk_id, grade = line.split()
            qrels.setdefault(question_id, {})[chunk_id] = int(grade)
    return qrels


__all__ = ["FILE", "read", "write"]
