"""Carry labels across a re-chunking: evidence (identical text, document offsets, fuzzy passage
alignment), rules that never guess, and a review queue for what they cannot decide.

``remap(store, "v1", "v2")`` plans and applies; ``plan_remap`` and ``apply_remap`` do one step
each; ``labeler.remap.review`` serves the queue. No Streamlit, no click: the CLI and the app
page call these.
"""

from labeler.remap.rules import DEFAULT_MIN_COVERAGE, REASONS, Mapping, OldLabel, decide
from labeler.remap.run import (
    CSV_COLUMNS,
    RemapPlan,
    RemapResult,
    apply_remap,
    check_request,
    mapping_csv,
    plan_remap,
    remap,
    write_report,
)

__all__ = [
    "CSV_COLUMNS",
    "DEFAULT_MIN_COVERAGE",
    "REASONS",
    "Mapping",
    "OldLabel",
    "RemapPlan",
    "RemapResult",
    "apply_remap",
    "check_request",
    "decide",
    "mapping_csv",
    "plan_remap",
    "remap",
    "write_report",
]
