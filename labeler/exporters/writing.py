"""What every format writer shares: atomic UTF-8 files and the relevant chunks of a question."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

from labeler.version_format import Version


def write_text(path: Path, text: str, *, bom: bool = False) -> Path:
    """Write UTF-8 with LF line endings, atomically (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = ("\ufeff" if bom else "") + text
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data.encode("utf-8"))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


_NEEDS_QUOTES = re.compile('[",\r\n]')


def csv_cell(value: str) -> str:
    """One CSV field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a
    quote or a line break. Quoting a long text once and reusing it is what keeps a CSV of
    150,000 rows fast; Python's csv module re-quotes every field of every row."""
    if _NEEDS_QUOTES.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def csv_line(cells: Iterable[str]) -> str:
    """A CSV line from cells already passed through ``csv_cell``."""
    return ",".join(cells) + "\n"


def relevant_chunks(version: Version, question_id: str, min_grade: int) -> list[tuple[str, int]]:
    """(chunk, grade) of the question's chunks graded ``min_grade`` or more: best grade first,
    then by chunk id."""
    judged = version.content.qrels.get(question_id, {})
    return sorted(
        ((c, g) for c, g in judged.items() if g >= min_grade), key=lambda cg: (-cg[1], cg[0])
    )


__all__ = ["csv_cell", "csv_line", "relevant_chunks", "write_text"]
