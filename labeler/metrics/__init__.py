"""The metric engine: plain Python over plain data (no database, no app).

    from labeler.metrics import evaluate, read_qrels, read_run
    qrels, run = read_qrels("qrels.tsv"), read_run("bm25.trec")
    result = evaluate(qrels, run, "ndcg@10,recall@k", ks=(3, 10))
    result.means()            # {"ndcg@10": 0.41, "recall@3": 0.62, "recall@10": 0.80}

The light parts (metric names, the registry, value types) load at once; the numeric engine
(numpy, and pyarrow for big TREC files) loads on first use, so ``labeler --help`` and the CLI's
option parsing stay fast.
"""

from __future__ import annotations

import importlib
from typing import Any

from labeler.metrics.registry import (
    DEFAULT_KS,
    DEFAULT_METRICS,
    REGISTRY,
    metrics_table_markdown,
    parse_ks,
    parse_metrics,
    trec_eval_name,
)
from labeler.metrics.types import Metric, MetricDef, Options, QuestionInput

_LAZY = {
    "Qrels": "labeler.metrics.tables",
    "Run": "labeler.metrics.tables",
    "RunResult": "labeler.metrics.evaluation",
    "evaluate": "labeler.metrics.evaluation",
    "reference_evaluate": "labeler.metrics.reference",
    "read_qrels": "labeler.metrics.files",
    "read_run": "labeler.metrics.files",
    "read_questions": "labeler.metrics.files",
    "read_testset": "labeler.metrics.testsets",
    "TestSet": "labeler.metrics.testsets",
    "qrels_from_dataframe": "labeler.metrics.frames",
    "run_from_dataframe": "labeler.metrics.frames",
    "Comparison": "labeler.metrics.comparison",
    "compare": "labeler.metrics.comparison",
    "Baseline": "labeler.metrics.gate",
    "GateResult": "labeler.metrics.gate",
    "check_gate": "labeler.metrics.gate",
    "evaluate_gated": "labeler.metrics.gate",
    "load_baseline": "labeler.metrics.gate",
    "save_baseline": "labeler.metrics.gate",
    "Report": "labeler.metrics.report",
    "build_report": "labeler.metrics.report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'labeler.metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_KS",
    "DEFAULT_METRICS",
    "REGISTRY",
    "Baseline",
    "Comparison",
    "GateResult",
    "Metric",
    "MetricDef",
    "Options",
    "Qrels",
    "QuestionInput",
    "Report",
    "Run",
    "RunResult",
    "TestSet",
    "build_report",
    "check_gate",
    "compare",
    "evaluate",
    "evaluate_gated",
    "load_baseline",
    "metrics_table_markdown",
    "parse_ks",
    "parse_metrics",
    "qrels_from_dataframe",
    "read_qrels",
    "read_questions",
    "read_run",
    "read_testset",
    "reference_evaluate",
    "run_from_dataframe",
    "save_baseline",
    "trec_eval_name",
]
