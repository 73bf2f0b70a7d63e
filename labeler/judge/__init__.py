"""Judges and people rating the same items: import, spot-check samples, the blind review, the
trust report, and the export back to Ragas. The statistics live in ``labeler.agreement``."""

from labeler.judge.export import ragas_annotated
from labeler.judge.importing import JudgeImport, import_judgements
from labeler.judge.report import Report, build_report, metric_report
from labeler.judge.sampling import SamplePlan, sample_plan
from labeler.judge.scales import Scale, parse_scale

__all__ = [
    "JudgeImport",
    "Report",
    "SamplePlan",
    "Scale",
    "build_report",
    "import_judgements",
    "metric_report",
    "parse_scale",
    "ragas_annotated",
    "sample_plan",
]
