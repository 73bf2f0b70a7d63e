"""The Results page's charts, as Vega-Lite specifications drawn by ``st.vega_lite_chart``: the
runs' means with their intervals, and each question's difference between two runs (clickable:
a bar opens the question).

Written as plain Vega-Lite rather than through Altair: importing Altair and validating its
charts against the Vega-Lite schema cost the server about 0.7 s of CPU on the page's first
open, nearly half of the page's time (issue #23, measured with py-spy); the specifications
below are what Altair produced, without the detour. A field named after a run is escaped
("v1.2" would otherwise read as a nested field).
"""

from __future__ import annotations

from typing import Any

Spec = dict[str, Any]


def _field(name: str) -> str:
    """A column name as a Vega-Lite field: dots and brackets escaped."""
    return name.replace("\\", "\\\\").replace(".", "\\.").replace("[", "\\[").replace("]", "\\]")


def means_with_intervals(metrics: list[str], *, height: int = 280) -> Spec:
    """One point per run and metric (data: run, metric, mean, low, high), a rule for its 95 %
    interval, runs side by side within a metric."""
    return {
        "height": height,
        "encoding": {
            "x": {
                "field": "metric",
                "type": "nominal",
                "title": None,
                "sort": metrics,
                "axis": {"labelAngle": 0},
            },
            "xOffset": {"field": "run", "type": "nominal"},
            "color": {
                "field": "run",
                "type": "nominal",
                "title": "run",
                "scale": {"scheme": "tableau10"},
            },
            "tooltip": [
                {"field": "run", "type": "nominal"},
                {"field": "metric", "type": "nominal"},
                {"field": "mean", "type": "quantitative", "format": ".3f"},
                {"field": "low", "type": "quantitative", "format": ".3f"},
                {"field": "high", "type": "quantitative", "format": ".3f"},
            ],
        },
        "layer": [
            {
                "mark": {"type": "rule", "strokeWidth": 2},
                "encoding": {
                    "y": {
                        "field": "low",
                        "type": "quantitative",
                        "title": "mean with 95 % interval",
                        "scale": {"domain": [0, 1]},
                    },
                    "y2": {"field": "high"},
                },
            },
            {
                "mark": {"type": "point", "filled": True, "size": 70},
                "encoding": {"y": {"field": "mean", "type": "quantitative"}},
            },
        ],
    }


def differences(run_a: str, run_b: str, metric: str) -> Spec:
    """One bar per question (data: question, order, difference, better, and each run's value
    under the run's name), sorted, coloured by which run is better; a click selects it
    (the selection ``pick``)."""
    return {
        "height": 240,
        "mark": {"type": "bar"},
        "params": [{"name": "pick", "select": {"type": "point", "fields": ["question"]}}],
        "encoding": {
            "x": {
                "field": "order",
                "type": "ordinal",
                "title": f"questions, sorted by {run_a} - {run_b}",
                "axis": None,
            },
            "y": {
                "field": "difference",
                "type": "quantitative",
                "title": f"{metric}: {run_a} - {run_b}",
            },
            "color": {
                "field": "better",
                "type": "nominal",
                "title": "better",
                "scale": {
                    "domain": [run_a, "tie", run_b],
                    "range": ["#2b8a3e", "#adb5bd", "#c92a2a"],
                },
            },
            "tooltip": [
                {"field": "question", "type": "nominal"},
                {"field": "difference", "type": "quantitative", "format": "+.3f"},
                {"field": _field(run_a), "type": "quantitative", "format": ".3f", "title": run_a},
                {"field": _field(run_b), "type": "quantitative", "format": ".3f", "title": run_b},
            ],
        },
    }


__all__ = ["Spec", "differences", "means_with_intervals"]
