"""Streaming readers for the files users bring: JSONL, JSON, CSV, Parquet, whitespace tables.

Each yields ``(line_number, record)`` one at a time, so a 1 GB file needs no more memory than
its longest line, and reports the bytes it has read to an optional ``progress`` callback. Every
problem raises LabelerError naming the file, the line and, where it applies, the field. Shared
by the importers and the metric engine, so it imports nothing heavier than the standard library
(pyarrow only when a Parquet file is read).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from labeler.errors import LabelerError

Progress = Callable[[int], None]

# csv's default limit (128 KiB) is smaller than a long chunk; 64 MiB is still a sane bound.
csv.field_size_limit(64 * 1024 * 1024)


def check_file(path: str | Path) -> Path:
    path = Path(path)
    if not path.exists():
        raise LabelerError("no such file", path=path)
    if not path.is_file():
        raise LabelerError("not a file", path=path)
    return path


BOM = b"\xef\xbb\xbf"


def lines(
    path: str | Path, progress: Progress | None = None, *, keep_blank: bool = False
) -> Iterator[tuple[int, str]]:
    """Decoded lines without their line ending, strictly UTF-8 (a BOM is accepted), numbered
    from 1. Blank lines are skipped unless ``keep_blank`` (CSV needs them inside quotes)."""
    path = Path(path)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if progress is not None:
                progress(len(raw))
            if number == 1:
                if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                    raise LabelerError("the file is UTF-16; save it as UTF-8", path=path, line=1)
                raw = raw.removeprefix(BOM)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                msg = (
                    f"not valid UTF-8 (byte {error.start + 1} of the line); save the file as UTF-8"
                )
                raise LabelerError(msg, path=path, line=number) from None
            text = text.rstrip("\r\n")
            if keep_blank or text.strip():
                yield number, text


def iter_jsonl(path: str | Path, progress: Progress | None = None) -> Iterator[tuple[int, dict]]:
    path = check_file(path)
    for number, text in lines(path, progress):
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            msg = f"not valid JSON: {error.msg} at column {error.colno}"
            raise LabelerError(msg, path=path, line=number) from None
        if not isinstance(record, dict):
            msg = f"expected a JSON object, got {type(record).__name__}"
            raise LabelerError(msg, path=path, line=number)
        yield number, record


def iter_csv(path: str | Path, progress: Progress | None = None) -> Iterator[tuple[int, dict]]:
    """Rows of a CSV file with a header, as dicts; the line is where the row starts."""
    path = check_file(path)
    reader = csv.reader(text + "\n" for _, text in lines(path, progress, keep_blank=True))
    try:
        header = next(reader)
    except StopIteration:
        raise LabelerError("the file is empty (a header row is needed)", path=path) from None
    header = [h.strip() for h in header]
    line = reader.line_num
    for row in reader:
        start, line = line + 1, reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            msg = f"expected {len(header)} columns as in the header, got {len(row)}"
            raise LabelerError(msg, path=path, line=start)
        yield start, dict(zip(header, row, strict=True))


def iter_parquet(path: str | Path, progress: Progress | None = None) -> Iterator[tuple[int, dict]]:
    """Rows of a Parquet file, read one record batch at a time; 'line' is the 1-based row."""
    import pyarrow.parquet as pq

    path = check_file(path)
    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises several types for a file that is not Parquet
        raise LabelerError(f"not a readable Parquet file: {error}", path=path) from None
    total_rows = max(parquet.metadata.num_rows, 1)
    size = path.stat().st_size
    number = 0
    for batch in parquet.iter_batches(batch_size=10_000):
        for record in batch.to_pylist():
            number += 1
            yield number, record
        if progress is not None:
            progress(size * batch.num_rows // total_rows)


def json_file(path: str | Path) -> Any:
    """A whole JSON document (an empty file reads as {})."""
    path = check_file(path)
    text = "\n".join(t for _, t in lines(path, keep_blank=True))
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


def iter_records(path: str | Path, progress: Progress | None = None) -> Iterator[tuple[int, dict]]:
    """JSONL, CSV or Parquet, chosen by the file's extension."""
    path = check_file(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return iter_jsonl(path, progress)
    if suffix in (".csv", ".tsv"):
        return iter_csv(path, progress)
    if suffix in (".parquet", ".pq"):
        return iter_parquet(path, progress)
    msg = f"unknown file type {suffix!r}: expected .jsonl, .csv or .parquet"
    raise LabelerError(msg, path=path)


def iter_columns(
    path: str | Path, progress: Progress | None = None
) -> Iterator[tuple[int, list[str]]]:
    """Whitespace-separated columns of a TREC-style file (blank lines and # comments skipped)."""
    path = check_file(path)
    for number, text in lines(path, progress):
        if not text.lstrip().startswith("#"):
            yield number, text.split()


def require(record: dict, field: str, *, path: Path | str, line: int) -> Any:
    """The value of a field that must be present and not empty."""
    value = record.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise LabelerError("missing or empty", path=path, line=line, field=field)
    return value


def first_of(record: dict, fields: tuple[str, ...]) -> tuple[str | None, Any]:
    """The first of several accepted names that the record holds: (name, value)."""
    for name in fields:
        value = record.get(name)
        if value is not None and not (isinstance(value, str) and not value.strip()):
            return name, value
    return None, None


def as_text(value: Any, *, path: Path | str, line: int, field: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        msg = f"expected text, got {type(value).__name__}"
        raise LabelerError(msg, path=path, line=line, field=field)
    return value


def as_int(value: Any, *, path: Path | str, line: int, field: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        number = int(value) if not isinstance(value, float) or value.is_integer() else None
    except (TypeError, ValueError):
        number = None
    if number is None or isinstance(value, bool):
        msg = f"expected a whole number, got {value!r}"
        raise LabelerError(msg, path=path, line=line, field=field)
    return number


def file_size(path: str | Path) -> int:
    return Path(path).stat().st_size
