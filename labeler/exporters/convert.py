"""Other tools' formats, produced from a version folder (never from the live database).

Each format is registered once in ``FORMATS``: the CLI's ``--to`` choices, the app's list, the
README's table and the tests' parametrisation all come from it. A writer takes a version that
has been read and checked against its hash, and an output folder; it returns the files written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from labeler.errors import LabelerError
from labeler.exporters import beir, csvfile, deepeval, ragas, trec
from labeler.exporters.layout import Version, read_version


@dataclass(frozen=True, slots=True)
class ExportFormat:
    name: str
    files: str
    consumer: str
    summary: str
    write: Callable[[Version, Path, int], list[Path]]


FORMATS = {
    f.name: f
    for f in (
        ExportFormat(
            "trec",
            "qrels.txt",
            "trec_eval, ir_measures, pytrec_eval",
            "TREC qrels with the grades: question-id 0 chunk-id grade",
            trec.write,
        ),
        ExportFormat(
            "beir",
            "corpus.jsonl, queries.jsonl, qrels/test.tsv",
            "BEIR's GenericDataLoader and BEIR-style retrieval tooling",
            "a BEIR folder; queries also carry reference_answer, tags and unanswerable",
            beir.write,
        ),
        ExportFormat(
            "ragas",
            "ragas.jsonl, ragas.csv",
            "Ragas EvaluationDataset.from_jsonl / Testset.from_list",
            "user_input, reference, reference_contexts (best grade first), reference_context_ids",
            ragas.write,
        ),
        ExportFormat(
            "deepeval",
            "goldens.json",
            "DeepEval EvaluationDataset and Golden",
            "goldens: input, expected_output, context, additional_metadata (ids, grades)",
            deepeval.write,
        ),
        ExportFormat(
            "csv",
            "labels.csv",
            "spreadsheets: Excel, LibreOffice, Google Sheets",
            "one row per (question, chunk, grade); unanswerable questions get one row",
            csvfile.write,
        ),
    )
}


def formats_table() -> str:
    """The README's table of formats, from the registry."""
    lines = ["| format | files | for | holds |", "| --- | --- | --- | --- |"]
    for f in FORMATS.values():
        lines.append(f"| `{f.name}` | {f.files} | {f.consumer} | {f.summary} |")
    return "\n".join(lines)


def default_out(version: Version, fmt: str) -> Path:
    return Path(f"{version.name}-v{version.number}-{fmt}")


def convert(
    version_dir: str | Path,
    fmt: str,
    *,
    out: str | Path | None = None,
    min_grade: int | None = None,
) -> list[Path]:
    """Write version ``version_dir`` in format ``fmt`` into ``out``; returns the files written.

    The version is checked against its hash first: a modified version is not converted.
    ``min_grade`` (default: the manifest's) is the grade from which a chunk is a reference
    context in the Ragas and DeepEval formats.
    """
    known = FORMATS
    if fmt not in known:
        msg = f"unknown format {fmt!r}; choose one of: {', '.join(known)}"
        raise LabelerError(msg, field="to")
    version = read_version(version_dir)
    grade = version.min_grade if min_grade is None else min_grade
    if grade not in (1, 2):
        raise LabelerError(f"expected 1 or 2, got {grade!r}", field="min-grade")
    target = Path(out) if out is not None else default_out(version, fmt)
    if target.resolve() == version.path.resolve() or version.path.resolve() in (
        target.resolve().parents
    ):
        msg = "write converted files outside the version folder (a version is immutable)"
        raise LabelerError(msg, path=target)
    if target.exists() and not target.is_dir():
        raise LabelerError("exists and is not a folder", path=target)
    return known[fmt].write(version, target, grade)


__all__ = [
    "FORMATS",
    "ExportFormat",
    "convert",
    "default_out",
    "formats_table",
]
