"""Tables and charts drawn as plain, inert HTML: the Results page's figures.

Why not ``st.dataframe`` and Vega-Lite? On the Results page's first open they made the browser
fetch 53 script chunks (the data grid and Vega) and draw eight canvas grids and two charts:
on the demo, at load 5, Chromium spent 5.4 s of CPU on the page, 2.6 s with these tables
instead (issue #23: the page must open in under 2 s). A canvas grid also cuts a long cell
("no text is cut"), where an HTML table wraps it; and the figures can be selected and copied.

Every piece of text (run names, questions, metric names) is escaped here; the only markup is
this module's own, with no link, image or script: what a file or a person typed stays text.
A numeric cell carries its exact value in ``data-value`` (tests read it; people read the
rounded figure). Numbers are printed through ``labeler.numbers``: never "-0.000".
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import streamlit as st

from labeler.metrics.comparison import TIE
from labeler.numbers import plain, signed

DASH = "\N{EM DASH}"
Kind = Literal["auto", "text", "number", "signed", "share", "interval"]


@dataclass(frozen=True, slots=True)
class Column:
    """How a column shows: ``number`` (``digits`` decimals), ``signed`` (with its sign),
    ``share`` (a value in [0, 1] as a percent with a bar), ``interval`` (a (mean, low, high)
    triple on a 0-1 track), ``text``; ``auto`` numbers floats to ``digits`` and prints the
    rest as it is."""

    name: str
    kind: Kind = "auto"
    digits: int = 3


def _escape(value: object) -> str:
    return html.escape(str(value), quote=True)


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _percent(share: float) -> float:
    return round(100 * min(max(share, 0.0), 1.0), 1)


def _cell(value: object, column: Column) -> str:
    if _missing(value):
        return f'<td class="lbl-none">{DASH}</td>'
    kind = column.kind
    if kind == "interval":
        mean, low, high = value  # type: ignore[misc]
        if _missing(mean):
            return f'<td class="lbl-none">{DASH}</td>'
        digits = column.digits
        text = f"{plain(mean, digits)} [{plain(low, digits)}, {plain(high, digits)}]"
        left, width = _percent(low), max(_percent(high) - _percent(low), 0.4)
        track = (
            f'<div class="lbl-track"><span class="lbl-span" style="left:{left}%;'
            f'width:{width}%"></span><span class="lbl-dot" style="left:{_percent(mean)}%">'
            "</span></div>"
        )
        return f'<td class="lbl-num" data-value="{float(mean)!r}">{text}{track}</td>'
    if kind == "text" or isinstance(value, (str, bool)):
        return f"<td>{_escape(value)}</td>"
    if not isinstance(value, (int, float)):
        return f"<td>{_escape(value)}</td>"
    exact = f' data-value="{float(value)!r}"'
    if kind == "share":
        bar = f'<span class="lbl-bar" style="width:{_percent(value)}%"></span>'
        return f'<td class="lbl-num"{exact}>{plain(100 * value, 0)} %{bar}</td>'
    if kind == "signed":
        return f'<td class="lbl-num"{exact}>{signed(value, column.digits)}</td>'
    if isinstance(value, int) and kind == "auto":
        return f'<td class="lbl-num"{exact}>{value:,}</td>'
    return f'<td class="lbl-num"{exact}>{plain(value, column.digits)}</td>'


def table_html(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str | Column] | None = None,
    *,
    tall: bool = False,
) -> str:
    """``rows`` as an HTML table, the columns of ``columns`` (by default the first row's keys,
    shown as ``auto``); ``tall``: in a box that scrolls past about 14 rows."""
    if columns is None:
        columns = list(rows[0]) if rows else []
    spec = [c if isinstance(c, Column) else Column(c) for c in columns]
    head = "".join(f"<th>{_escape(c.name)}</th>" for c in spec)
    body = "".join(
        "<tr>" + "".join(_cell(row.get(c.name), c) for c in spec) + "</tr>" for row in rows
    )
    table = f'<table class="lbl-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
    return f'<div class="lbl-table-box{" lbl-tall" if tall else ""}">{table}</div>'


def show_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str | Column] | None = None,
    *,
    key: str,
    tall: bool = False,
) -> None:
    """``table_html`` on the page, in a container named ``key`` (tests and styles find it)."""
    with st.container(key=key):
        st.html(table_html(rows, columns, tall=tall))


# -- the question-by-question chart -----------------------------------------------------------

BARS = 200  # at most this many bars: beyond, each bar is the mean of a run of questions


def differences_html(
    questions: Sequence[str], differences: Sequence[float], run_a: str, run_b: str, metric: str
) -> str:
    """One bar per question (sorted as given, by difference), up from the middle where
    ``run_a`` is better, down where ``run_b`` is, grey for a tie; a bar's tooltip names its
    question and difference. Past ``BARS`` questions, a bar stands for a run of consecutive
    questions (their mean), so the chart keeps its shape at 10,000 questions."""
    n = len(differences)
    if n == 0:
        return ""
    per = max(1, math.ceil(n / BARS))
    scale = max((abs(d) for d in differences), default=0.0) or 1.0
    bars = []
    for start in range(0, n, per):
        part = differences[start : start + per]
        value = sum(part) / len(part)
        if per == 1:
            label = f"{questions[start]}: {signed(value, 3)}"
        else:
            first, last = start + 1, start + len(part)
            label = f"questions {first:,}-{last:,} of {n:,}: mean {signed(value, 3)}"
        side = "lbl-a" if value > TIE else "lbl-b" if value < -TIE else "lbl-tie"
        height = max(round(50 * abs(value) / scale, 1), 0.6)
        bars.append(
            f'<span class="lbl-bar-col {side}" title="{_escape(label)}">'
            f'<span style="height:{height}%"></span></span>'
        )
    wins = sum(d > TIE for d in differences)
    losses = sum(d < -TIE for d in differences)
    legend = (
        f'<div class="lbl-legend"><span class="lbl-a">&#9632;</span> {_escape(run_a)} better'
        f' ({wins:,}) &nbsp; <span class="lbl-tie">&#9632;</span> tie ({n - wins - losses:,})'
        f' &nbsp; <span class="lbl-b">&#9632;</span> {_escape(run_b)} better ({losses:,})'
        f" &nbsp; ({_escape(metric)}: {_escape(run_a)} - {_escape(run_b)}; the tallest"
        f" bar is {signed(scale, 3).lstrip('+')} either way)</div>"
    )
    return f'<div class="lbl-bars">{"".join(bars)}</div>{legend}'


__all__ = ["BARS", "DASH", "Column", "differences_html", "show_table", "table_html"]
