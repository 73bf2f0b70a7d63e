"""What every format writer shares: atomic UTF-8 files and the relevant chunks of a question."""

from __future__ import annotations

from pathlib import Path

from labeler.atomic import write_atomically
from labeler.spreadsheet import csv_cell, csv_line
from labeler.versions.format import Version


def write_text(path: Path, text: str, *, bom: bool = False) -> Path:
    """Write UTF-8 with LF line endings, atomically (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomically(path, (("\ufeff" if bom else "") + text).encode("utf-8"))


def relevant_chunks(version: Version, question_id: str, min_grade: int) -> list[tuple[str, int]]:
    """(chunk, grade) of the question's chunks graded ``min_grade`` or more: best grade first,
    then by chunk id."""
    judged = version.content.qrels.get(question_id, {})
    return sorted(
        ((c, g) for c, g in judged.items() if g >= min_grade), key=lambda cg: (-cg[1], cg[0])
    )


__all__ = ["csv_cell", "csv_line", "relevant_chunks", "write_text"]
