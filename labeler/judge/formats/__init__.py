"""The judge file formats ``labeler judge import`` reads: one module per kind of file, and the
registry below, from which the CLI's choices, the detection and the docs' table come."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from labeler.errors import LabelerError
from labeler.judge.formats import deepeval_run, long, ragas_annotated, ragas_results
from labeler.judge.records import JudgeFile, ReadOptions
from labeler.readers import json_file


@dataclass(frozen=True, slots=True)
class JudgeFormat:
    name: str
    files: str
    summary: str
    read: Callable[[Path, ReadOptions], JudgeFile]


FORMATS = {
    f.name: f
    for f in (
        JudgeFormat(
            "long",
            "JSONL, CSV, JSON array",
            "one row per rating: item, metric, rater, rater_kind, verdict (+ question, answer,"
            " contexts, chunk_id, rationale)",
            long.read,
        ),
        JudgeFormat(
            "deepeval",
            "JSON",
            "a DeepEval test run: each test case's own metricsData (score, threshold, success,"
            " reason, evaluationModel)",
            deepeval_run.read,
        ),
        JudgeFormat(
            "ragas",
            "CSV, JSONL, JSON array",
            "Ragas evaluation results: a sample per row, one column per metric",
            ragas_results.read,
        ),
        JudgeFormat(
            "ragas-annotated",
            "JSON",
            "Ragas annotated judge decisions: the judge's metric_output and reason, and the"
            " person's is_accepted / edited_output / target as their own rating",
            ragas_annotated.read,
        ),
    )
}


def get_format(name: str) -> JudgeFormat:
    if name not in FORMATS:
        msg = f"unknown judge format {name!r}; choose one of: {', '.join(FORMATS)}"
        raise LabelerError(msg, field="format")
    return FORMATS[name]


def _first_record(path: Path) -> dict | None:
    from labeler.readers import iter_items

    for _, record in iter_items(path):
        return record
    return None


def detect_format(path: Path) -> JudgeFormat:
    """Which format a file is in, from its shape (``--format`` says it outright)."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        document = json_file(path)
        if isinstance(document, dict):
            if isinstance(document.get("testCases"), list) or isinstance(
                document.get("test_cases"), list
            ):
                return FORMATS["deepeval"]
            if document and all(ragas_annotated.looks_annotated(v) for v in document.values()):
                return FORMATS["ragas-annotated"]
        record = document[0] if isinstance(document, list) and document else None
    elif suffix in (".jsonl", ".ndjson", ".csv"):
        record = _first_record(path)
    else:
        msg = f"unknown file type {suffix!r}: expected .json, .jsonl or .csv"
        raise LabelerError(msg, path=path)
    if isinstance(record, dict):
        if long.looks_long(record):
            return FORMATS["long"]
        if ragas_results.looks_ragas(record):
            return FORMATS["ragas"]
    msg = (
        "cannot tell the format: expected a long-format file (item, metric, rater, rater_kind,"
        " verdict), Ragas results (user_input and metric columns), a Ragas annotated file or a"
        " DeepEval test run; say which with --format"
    )
    raise LabelerError(msg, path=path)


def formats_table() -> str:
    rows = ["| format | files | what is read |", "| --- | --- | --- |"]
    rows += [f"| `{f.name}` | {f.files} | {f.summary} |" for f in FORMATS.values()]
    return "\n".join(rows)


__all__ = ["FORMATS", "JudgeFormat", "detect_format", "formats_table", "get_format"]
