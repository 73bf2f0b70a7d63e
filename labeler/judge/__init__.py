"""Judges and people rating the same items: import, spot-check samples, the blind review,
the trust report, the export back to Ragas, and the judge run (an LLM judge's grades made
here, against an OpenAI-compatible endpoint). The statistics live in ``labeler.agreement``.

Names load on first use (``labeler.lazy``): ``labeler judge run`` needs neither numpy nor
the report.
"""

from labeler.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "export": ("ragas_annotated",),
        "importing": ("JudgeImport", "import_judgements"),
        "report": ("Report", "build_report", "metric_report"),
        "sampling": ("SamplePlan", "sample_plan"),
        "scales": ("Scale", "parse_scale"),
        "run": ("RunOptions", "RunSummary", "plan_run", "run_judge"),
    },
)
