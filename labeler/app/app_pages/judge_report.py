"""Judge report: how far to trust each judge on a metric, against people's verdicts. The same
core as ``labeler judge report`` (``labeler.judge.report``): agreement and kappa with their
intervals, Spearman, the confusion matrix, bias, the disagreements with the judge's rationale
(each linked to its item), and how far people agree among themselves.
"""

from __future__ import annotations

import urllib.parse

import pandas as pd
import streamlit as st

from labeler.app.state import db_path, get_store, user_errors
from labeler.app.widgets import safe_text_html
from labeler.judge.render import item_label
from labeler.judge.report import MetricReport, metric_report, report_metrics
from labeler.judge.reveal import revealed_judge, set_revealed_judge
from labeler.judge.scales import RELEVANCE
from labeler.store.ratings import parse_relevance_key

store = get_store()
chunking = store.corpus.current_chunking()


@st.cache_data(max_entries=16, show_spinner="Computing the report (bootstrap intervals)...")
def cached_report(path: str, metric: str, chunking: str, revision: tuple) -> MetricReport:
    """The report of one metric, computed again only when a rating, a label or an
    adjudication changed (``revision``): a large project's bootstrap takes seconds."""
    from labeler.store import Store

    with Store(path) as opened:
        return metric_report(opened, metric, chunking=chunking)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f} %"


def _interval(interval, *, percent: bool = False) -> str:
    if interval is None:
        return "no interval"
    if percent:
        return f"95 % CI {100 * interval[0]:.0f}-{100 * interval[1]:.0f} %"
    return f"95 % CI {interval[0]:.2f}-{interval[1]:.2f}"


def _tone(judge) -> str:
    if judge.kappa_ci is None or judge.items < 20:
        return "unsure"
    if judge.kappa_ci[0] >= 0.6:
        return "good"
    if judge.kappa_ci[1] < 0.6:
        return "bad"
    return "unsure"


def _plan_of(metric: str) -> dict[str, str]:
    """{item: the first sample plan of ``metric`` that holds it}."""
    found: dict[str, str] = {}
    for plan in store.plans.all():
        if plan["metric"] == metric:
            for row in store.plans.items(plan["name"]):
                found.setdefault(row["item"], plan["name"])
    return found


def _link(metric: str, judge: str, item: str, plans: dict[str, str]) -> str:
    """Where a disagreement's item opens: the grading page for a (question, chunk) pair; else
    the spot-check page, in the plan that holds it, or on its own."""
    pair = parse_relevance_key(item) if metric == RELEVANCE else None
    if pair is not None:
        return "label?" + urllib.parse.urlencode({"question": pair[0]})
    if item in plans:
        query = {"plan": plans[item], "item": item}
    else:
        query = {"metric": metric, "item": item, "judge": judge}
    return "judge_review?" + urllib.parse.urlencode(query)


