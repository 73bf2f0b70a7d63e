"""Reading user files line by line: strict UTF-8, JSON and JSONL, errors that name file and line.

Pure Python (no numpy) so that ``labeler faithfulness`` and the gate can use it cheaply.
The same conventions as ``labeler.importers.readers`` (a BOM is accepted, blank lines skipped),
kept here because importing that package opens the store.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from labeler.errors import LabelerError

BOM = b"\xef\xbb\xbf"


def check_file(path: str | Path) -> Path:
    path = Path(path)
    if not path.exists():
        raise LabelerError("no such file", path=path)
    if not path.is_file():
        raise LabelerError("not a file", path=path)
    return path


def lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank line, strictly UTF-8 (a BOM is accepted)."""
    path = Path(path)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1:
                if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                    raise LabelerError("the file is UTF-16; save it as UTF-8", path=path, line=1)
                raw = raw.removeprefix(BOM)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                msg = f"not valid UTF-8 (byte {error.start + 1} of the line); save it as UTF-8"
                raise LabelerError(msg, path=path, line=number) from None
            if text.strip():
                yield number, text


def jsonl(path: str | Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every line of a JSONL file."""
    path = check_file(path)
    for number, text in lines(path):
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            msg = f"not valid JSON: {error.msg} at column {error.colno}"
            raise LabelerError(msg, path=path, line=number) from None
        if not isinstance(record, dict):
            msg = f"expected a JSON object, got {type(record).__name__}"
            raise LabelerError(msg, path=path, line=number)
        yield number, record


def json_file(path: str | Path) -> Any:
    """A whole JSON document (an empty file reads as {})."""
    path = check_file(path)
    text = "".join(t for _, t in lines(path))
    try:
        return json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as error:
        msg = f"not valid JSON: {error.msg} at column {error.colno}"
        raise LabelerError(msg, path=path, line=error.lineno) from None


def text_field(record: dict, field: str, *, path: str | Path, line: int) -> str:
    """A required id or text field (a whole number is accepted as its text)."""
    value = record.get(field)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        what = "missing" if value is None else f"expected text, got {value!r}"
        raise LabelerError(what, path=path, line=line, field=field)
    return value


__all__ = ["check_file", "json_file", "jsonl", "lines", "text_field"]
