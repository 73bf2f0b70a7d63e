"""The Results page's charts (Altair specifications): the runs' means with their intervals,
and each question's difference between two runs (clickable: a bar opens the question)."""

from __future__ import annotations

import altair as alt
import pandas as pd


def means_with_intervals(frame: pd.DataFrame, metrics: list[str]) -> alt.LayerChart:
    """One point per run and metric (``frame``: run, metric, mean, low, high), a rule for its
    95 % interval, runs side by side within a metric."""
    base = alt.Chart(frame).encode(
        x=alt.X("metric:N", title=None, sort=metrics, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("run:N"),
        color=alt.Color("run:N", title="run", scale=alt.Scale(scheme="tableau10")),
        tooltip=[
            "run",
            "metric",
            alt.Tooltip("mean:Q", format=".3f"),
            alt.Tooltip("low:Q", format=".3f"),
            alt.Tooltip("high:Q", format=".3f"),
        ],
    )
    return base.mark_rule(strokeWidth=2).encode(
        y=alt.Y("low:Q", title="mean with 95 % interval", scale=alt.Scale(domain=[0, 1])),
        y2="high:Q",
    ) + base.mark_point(filled=True, size=70).encode(y="mean:Q")


def differences(frame: pd.DataFrame, run_a: str, run_b: str, metric: str) -> alt.Chart:
    """One bar per question (``frame``: question, order, difference, better, and each run's
    value), sorted, coloured by which run is better; a click selects it (``pick``)."""
    pick = alt.selection_point(name="pick", fields=["question"])
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X("order:O", title=f"questions, sorted by {run_a} - {run_b}", axis=None),
            y=alt.Y("difference:Q", title=f"{metric}: {run_a} - {run_b}"),
            color=alt.Color(
                "better:N",
                scale=alt.Scale(
                    domain=[run_a, "tie", run_b], range=["#2b8a3e", "#adb5bd", "#c92a2a"]
                ),
                title="better",
            ),
            tooltip=[
                "question",
                alt.Tooltip("difference:Q", format="+.3f"),
                alt.Tooltip(f"{run_a}:Q", format=".3f"),
                alt.Tooltip(f"{run_b}:Q", format=".3f"),
            ],
        )
        .add_params(pick)
        .properties(height=240)
    )


__all__ = ["differences", "means_with_intervals"]
