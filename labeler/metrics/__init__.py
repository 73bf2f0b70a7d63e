"""The metric engine: plain Python over plain data (no database, no app).

    from labeler.metrics import evaluate, read_qrels, read_run
    qrels, run = read_qrels("qrels.tsv"), read_run("bm25.trec")
    result = evaluate(qrels, run, "ndcg@10,recall@k", ks=(3, 10))
    result.means()            # {"ndcg@10": 0.41, "recall@3": 0.62, "recall@10": 0.80}

Every name loads on first use (``labeler.lazy``): the light parts (metric names, the registry,
value types) without the numeric engine (numpy), so
``labeler --help`` and the CLI's option parsing stay fast.
"""

from __future__ import annotations

from labeler.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "registry": (
            "DEFAULT_KS",
            "DEFAULT_METRICS",
            "REGISTRY",
            "metrics_table_markdown",
            "parse_ks",
            "parse_metrics",
            "trec_eval_name",
        ),
        "types": ("DEFAULT_OPTIONS", "Metric", "MetricDef", "Options", "QuestionInput"),
        "tables": ("Qrels", "Run"),
        "evaluation": ("RunResult", "evaluate"),
        "reference": ("reference_evaluate",),
        "files": ("read_qrels", "read_questions", "read_run"),
        "testsets": ("TestSet", "read_testset"),
        "frames": ("qrels_from_dataframe", "run_from_dataframe"),
        "comparison": ("Comparison", "compare"),
        "gate": (
            "Baseline",
            "GateResult",
            "check_gate",
            "evaluate_gated",
            "load_baseline",
            "save_baseline",
        ),
        "report": ("Report", "build_report"),
    },
)