def confusion_chart(judge, scale_labels: list[str]):
    import altair as alt

    rows = [
        {"people": human, "judge": theirs, "items": count}
        for human, row in zip(scale_labels, judge.confusion, strict=True)
        for theirs, count in zip(scale_labels, row, strict=True)
    ]
    frame = pd.DataFrame(rows)
    base = alt.Chart(frame).encode(
        x=alt.X("judge:N", sort=scale_labels, title="judge's verdict", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("people:N", sort=scale_labels, title="people's verdict"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("items:Q", scale=alt.Scale(scheme="blues"), legend=None),
        tooltip=["people", "judge", "items"],
    )
    text = base.mark_text(fontSize=15).encode(
        text="items:Q",
        color=alt.condition(
            alt.datum.items > max(1, frame["items"].max() / 2),
            alt.value("white"),
            alt.value("black"),
        ),
    )
    return (cells + text).properties(width=alt.Step(64), height=alt.Step(44))


def judge_section(report: MetricReport, name: str) -> None:
    judge = report.judges[name]
    st.html(safe_text_html(judge.summary, css_class=f"lbl-verdict {_tone(judge)}"))
    columns = st.columns(5)
    columns[0].metric("Items compared", judge.items)
    columns[1].metric(
        "Agreement",
        _pct(judge.agreement),
        help=_interval(judge.agreement_ci, percent=True) + " (Wilson)",
    )
    kind = "Weighted kappa" if report.scale.kind == "ordinal" else "Cohen's kappa"
    columns[2].metric(
        kind,
        "—" if judge.kappa is None else f"{judge.kappa:.2f}",
        help=_interval(judge.kappa_ci) + " (bootstrap)",
    )
    columns[3].metric("Spearman", "—" if judge.spearman is None else f"{judge.spearman:.2f}")
    higher = "passes what people fail" if report.scale.kind != "ordinal" else "grades higher"
    columns[4].metric(
        "Judge higher / lower",
        f"{judge.higher} / {judge.lower}",
        help=f"Items where the judge {higher}, and the reverse;"
        + ("" if judge.bias_p is None else f" sign test p = {judge.bias_p:.3f}"),
    )
    st.caption(
        f"{_interval(judge.agreement_ci, percent=True)} for agreement ·"
        f" {_interval(judge.kappa_ci)} for kappa"
    )
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.markdown("**Confusion** (rows: people's verdict, columns: the judge's)")
        if judge.items:
            st.altair_chart(confusion_chart(judge, list(judge.labels)), width="content")
    with right:
        humans_section(report)
    st.markdown(f"**Disagreements** ({len(judge.disagreements)}), the largest first")
    if not judge.disagreements:
        st.caption("None: the judge matched every human verdict.")
        return
    plans = _plan_of(report.name)
    frame = pd.DataFrame(
        [
            {
                "open": _link(report.name, name, d.item, plans),
                "item": item_label(d.item),
                "question": d.question or "",
                "people": d.human,
                "judge": d.judge
                + (f" ({d.judge_value:g})" if report.scale.kind == "score" else ""),
                "rationale": d.rationale or "",
            }
            for d in judge.disagreements
        ]
    )
    st.dataframe(
        frame,
        hide_index=True,
        height=min(420, 38 + 35 * len(frame)),
        column_config={
            "open": st.column_config.LinkColumn("", display_text="open", width=50),
            "item": st.column_config.TextColumn("item", width="small"),
            "question": st.column_config.TextColumn("question", width="medium"),
            "people": st.column_config.TextColumn("people", width=60),
            "judge": st.column_config.TextColumn("judge", width=80),
            "rationale": st.column_config.TextColumn("the judge's rationale (text)", width="large"),
        },
        key=f"judge_report_disagreements_{name}",
    )


def humans_section(report: MetricReport) -> None:
    st.markdown("**Agreement among people** (is their verdict a truth to measure against?)")
    st.html(safe_text_html(report.humans.summary, css_class="lbl-verdict"))
    if report.humans.pairs:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "reviewers": f"{p.a} · {p.b}",
                        "shared items": p.items,
                        "kappa": None if p.kappa is None else round(p.kappa, 3),
                    }
                    for p in report.humans.pairs
                ]
            ),
            hide_index=True,
            key="judge_report_pairs",
        )


def reveal_choice(judges: list[str]) -> None:
    """A lead's switch (``labeler judge reveal``): the judge whose relevance grade reviewers
    see beside a chunk once they have graded it, never before."""
    options = [None, *judges]
    current = revealed_judge(store)
    st.session_state["judge_report_reveal"] = current if current in options else None
    st.selectbox(
        "Shown to reviewers after their own grade",
        options,
        format_func=lambda j: "no judge" if j is None else j,
        key="judge_report_reveal",
        on_change=lambda: set_revealed_judge(store, st.session_state["judge_report_reveal"]),
    )


def render() -> None:
    st.title("Judge report")
    metrics = report_metrics(store, chunking)
    if not metrics:
        st.write(
            "No ratings yet. Import a judge's verdicts with `labeler judge import FILE`"
            " (DeepEval test runs, Ragas results or annotated files, or the long format)."
        )
        return
    wanted = st.query_params.get("metric")
    if wanted in metrics and st.session_state.get("judge_report_metric") is None:
        st.session_state["judge_report_metric"] = wanted
    metric = st.selectbox("Metric", metrics, key="judge_report_metric")
    with user_errors():
        report = cached_report(db_path(), metric, chunking, store.ratings.revision())
        scale = report.scale.spec
        if report.scale.kind == "score":
            scale += f", passes at {report.scale.pass_when} {report.scale.threshold:g}"
        st.caption(
            f"{scale} · {report.items} items · {report.human_verdicts} with a human verdict"
            f" ({report.adjudicated} adjudicated) · {report.tied} tied, left out until"
            " settled"
        )
        if not report.judges:
            st.info("No judge has rated this metric yet.")
        elif metric == RELEVANCE:
            reveal_choice(list(report.judges))
        names = list(report.judges)
        if len(names) > 1:
            chosen = st.selectbox("Judge", names, key="judge_report_judge")
            names = [chosen or names[0]]
        for name in names:
            judge_section(report, name)
        if not report.judges:
            humans_section(report)


render()
