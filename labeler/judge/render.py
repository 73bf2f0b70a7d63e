"""The judge report and the reviewers' agreement as text: a terminal table or Markdown."""

from __future__ import annotations

from labeler.judge.report import JudgeStats, MetricReport, Report
from labeler.judge.reviewers import ReviewerAgreement
from labeler.store.ratings import parse_relevance_key

DISAGREEMENTS_SHOWN = 10
RATIONALE_CHARS = 160


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _interval(interval: tuple[float, float] | None, digits: int = 2) -> str:
    if interval is None:
        return "—"
    return f"{interval[0]:.{digits}f}-{interval[1]:.{digits}f}"


def item_label(key: str) -> str:
    """An item as people read it: "q001 / chunk-7" for a (question, chunk) pair."""
    pair = parse_relevance_key(key)
    return f"{pair[0]} / {pair[1]}" if pair else key


def _short(text: str | None, limit: int = RATIONALE_CHARS) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _table(headers: list[str], rows: list[list[str]], *, markdown: bool) -> list[str]:
    if markdown:
        escaped = [[c.replace("|", "\\|") for c in row] for row in rows]
        return [
            "| " + " | ".join(headers) + " |",
            "| " + " | ".join("---" for _ in headers) + " |",
            *("| " + " | ".join(row) + " |" for row in escaped),
        ]
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    return [line, *("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)]


def _judge_row(name: str, j: JudgeStats) -> list[str]:
    agreement = "—" if j.agreement is None else f"{100 * j.agreement:.0f} %"
    interval = (
        "—"
        if j.agreement_ci is None
        else f"{100 * j.agreement_ci[0]:.0f}-{100 * j.agreement_ci[1]:.0f} %"
    )
    return [
        name,
        str(j.items),
        agreement,
        interval,
        _num(j.kappa),
        _interval(j.kappa_ci),
        _num(j.spearman),
        f"+{j.higher} / -{j.lower}",
    ]


def _confusion(j: JudgeStats, *, markdown: bool) -> list[str]:
    headers = ["human \\ judge", *j.labels]
    rows = [
        [label, *(str(c) for c in row)] for label, row in zip(j.labels, j.confusion, strict=True)
    ]
    return _table(headers, rows, markdown=markdown)


def metric_lines(m: MetricReport, *, markdown: bool) -> list[str]:
    scale = m.scale.spec
    if m.scale.kind == "score":
        scale += f", passes at {m.scale.pass_when} {m.scale.threshold:g}"
    head = f"## {m.name}" if markdown else f"{m.name} ({scale})"
    lines = [head]
    if markdown:
        lines += ["", f"Scale: {scale}."]
    lines.append(
        f"{m.items} items; {m.human_verdicts} with a human verdict ({m.adjudicated} adjudicated),"
        f" {m.tied} tied and left out."
    )
    lines += ["", m.humans.summary]
    if m.humans.pairs:
        lines.append("")
        lines += _table(
            ["reviewers", "shared items", "kappa"],
            [[f"{p.a} · {p.b}", str(p.items), _num(p.kappa)] for p in m.humans.pairs],
            markdown=markdown,
        )
    if not m.judges:
        lines += ["", "No judge has rated this metric."]
        return lines
    lines.append("")
    lines += _table(
        ["judge", "items", "agreement", "95 % CI", "kappa", "95 % CI", "spearman", "higher/lower"],
        [_judge_row(name, j) for name, j in m.judges.items()],
        markdown=markdown,
    )
    for name, j in m.judges.items():
        lines += ["", (f"### {name}" if markdown else f"{name}:"), "", j.summary, ""]
        if j.items:
            lines += _confusion(j, markdown=markdown)
        if j.disagreements:
            lines += [
                "",
                f"Disagreements ({len(j.disagreements)}; the first"
                f" {min(DISAGREEMENTS_SHOWN, len(j.disagreements))}):",
            ]
            if markdown:
                lines.append("")
            for d in j.disagreements[:DISAGREEMENTS_SHOWN]:
                bullet = "- " if markdown else "  "
                lines.append(
                    f"{bullet}{item_label(d.item)}"
                    + (
                        f" ({_short(d.question, 60)})"
                        if d.question and not parse_relevance_key(d.item)
                        else ""
                    )
                    + f": people {d.human}, judge {d.judge}"
                    + (f" ({d.judge_value:g})" if m.scale.kind == "score" else "")
                    + (f": {_short(d.rationale)}" if d.rationale else "")
                )
    return lines


def render_report(report: Report, *, markdown: bool = False) -> str:
    lines: list[str] = ["# Judge report", ""] if markdown else []
    if not report.metrics:
        return "No ratings yet: import a judge's verdicts with `labeler judge import FILE`."
    for m in report.metrics.values():
        lines += metric_lines(m, markdown=markdown)
        lines.append("")
    lines.append(
        f"Intervals: Wilson for agreement; percentile bootstrap ({report.resamples} resamples,"
        f" seed {report.seed}) for kappa."
    )
    return "\n".join(lines).rstrip() + "\n"


def render_agreement(found: ReviewerAgreement, *, markdown: bool = False) -> str:
    lines = ["# Reviewer agreement on relevance", ""] if markdown else []
    lines += [found.summary, ""]
    rows = [
        [
            "all" if found.tag is None else f"tag {found.tag}",
            _num(found.overall.alpha, 3),
            str(found.overall.items),
            str(found.overall.questions),
        ]
    ]
    rows += [
        [f"  {tag}", _num(g.alpha, 3), str(g.items), str(g.questions)]
        for tag, g in found.by_tag.items()
    ]
    lines += _table(["scope", "alpha", "shared chunks", "questions"], rows, markdown=markdown)
    if found.pairs:
        matrix = found.matrix()
        names = matrix["reviewers"]
        lines += ["", "Reviewer pairs: weighted kappa (shared chunks); kappa from 10 shared chunks"]
        rows = []
        for i, name in enumerate(names):
            cells = []
            for j in range(len(names)):
                if i == j:
                    cells.append("")
                elif matrix["items"][i][j]:
                    cells.append(f"{_num(matrix['kappa'][i][j])} ({matrix['items'][i][j]})")
                else:
                    cells.append("-")
            rows.append([name, *cells])
        lines += _table(["", *names], rows, markdown=markdown)
    if found.questions:
        lines += ["", "Questions with the most disagreement:"]
        lines += _table(
            ["question", "disputed", "shared", "spread", "text"],
            [
                [
                    q.question_id,
                    str(q.disputed),
                    str(q.shared),
                    f"{q.spread:.2f}",
                    _short(q.text, 70),
                ]
                for q in found.questions
            ],
            markdown=markdown,
        )
    return "\n".join(lines).rstrip() + "\n"


__all__ = ["item_label", "metric_lines", "render_agreement", "render_report"]
