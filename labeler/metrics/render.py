"""A Report as text: an aligned table (the default), Markdown, or CSV. JSON is ``Report.to_json``.

Figures print to 4 decimals, the precision trec_eval prints and the one the tests check; the
best value of each column is marked (``*`` in the table, bold in Markdown); ties share the mark.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labeler.metrics.report import Report
from labeler.numbers import plain, signed
from labeler.spreadsheet import csv_text


def _figure(value: float | None) -> str:
    return "-" if value is None else plain(value, 4)


def _best(per_run: Mapping[str, Mapping[str, float | None]], metric: str) -> set[str]:
    shown = {run: round(m[metric], 4) for run, m in per_run.items() if m[metric] is not None}
    if len(per_run) < 2 or not shown:
        return set()
    top = max(shown.values())
    return {run for run, value in shown.items() if value == top}


def _grid(rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Rows of cells, aligned: the first ``left`` columns to the left, the rest to the right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(widths[i]) if i < left else cell.rjust(widths[i])
            for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]


def _metric_rows(
    per_run: Mapping[str, Mapping[str, Any]], metrics: Sequence[str], mark: str
) -> list[list[str]]:
    figures = {run: f["metrics"] for run, f in per_run.items()}
    best = {m: _best(figures, m) for m in metrics}
    return [
        [run] + [_figure(f[m]) + (mark if run in best[m] else " " * len(mark)) for m in metrics]
        for run, f in figures.items()
    ]


def _counts(report: Report) -> list[str]:
    lines = [
        f"Questions: {report.scored} scored; left out of the averages: {report.unanswerable}"
        f" unanswerable (marked so by a reviewer), {report.no_relevant_label} with no relevant"
        f" label (none graded {report.options.min_grade} or more)."
    ]
    missing = [f"{r.run} {r.missing}" for r in report.results]
    lines.append(f"Missing from the run (each scores 0): {', '.join(missing)}.")
    ignored = [f"{r.run} {len(r.ignored)}" for r in report.results if r.ignored]
    if ignored:
        lines.append(f"Ignored (questions not in the test set): {', '.join(ignored)}.")
    o = report.options
    depth = "all" if o.depth is None else str(o.depth)
    lines.append(
        f"Options: order {o.order}, min grade {o.min_grade}, nDCG gains {o.gains}, depth {depth}."
    )
    if report.testset:
        t = report.testset
        name = f"{t.get('name')} v{t.get('version')}" if t.get("name") else t.get("path", "")
        lines.append(f"Test set: {name} (content hash {t.get('content_hash')}).")
    return lines


def _comparison_rows(report: Report) -> list[list[str]]:
    rows = [["run", "metric", "baseline", "run", "difference", "95% CI", "p", "wins/ties/losses"]]
    for c in report.comparisons:
        rows.append(
            [
                c.run,
                c.metric,
                f"{c.baseline_mean:.4f}",
                f"{c.run_mean:.4f}",
                signed(c.difference, 4),
                f"[{signed(c.ci_low, 4)}, {signed(c.ci_high, 4)}]",
                f"{c.p_value:.4f}",
                f"{c.wins}/{c.ties}/{c.losses}",
            ]
        )
    return rows


def _comparison_title(report: Report) -> str:
    c = report.comparisons[0]
    p = "exact" if c.p_exact else f"{report.resamples:,} random sign flips"
    return (
        f"Compared with {report.baseline_run} over {c.questions} questions (difference = run -"
        f" baseline; 95% bootstrap CI, {report.resamples:,} resamples; paired randomization"
        f" test, {p}; seed {report.seed}):"
    )


def _tag_rows(report: Report, mark: str) -> list[list[str]]:
    rows = []
    for tag, per_run in report.by_tag().items():
        for row in _metric_rows(per_run, report.metrics, mark):
            rows.append([tag, row[0], str(per_run[row[0]]["questions"]), *row[1:]])
    return rows


def _turn_rows(report: Report, mark: str) -> list[list[str]]:
    rows = []
    for group, per_run in report.by_turn().items():
        for row in _metric_rows(per_run, report.metrics, mark):
            rows.append([group, row[0], str(per_run[row[0]]["questions"]), *row[1:]])
    return rows


TURN_TITLE = "By turn (the test set holds conversations):"


def render_table(report: Report, *, by_tag: bool = False) -> str:
    lines = _grid([["run", *report.metrics], *_metric_rows(report.figures(), report.metrics, "*")])
    if len(report.results) > 1:
        lines.append("* best in its column")
    lines += ["", *_counts(report)]
    if report.comparisons:
        lines += ["", _comparison_title(report), *_grid(_comparison_rows(report), left=2)]
    if by_tag:
        rows = _tag_rows(report, "*")
        lines.append("")
        if rows:
            lines += [
                "By tag:",
                *_grid([["tag", "run", "questions", *report.metrics], *rows], left=2),
            ]
        else:
            lines.append("By tag: no question carries a tag.")
    rows = _turn_rows(report, "*")
    if rows:
        lines += ["", TURN_TITLE]
        lines += _grid([["group", "run", "questions", *report.metrics], *rows], left=2)
    return "\n".join(lines) + "\n"


def _markdown_table(rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    head = "| " + " | ".join(rows[0]) + " |"
    rule = "| " + " | ".join("---" if i < left else "---:" for i in range(len(rows[0]))) + " |"
    return [head, rule, *("| " + " | ".join(row) + " |" for row in rows[1:])]


def _bold(rows: list[list[str]]) -> list[list[str]]:
    return [[f"**{c[:-2]}**" if c.endswith("**") else c.rstrip() for c in row] for row in rows]


def render_markdown(report: Report, *, by_tag: bool = False) -> str:
    rows = _bold(_metric_rows(report.figures(), report.metrics, "**"))
    lines = _markdown_table([["run", *report.metrics], *rows])
    lines += ["", *(f"- {line}" for line in _counts(report))]
    if report.comparisons:
        lines += ["", _comparison_title(report), "", *_markdown_table(_comparison_rows(report), 2)]
    if by_tag:
        rows = _bold(_tag_rows(report, "**"))
        if rows:
            lines += ["", "By tag:", ""]
            lines += _markdown_table([["tag", "run", "questions", *report.metrics], *rows], 2)
    rows = _bold(_turn_rows(report, "**"))
    if rows:
        lines += ["", TURN_TITLE, ""]
        lines += _markdown_table([["group", "run", "questions", *report.metrics], *rows], 2)
    return "\n".join(lines) + "\n"


def render_csv(report: Report, *, by_tag: bool = False) -> str:
    """One row per run (and per tag and run with ``by_tag``; for conversations, per turn
    group and run, the group in the ``tag`` column as ``turn: first``): counts, then every
    metric."""
    rows: list[list] = [
        ["run", "tag", "questions", "unanswerable", "no_relevant_label", "missing", *report.metrics]
    ]

    def row(run: str, tag: str, f: Mapping[str, Any]) -> list:
        values = [
            None if f["metrics"][m] is None else float(f["metrics"][m]) for m in report.metrics
        ]
        cells = (f["questions"], f["unanswerable"], f["no_relevant_label"], f["missing"])
        return [run, tag, *cells, *values]

    for run, figures in report.figures().items():
        rows.append(row(run, "", figures))
    if by_tag:
        for tag, per_run in report.by_tag().items():
            for run, figures in per_run.items():
                rows.append(row(run, tag, figures))
    for group, per_run in report.by_turn().items():
        for run, figures in per_run.items():
            rows.append(row(run, group, figures))
    return csv_text(rows)


__all__ = ["render_csv", "render_markdown", "render_table"]
