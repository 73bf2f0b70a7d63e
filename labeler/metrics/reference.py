"""The definitions run as plain Python, one question at a time: slow, short and obviously right.

``evaluate`` computes the same figures with numpy over every question at once; the tests hold
the two to each other on random inputs (and both to trec_eval), so this module is the spec the
fast path is checked against. It follows the same conventions: the order a run is read in,
``depth``, unlabelled chunks, and an empty ranking for a question missing from the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labeler.metrics.registry import DEFAULT_KS, get, parse_metrics
from labeler.metrics.tables import Qrels, Run, as_qrels, as_run
from labeler.metrics.types import Gains, Metric, Options, Order, QuestionInput

Record = tuple[str, int | None, float | None]


def ranked_chunks(records: Sequence[Record], order: Order, depth: int | None) -> list[str]:
    """The chunk ids of one question in evaluation order, cut to ``depth``."""
    if order == "score":
        # Score descending; equal scores by chunk id descending, byte-wise (as trec_eval).
        ordered = sorted(records, key=lambda r: (r[2], r[0].encode("utf-8")), reverse=True)
    elif records and records[0][1] is not None:
        ordered = sorted(records, key=lambda r: r[1])  # stable: equal ranks keep file order
    else:
        ordered = list(records)
    chunks = [r[0] for r in ordered]
    return chunks if depth is None else chunks[:depth]


def reference_evaluate(
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    run: Run | Mapping[str, Any],
    metrics: str | Sequence[str | Metric] | None = None,
    *,
    ks: Sequence[int] | str = DEFAULT_KS,
    min_grade: int = 1,
    order: Order = "rank",
    depth: int | None = None,
    gains: Gains = "linear",
) -> dict[str, dict[str, float]]:
    """metric -> question -> value, for every question of the test set."""
    options = Options(min_grade=min_grade, order=order, depth=depth, gains=gains)
    parsed = parse_metrics(metrics, ks)
    labels = as_qrels(qrels).to_dict()
    records = as_run(run).records()
    out: dict[str, dict[str, float]] = {str(m): {} for m in parsed}
    for question, grades in labels.items():
        chunks = ranked_chunks(records.get(question, []), options.order, options.depth)
        one = QuestionInput(
            ranked=tuple(grades.get(c) for c in chunks),
            grades=tuple(grades.values()),
            min_grade=options.min_grade,
            gains=options.gains,
        )
        for metric in parsed:
            out[str(metric)][question] = get(metric.name).reference(one, metric.k)
    return out


__all__ = ["ranked_chunks", "reference_evaluate"]
