"""CSV cells as every CSV we write them (the CSV export, ragas.csv, ``eval --per-question``,
``eval --format csv``, ``review list --format csv``, ``remap --report``): one place for quoting
and for neutralising formulas. No other module writes CSV (``tests/test_spreadsheet.py``
holds them to it).

A cell of text that starts with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or ``'``
gets a leading ``'``, so a spreadsheet never runs text from a chunk, a question or an id as a
formula (CSV injection); ``unescape_cell`` takes it off again. Numbers are written as they are
(a negative difference stays a number): ints and floats, and ``Figure``, a number the caller
formatted itself.

Two ways to write: ``write_rows``/``csv_text`` for rows of values (each cell through
``cell``), and ``csv_cell``/``text_cell``/``csv_line`` for writers that quote a long text once
and reuse it (the CSV export of 150,000 rows).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from typing import TextIO

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")
_NEEDS_QUOTES = re.compile('[",\r\n]')


def escape_cell(value: str) -> str:
    """Text made safe to open in a spreadsheet."""
    return "'" + value if value.startswith(FORMULA_START) else value


def unescape_cell(value: str) -> str:
    return value[1:] if value.startswith("'") else value


def csv_cell(value: str) -> str:
    """One CSV field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a
    quote or a line break. Quoting a long text once and reusing it is what keeps a CSV of
    150,000 rows fast; Python's csv module re-quotes every field of every row."""
    if _NEEDS_QUOTES.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def text_cell(value: str) -> str:
    """A cell of text: neutralised, then quoted."""
    return csv_cell(escape_cell(value))


def csv_line(cells: Iterable[str]) -> str:
    """A CSV line from cells already passed through ``csv_cell`` (or ``text_cell``)."""
    return ",".join(cells) + "\n"


class Figure(str):
    """A number the caller formatted itself (``Figure(f"{share:.4f}")``): written as it is,
    never taken for text to neutralise."""

    __slots__ = ()


def cell(value: object) -> str:
    """One cell's text: None empty, numbers as they are (a float as ``repr`` writes it, so it
    reads back the same), anything else as neutralised text."""
    if value is None:
        return ""
    if isinstance(value, Figure):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return escape_cell(str(value))


def write_rows(handle: TextIO, rows: Iterable[Iterable[object]]) -> None:
    """Rows as CSV to an open text file (opened with ``newline=""``): RFC 4180 quoting, lines
    ending in ``\\n``, every cell through ``cell``."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerows([cell(value) for value in row] for row in rows)


def csv_text(rows: Iterable[Iterable[object]]) -> str:
    """Rows as CSV text (``write_rows``)."""
    out = io.StringIO()
    write_rows(out, rows)
    return out.getvalue()


__all__ = [
    "FORMULA_START",
    "Figure",
    "cell",
    "csv_cell",
    "csv_line",
    "csv_text",
    "escape_cell",
    "text_cell",
    "unescape_cell",
    "write_rows",
]
