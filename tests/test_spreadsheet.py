"""CSV cells: formulas neutralised, numbers kept, and no CSV written anywhere else (#19 item 6)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from labeler.spreadsheet import Figure, cell, csv_text, escape_cell, text_cell, unescape_cell

PACKAGE = Path(__file__).resolve().parents[1] / "labeler"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+33 1 23", "'+33 1 23"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("'quoted", "''quoted"),
        ("plain", "plain"),
        ("", ""),
        (None, ""),
        (-2, "-2"),
        (0.25, "0.25"),
        (-0.1, "-0.1"),
        (True, "true"),
        (Figure("-0.5000"), "-0.5000"),
    ],
)
def test_a_cell_is_neutralised_text_or_a_number(value: object, written: str) -> None:
    assert cell(value) == written


def test_csv_text_quotes_and_neutralises_every_text_cell() -> None:
    text = csv_text([("id", "text", "score"), ("=q1", 'say "hi",\nthen -x', -1.5)])
    assert text == 'id,text,score\n\'=q1,"say ""hi"",\nthen -x",-1.5\n'
    rows = list(csv.reader(io.StringIO(text)))
    assert [unescape_cell(c) for c in rows[1]] == ["=q1", 'say "hi",\nthen -x', "-1.5"]


def test_the_fast_cells_agree_with_cell() -> None:
    for value in ("=x", "a,b", 'q"', "-1", "plain"):
        assert text_cell(value) == csv_text([(value,)]).rstrip("\n")
        assert escape_cell(value) == cell(value)


CSV_WRITERS = re.compile(r"csv\.writer\(|csv\.DictWriter\(|\.to_csv\(")


def test_no_module_but_the_spreadsheet_writes_csv() -> None:
    """Every CSV we write goes through labeler.spreadsheet, so no writer can forget the
    formula check (#19 item 6 found two that did: review list and the remap report)."""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "spreadsheet.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if CSV_WRITERS.search(line)
    ]
    assert found == []
    assert CSV_WRITERS.search((PACKAGE / "spreadsheet.py").read_text(encoding="utf-8"))
