"""The Results page's HTML tables and question chart: inert, exact, and never "-0.000"."""

from __future__ import annotations

import math
import re

from labeler.app.tables import BARS, DASH, Column, differences_html, table_html
from tests.conftest import html_rows


def test_cells_show_rounded_figures_and_carry_the_exact_ones() -> None:
    rows = [
        {"run": "bm25", "mean": 0.66666, "change": -0.00004, "n": 1234, "share": 5 / 6},
        {"run": "dense", "mean": None, "change": math.nan, "n": 0, "share": 1.0},
    ]
    columns = ["run", "mean", Column("change", "signed"), "n", Column("share", "share")]
    body = table_html(rows, columns)
    assert '<td class="lbl-num" data-value="0.66666">0.667</td>' in body
    # a difference that rounds to zero reads +0.000, never -0.000 (issue #23)
    assert ">+0.000</td>" in body
    assert "-0.000" not in body
    assert ">1,234</td>" in body
    assert '>83 %<span class="lbl-bar" style="width:83.3%">' in body
    assert body.count(f">{DASH}</td>") == 2  # None and NaN alike
    read = html_rows(body)
    assert read[0] == {
        "run": "bm25",
        "mean": 0.66666,
        "change": -0.00004,
        "n": 1234.0,
        "share": 5 / 6,
    }
    assert read[1]["mean"] == DASH
    assert read[1]["change"] == DASH


def test_an_interval_is_its_figures_and_a_track_on_a_0_to_1_scale() -> None:
    body = table_html([{"m": (0.5, 0.25, 0.75)}], [Column("m", "interval")])
    assert ">0.500 [0.250, 0.750]<" in body
    assert 'style="left:25.0%;width:50.0%"' in body
    assert 'class="lbl-dot" style="left:50.0%"' in body


def test_text_from_files_stays_text() -> None:
    hostile = '<img src=x onerror=alert(1)> **bold** [link](http://example.invalid)"'
    body = table_html([{hostile: hostile}])
    assert "<img" not in body
    assert body.count("&lt;img src=x onerror=alert(1)&gt;") == 2
    assert "&quot;" in body
    assert not re.search(r"<(a|script|img|svg)\b", body)


def test_columns_default_to_the_first_rows_keys_and_a_tall_table_scrolls() -> None:
    body = table_html([{"a": 1, "b": "x"}], tall=True)
    assert body.startswith('<div class="lbl-table-box lbl-tall">')
    assert "<th>a</th><th>b</th>" in body
    assert table_html([]).count("<tr>") == 1  # only the (empty) heading row


def test_the_question_chart_has_a_bar_a_question_and_counts_each_side() -> None:
    body = differences_html(["q1", "q2", "q3"], [-0.5, 0.0, 0.25], "hybrid", "bm25", "ndcg@10")
    bars = re.findall(
        r'class="lbl-bar-col (\S+)" title="([^"]+)"><span style="height:([\d.]+)%', body
    )
    # heights: half the chart for the largest |difference|, the rest in proportion
    assert bars == [
        ("lbl-b", "q1: -0.500", "50.0"),
        ("lbl-tie", "q2: +0.000", "0.6"),
        ("lbl-a", "q3: +0.250", "25.0"),
    ]
    assert "hybrid better (1)" in body
    assert "tie (1)" in body
    assert "bm25 better (1)" in body
    assert differences_html([], [], "a", "b", "m") == ""


def test_past_the_bar_limit_a_bar_is_the_mean_of_a_run_of_questions() -> None:
    n = BARS * 2 + 1  # 401 questions: runs of 3, the last of 2
    differences = [i / n - 0.5 for i in range(n)]
    body = differences_html([f"q{i}" for i in range(n)], differences, "a", "b", "m")
    titles = re.findall(r'title="([^"]+)"', body)
    assert len(titles) == math.ceil(n / 3) == 134
    assert titles[0] == f"questions 1-3 of 401: mean {(differences[1]):+.3f}"
    assert titles[-1].startswith("questions 400-401 of 401: mean ")
