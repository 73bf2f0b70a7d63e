"""Tables of records: CSV and TSV with a header row, Parquet, JSON lines and JSON, chosen by the
file's extension (one rule for every importer, in ``labeler.readers.files``).

Each reader yields ``(line, record)``: the line a row starts on (for Parquet, the 1-based row),
and the row as a dict of its columns. CSV and TSV cells are text; what a cell must hold is
decided by the converters of ``labeler.readers.fields``, as for JSON values.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError, cut, shown
from labeler.readers.files import CSV, JSON, JSONL, PARQUET, TSV, Progress, check_file, lines
from labeler.readers.jsonfiles import iter_json_items, iter_jsonl

# csv's default limit (128 KiB) is smaller than a long chunk; 64 MiB is still a sane bound.
csv.field_size_limit(64 * 1024 * 1024)


def iter_csv(
    path: str | Path, progress: Progress | None = None, *, delimiter: str = ","
) -> Iterator[tuple[int, dict]]:
    """Rows of a CSV (or, with ``delimiter="\\t"``, TSV) file with a header, as dicts; the line
    is where the row starts (a quoted cell may span lines). Blank rows are skipped; a row with
    another number of cells than the header is an error, and so is a quoted cell that is never
    closed, or closed with text after it (``"a"b``): read leniently, one missing quote would
    swallow every row after it into one cell."""
    path = check_file(path)
    reader = csv.reader(
        (text + "\n" for _, text in lines(path, progress, keep_blank=True)),
        delimiter=delimiter,
        strict=True,
    )
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as error:
        raise _table_error(error, path, 1, [], delimiter) from None
    header = [h.strip() for h in header]
    twice = sorted({h for h in header if header.count(h) > 1 and h})
    if twice:
        msg = f"the column {shown(twice[0])} appears twice in the header"
        raise LabelerError(msg, path=path, line=reader.line_num, field=cut(twice[0]))
    line = reader.line_num
    while True:
        start = line + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise _table_error(error, path, start, header, delimiter) from None
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            msg = f"expected {len(header)} columns as in the header, got {len(row)}"
            raise LabelerError(msg, path=path, line=start)
        yield start, dict(zip(header, row, strict=True))


def _table_error(
    error: csv.Error, path: Path, start: int, header: list[str], delimiter: str
) -> LabelerError:
    """The error for a row starting on line ``start`` that the csv module refused: a badly
    quoted cell is named by the line its quote opens on and its column."""
    found = _bad_quote(path, start, delimiter)
    if found is None:
        return LabelerError(f"not a valid table: {error}", path=path, line=start)
    opened, column, closed = found
    field = cut(header[column]) if column < len(header) else f"column {column + 1}"
    if closed is None:
        msg = (
            "the quoted cell that opens here is never closed: a '\"' is missing, and every"
            " line after it would be read into this one cell"
        )
    else:
        on = "" if closed == opened else f" on line {closed}"
        msg = (
            f"the quoted cell that opens here has more text after its closing '\"'{on} (a quote"
            ' inside a quoted cell is written twice: "")'
        )
    return LabelerError(msg, path=path, line=opened, field=field)


def _bad_quote(path: Path, start: int, delimiter: str) -> tuple[int, int, int | None] | None:
    """(line, column, closing line or None) of the quoted cell of the row starting on line
    ``start`` that is never closed or has text after its closing quote; None if there is
    none. Read again from the row's start, on the error path only, jumping from quote to
    quote (a quote left open runs to the end of the file)."""
    column, opened, quoted = 0, 0, False
    for number, text in lines(path, keep_blank=True):
        if number < start:
            continue
        position = 0
        while position <= len(text):
            if quoted:
                close = text.find('"', position)
                if close < 0:
                    break  # the cell goes on on the next line
                following = text[close + 1 : close + 2]
                if following == '"':
                    position = close + 2
                    continue
                if following not in ("", delimiter):
                    return opened, column, number
                quoted, position = False, close + 1
                continue
            if text.startswith('"', position):
                quoted, opened, position = True, number, position + 1
                continue
            after = text.find(delimiter, position)
            if after < 0:
                return None  # the row ends on this line: its quotes are fine
            column, position = column + 1, after + 1
    return (opened, column, None) if quoted else None


def iter_tsv(path: str | Path, progress: Progress | None = None) -> Iterator[tuple[int, dict]]:
    """Rows of a tab-separated file with a header (``iter_csv`` with tabs)."""
    return iter_csv(path, progress, delimiter="\t")


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


def _expected(kinds: tuple[str, ...]) -> str:
    return ", ".join(kinds[:-1]) + " or " + kinds[-1] if len(kinds) > 1 else kinds[0]


READERS = {
    **dict.fromkeys(JSONL, "jsonl"),
    **dict.fromkeys(JSON, "json"),
    **dict.fromkeys(CSV, "csv"),
    **dict.fromkeys(TSV, "tsv"),
    **dict.fromkeys(PARQUET, "parquet"),
}


def iter_records(
    path: str | Path,
    progress: Progress | None = None,
    *,
    accept: tuple[str, ...] = ("jsonl", "csv", "tsv", "parquet"),
    list_keys: tuple[str, ...] = (),
) -> Iterator[tuple[int, dict]]:
    """Records of a table, by the file's extension: ``.jsonl``/``.ndjson`` JSON lines,
    ``.json`` a JSON list of objects (or an object holding it under one of ``list_keys``),
    ``.csv`` comma-separated and ``.tsv``/``.tab`` tab-separated with a header row,
    ``.parquet``/``.pq`` Parquet. ``accept`` lists the kinds this importer takes."""
    path = check_file(path)
    kind = READERS.get(path.suffix.lower())
    if kind not in accept:
        shown = [s for s, k in READERS.items() if k in accept]
        msg = f"unknown file type {path.suffix.lower() or '(none)'!r}: expected {_expected(shown)}"
        raise LabelerError(msg, path=path)
    if kind == "jsonl":
        return iter_jsonl(path, progress)
    if kind == "json":
        return iter_json_items(path, list_keys=list_keys)
    if kind == "csv":
        return iter_csv(path, progress)
    if kind == "tsv":
        return iter_tsv(path, progress)
    return iter_parquet(path, progress)


def iter_items(path: str | Path, *, list_keys: tuple[str, ...] = ()) -> Iterator[tuple[int, dict]]:
    """Records of other tools' test sets (Ragas, DeepEval): CSV, TSV, JSON lines, or JSON."""
    return iter_records(path, accept=("jsonl", "json", "csv", "tsv"), list_keys=list_keys)


__all__ = ["READERS", "iter_csv", "iter_items", "iter_parquet", "iter_records", "iter_tsv"]
