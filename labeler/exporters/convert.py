"""Other tools' formats, produced from a version folder (never from the live database).

Each format is registered once in ``FORMATS``: the CLI's ``--to`` choices, the app's list, the
README's table and the tests' parametrisation all come from it. A writer takes a version that
has been read and checked against its hash, and an output folder; it returns the files written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from labeler.errors import LabelerError
from labeler.exporters import beir, csvfile, deepeval, ragas, trec
from labeler.versions.format import Version
from labeler.versions.reading import read_version
from labeler.versions.signing import NO_TRUST, Trust


@dataclass(frozen=True, slots=True)
class ExportFormat:
    """``files`` are written for every version; ``conversation_files`` too when the version
    holds turns of conversations."""

    name: str
    files: str
    consumer: str
    summary: str
    write: Callable[[Version, Path, int], list[Path]]
    conversation_files: str = ""

    def declared(self, *, conversations: bool) -> list[str]:
        names = self.files + (", " + self.conversation_files if conversations else "")
        return [n.strip() for n in names.split(",") if n.strip()]


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
            "a BEIR folder; queries also carry reference_answer, tags, unanswerable and a"
            " turn's conversation; for conversations MTRAG's three query files (last turn,"
            " rewrite, all user turns)",
            beir.write,
            "queries_lastturn.jsonl, queries_rewrite.jsonl, queries_questions.jsonl",
        ),
        ExportFormat(
            "ragas",
            "ragas.jsonl, ragas.csv",
            "Ragas EvaluationDataset.from_jsonl / Testset.from_list",
            "user_input, reference, reference_contexts (best grade first),"
            " reference_context_ids; a turn as a MultiTurnSample, the conversation in its"
            " messages",
            ragas.write,
            "ragas_turns.jsonl",
        ),
        ExportFormat(
            "deepeval",
            "goldens.json",
            "DeepEval EvaluationDataset and Golden",
            "goldens: input, expected_output, context, additional_metadata (ids, grades);"
            " a conversation as a ConversationalGolden, Turn.retrieval_context per user turn",
            deepeval.write,
            "conversational_goldens.json",
        ),
        ExportFormat(
            "csv",
            "labels.csv",
            "spreadsheets: Excel, LibreOffice, Google Sheets",
            "one row per (question, chunk, grade); unanswerable questions get one row; a turn's"
            " conversation id and number",
            csvfile.write,
        ),
    )
}


def formats_table() -> str:
    """The README's table of formats, from the registry."""
    lines = ["| format | files | for | holds |", "| --- | --- | --- | --- |"]
    for f in FORMATS.values():
        files = f.files + (f" (+ {f.conversation_files})" if f.conversation_files else "")
        lines.append(f"| `{f.name}` | {files} | {f.consumer} | {f.summary} |")
    return "\n".join(lines)


ALL = "all"


def formats_wanted(fmt: str | Sequence[str]) -> list[str]:
    """The format names asked for, in registry order; "all" is every format."""
    asked = [fmt] if isinstance(fmt, str) else list(fmt)
    if ALL in asked:
        return list(FORMATS)
    unknown = [f for f in asked if f not in FORMATS]
    if unknown or not asked:
        msg = f"unknown format {(unknown or [''])[0]!r}; choose from: {', '.join(FORMATS)}, {ALL}"
        raise LabelerError(msg, field="to")
    return [f for f in FORMATS if f in asked]


def default_out(version: Version, formats: Sequence[str]) -> Path:
    suffix = formats[0] if len(formats) == 1 else "formats"
    return Path(f"{version.name}-v{version.number}-{suffix}")


def convert(
    version_dir: str | Path,
    fmt: str | Sequence[str],
    *,
    out: str | Path | None = None,
    min_grade: int | None = None,
    trust: Trust = NO_TRUST,
) -> list[Path]:
    """Write version ``version_dir`` in one format, several, or "all", into ``out``; returns
    the files written. The formats' file names never collide, so several share one folder,
    and the version is read (and checked) once for all of them.

    The version is checked first (its hash, and its signature under ``trust``): a modified
    or forged version is not converted.
    ``min_grade`` (default: the manifest's) is the grade from which a chunk is a reference
    context in the Ragas and DeepEval formats.
    """
    wanted = formats_wanted(fmt)
    version = read_version(version_dir, trust=trust)
    grade = version.min_grade if min_grade is None else min_grade
    if grade not in (1, 2):
        raise LabelerError(f"expected 1 or 2, got {grade!r}", field="min-grade")
    target = Path(out) if out is not None else default_out(version, wanted)
    if target.resolve() == version.path.resolve() or version.path.resolve() in (
        target.resolve().parents
    ):
        msg = "write converted files outside the version folder (a version is immutable)"
        raise LabelerError(msg, path=target)
    if target.exists() and not target.is_dir():
        raise LabelerError("exists and is not a folder", path=target)
    return [path for name in wanted for path in FORMATS[name].write(version, target, grade)]


__all__ = [
    "ALL",
    "FORMATS",
    "ExportFormat",
    "convert",
    "default_out",
    "formats_table",
    "formats_wanted",
]
