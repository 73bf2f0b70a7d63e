"""CSV cells as every CSV we write them (the CSV export, ragas.csv, ``eval --per-question`` and
``eval --format csv``): one place for quoting and for neutralising formulas.

A cell of text that starts with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or ``'``
gets a leading ``'``, so a spreadsheet never runs text from a chunk, a question or an id as a
formula (CSV injection); ``unescape_cell`` takes it off again. Numbers we format ourselves are
written as they are (a negative difference stays a number).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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


__all__ = ["FORMULA_START", "csv_cell", "csv_line", "escape_cell", "text_cell", "unescape_cell"]
