"""The importers, registered once: what each reads, from which files, with which options.

The CLI's ``labeler import`` group builds one command per kind from this registry (argument,
options, help text, example), the app's Data page builds its upload form from it (the kinds a
file can be uploaded for, the file extensions it accepts, a field per option), and the README's
format table lists it. A new kind of file is one ``ImportKind`` here plus its importer module.

The registry loads nothing heavy: each kind names its importer as ``module:function``, imported
on first use, so ``labeler --help`` stays fast.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labeler.accounts.roles import Right, require

# What an option holds: its command-line and form shape follow from it.
OPTION_KINDS = ("text", "int", "flag", "tags", "grade_map")

# The kinds of file ``labeler.readers`` reads, as users name them. A TREC file may carry any
# extension (the grammar decides by what is not JSON); the uploader offers the usual ones.
FORMAT_NAMES = {
    "jsonl": "JSONL",
    "json": "JSON",
    "csv": "CSV",
    "tsv": "TSV",
    "parquet": "Parquet",
    "trec": "TREC",
}
TREC_EXTENSIONS = ("trec", "txt", "run", "qrels", "tsv", "tab")


@dataclass(frozen=True, slots=True)
class ImportOption:
    """One keyword argument of an importer: ``--name-with-dashes`` on the command line, and a
    field on the Data page when ``label`` is set.

    ``kind``: ``text`` (a string, ``None`` when not given), ``int`` (at least ``minimum``),
    ``flag``, ``tags`` (repeatable; a comma-separated field in the app) or ``grade_map`` (text
    like ``4:2,3:1,0:0,-1:skip``, parsed before the importer sees it).
    """

    name: str
    kind: str
    help: str
    default: Any = None
    minimum: int | None = None
    label: str = ""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True, slots=True)
class ImportKind:
    """One kind of file (or folder) ``labeler import`` reads.

    ``reads`` are the kinds of file it takes, in ``labeler.readers``' names (empty for a
    folder, which the app cannot upload): the importer passes them to the reader, and the
    formats shown and the extensions the uploader accepts follow from them; ``progress`` names
    the file whose reading drives a progress bar ("" for the file
    itself, a name inside the folder for a folder, None for none); ``json`` says whether the
    command offers ``--format json``.
    """

    name: str
    summary: str
    help: str
    example: str
    loader: str
    reads: tuple[str, ...] = ()
    options: tuple[ImportOption, ...] = ()
    progress: str | None = ""
    json: bool = False
    folder_formats: str = ""

    @property
    def folder(self) -> bool:
        return not self.reads

    @property
    def formats(self) -> str:
        """ "JSONL, CSV, TSV, Parquet" for a file, the folder's description for a folder."""
        return ", ".join(FORMAT_NAMES[r] for r in self.reads) if self.reads else self.folder_formats

    @property
    def extensions(self) -> tuple[str, ...]:
        """The file name endings (without the dot) the app's uploader accepts."""
        from labeler.readers.tables import READERS

        found: list[str] = []
        for kind in self.reads:
            endings = (
                TREC_EXTENSIONS
                if kind == "trec"
                else [
                    suffix.removeprefix(".") for suffix, reader in READERS.items() if reader == kind
                ]
            )
            found += [e for e in endings if e not in found]
        return tuple(found)

    def load(self) -> Callable[..., Any]:
        module, _, function = self.loader.partition(":")
        return getattr(importlib.import_module(module), function)

    def progress_file(self, path: str | Path) -> Path | None:
        if self.progress is None:
            return None
        return Path(path) / self.progress if self.progress else Path(path)


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """What an import did, as every face shows it: lines of text, the contexts it could not
    match (generated questions only) and the machine-readable form."""

    lines: tuple[str, ...]
    data: Any
    unmatched: tuple[Any, ...] = ()
    unmatched_total: int = 0
    chunking: str | None = None


CHUNKING = ImportOption("chunking", "text", "Chunking the ids refer to (default: the current one).")
GRADE_MAP = ImportOption(
    "grade_map",
    "grade_map",
    "Map another scale onto 0/1/2, e.g. 4:2,3:2,2:1,1:1,0:0,-1:skip (skip leaves it out).",
    label="Grade map (optional), e.g. 4:2,3:2,2:1,1:1,0:0",
)
REVIEWER = ImportOption(
    "reviewer", "text", "Whose labels these are.", default="imported", label="Reviewer"
)
NEW_CHUNKING = ImportOption(
    "chunking", "text", "Name of the chunking.", default="default", label="Chunking name"
)
GENERATED_OPTIONS = (
    ImportOption("chunking", "text", "Chunking to match contexts in (default: the current one)."),
    ImportOption("tags", "tags", "Tag the questions this import adds (repeatable).", default=()),
)

IMPORT_KINDS: dict[str, ImportKind] = {
    kind.name: kind
    for kind in (
        ImportKind(
            "chunks",
            "chunks of one chunking, indexed for search",
            "Chunks (JSONL, CSV, TSV, Parquet): id, text; optional doc_id, title, start, end,"
            " metadata. A chunk already stored keeps the fields the file does not carry. A file"
            " that changes the text of chunks carrying labels is refused (exit 2, naming them),"
            " unless --replace-text.",
            "labeler import chunks chunks.jsonl --chunking 512-overlap-64",
            "labeler.importers.corpus:import_chunks",
            reads=("jsonl", "csv", "tsv", "parquet"),
            options=(
                NEW_CHUNKING,
                ImportOption(
                    "replace_text",
                    "flag",
                    "Replace the text of chunks that carry labels; their labels become stale"
                    " (left out of exports) until a reviewer confirms or changes them.",
                    default=False,
                    label="Replace the text of labelled chunks (their labels become stale)",
                ),
            ),
        ),
        ImportKind(
            "documents",
            "whole documents, for the text around a chunk",
            "Documents (JSONL): id, text, optional title; shown around a chunk while grading.",
            "labeler import documents documents.jsonl",
            "labeler.importers.corpus:import_documents",
            reads=("jsonl",),
        ),
        ImportKind(
            "questions",
            "questions with optional reference answers and tags",
            "Questions (JSONL, JSON, CSV, TSV): id and question (or text, query, user_input,"
            " input); optional reference answer (reference_answer, reference, expected_output,"
            " ground_truth) and tags. Fields a file does not carry keep their stored values. A"
            " file that changes the text of questions carrying labels is refused (exit 2,"
            " naming them), unless --replace-text.",
            "labeler import questions questions.csv",
            "labeler.importers.questions:import_questions",
            reads=("jsonl", "json", "csv", "tsv"),
            options=(
                ImportOption(
                    "replace_text",
                    "flag",
                    "Replace the text of questions that carry labels; their labels become stale"
                    " (left out of exports) until a reviewer confirms or changes them, and their"
                    " unanswerable marks are withdrawn.",
                    default=False,
                    label="Replace the text of graded questions (their labels become stale)",
                ),
            ),
        ),
        ImportKind(
            "run",
            "a retriever's ranked chunks per question",
            "A retrieval run: TREC (qid Q0 docid rank score tag), JSONL (question_id, chunk_id,"
            " rank or score) or JSON, the grammar labeler eval reads. Importing a run again"
            " under its name replaces it.",
            "labeler import run bm25.trec --pool-depth 20",
            "labeler.importers.runs:import_run",
            reads=("trec", "jsonl", "json"),
            options=(
                ImportOption(
                    "name",
                    "text",
                    "Run name (default: the TREC tag, else the file name).",
                    label="Run name (empty: the TREC tag or the file name)",
                ),
                CHUNKING,
                ImportOption(
                    "pool_depth",
                    "int",
                    "How many of each question's top results join its candidates.",
                    default=10,
                    minimum=1,
                    label="Pool depth",
                ),
            ),
        ),
        ImportKind(
            "qrels",
            "judgements from another tool, as a reviewer's labels",
            "Qrels (TREC qid 0 docid grade, JSONL or JSON, as labeler eval reads them) as the"
            " labels of one reviewer, with full history.",
            "labeler import qrels judged.qrels --reviewer trec-assessors"
            " --grade-map 4:2,3:2,2:1,1:1,0:0",
            "labeler.importers.qrels:import_qrels",
            reads=("trec", "jsonl", "json"),
            options=(REVIEWER, GRADE_MAP, CHUNKING),
        ),
        ImportKind(
            "beir",
            "corpus, queries and qrels of a BEIR dataset",
            "A BEIR folder: corpus.jsonl as chunks, queries.jsonl as questions, qrels as labels.",
            "labeler import beir scifact/ --split test",
            "labeler.importers.beir:import_beir",
            options=(
                ImportOption("split", "text", "Which qrels/<split>.tsv to load.", default="test"),
                NEW_CHUNKING,
                REVIEWER,
                GRADE_MAP,
            ),
            progress="corpus.jsonl",
            folder_formats="BEIR folder",
        ),
        ImportKind(
            "testset",
            "an exported test-set version, read back",
            "A test-set version folder (ours, checked against its hash) or a BEIR folder. Chunks,"
            " questions, the qrels as a reviewer's labels and the unanswerable marks come in;"
            " exporting again gives the same content hash.",
            "labeler import testset exports/orders-faq/v3",
            "labeler.importers.testset:import_testset",
            options=(
                ImportOption(
                    "chunking",
                    "text",
                    "Chunking to put the chunks in (default: the version's; for BEIR, the"
                    " current one).",
                ),
                ImportOption(
                    "reviewer",
                    "text",
                    "Whose labels the qrels become (default: testset.<name>.v<N>).",
                ),
                ImportOption(
                    "allow_modified",
                    "flag",
                    "Import a version even if changed after export.",
                    default=False,
                ),
                ImportOption("split", "text", "BEIR: which qrels/<split>.tsv.", default="test"),
                ImportOption("grade_map", "grade_map", "BEIR: map the dataset's scale onto 0/1/2."),
            ),
            progress=None,
            folder_formats="version folder, BEIR folder",
        ),
        ImportKind(
            "mtrag",
            "conversations of IBM's MTRAG benchmark: turns, passages and annotators' labels",
            "An MTRAG task file (JSONL, one line per turn): each turn a question with its"
            " conversation (the messages before it), its tags (answerability, question type,"
            " multi-turn type) and its reference answer; its passages as chunks (or matched"
            " by id to the chunking's); each annotator's relevance feedback as their labels"
            " (yes 2, no 0, or as --feedback maps them). MTRAG's bare NaN for a missing tag is"
            " read as missing. A file that changes the text of turns carrying labels is refused"
            " (exit 2, naming them), unless --replace-text.",
            "labeler import mtrag clapnq_tasks.jsonl --rewrites clapnq_rewrite.jsonl",
            "labeler.importers.mtrag:import_mtrag",
            reads=("jsonl",),
            options=(
                ImportOption(
                    "chunking",
                    "text",
                    "Chunking to put the passages in, or find them in by id (default: the"
                    " current one).",
                    label="Chunking (empty: the current one)",
                ),
                ImportOption(
                    "feedback",
                    "text",
                    "Grades for the annotators' feedback values; skip leaves one out.",
                    default="yes:2,no:0",
                    label="Feedback grades",
                ),
                ImportOption(
                    "rewrites",
                    "text",
                    "MTRAG's rewrite queries (retrieval_tasks/<domain>/<domain>_rewrite.jsonl):"
                    " each turn's standalone rewrite.",
                ),
                ImportOption(
                    "annotator_prefix",
                    "text",
                    "Put before each annotator's name to name their reviewer (mtrag. gives"
                    " mtrag.g1).",
                    label="Reviewer name prefix (optional), e.g. mtrag.",
                ),
                ImportOption(
                    "tags", "tags", "Tag the turns this import adds (repeatable).", default=()
                ),
                ImportOption(
                    "replace_text",
                    "flag",
                    "Replace the text of turns that carry labels; their labels become stale"
                    " (left out of exports) until a reviewer confirms or changes them.",
                    default=False,
                    label="Replace the text of graded turns (their labels become stale)",
                ),
            ),
        ),
        ImportKind(
            "ragas",
            "a Ragas test set, as generated questions to review",
            "A Ragas test set (CSV, TSV, JSON or JSONL) as generated questions awaiting review."
            " Reads user_input/question, reference/ground_truth, reference_contexts/contexts and"
            " synthesizer_name; matches each context to a chunk (exactly, then fuzzily) and adds"
            " the matches to the question's candidates; reports the contexts it could not match."
            " A multi-turn sample (user_input a list of messages) gives one question per user"
            " turn, each with the conversation before it.",
            "labeler import ragas testset.csv --tag synthetic",
            "labeler.importers.ragas:import_ragas",
            reads=("csv", "tsv", "json", "jsonl"),
            options=GENERATED_OPTIONS,
            progress=None,
            json=True,
        ),
        ImportKind(
            "deepeval",
            "DeepEval goldens, as generated questions to review",
            "DeepEval goldens (JSON, JSONL, or CSV/TSV with |-joined lists) as questions to review."
            " Reads input, expected_output, context and additional_metadata; matches each"
            " context to a chunk (exactly, then fuzzily) and adds the matches to the question's"
            " candidates; reports the contexts it could not match. A conversational golden"
            " (scenario, turns) gives one question per user turn, each with the turns before it"
            " and its retrieval_context.",
            "labeler import deepeval goldens.json",
            "labeler.importers.deepeval:import_deepeval",
            reads=("json", "jsonl", "csv", "tsv"),
            options=GENERATED_OPTIONS,
            progress=None,
            json=True,
        ),
    )
}


def get_kind(name: str) -> ImportKind:
    if name not in IMPORT_KINDS:
        msg = f"unknown kind of file {name!r}; choose one of: {', '.join(IMPORT_KINDS)}"
        raise ValueError(msg)
    return IMPORT_KINDS[name]


def _arguments(kind: ImportKind, values: Mapping[str, Any]) -> dict[str, Any]:
    """The importer's keyword arguments from option values as a face collected them."""
    from labeler.importers.qrels import parse_grade_map

    arguments = {}
    for option in kind.options:
        value = values.get(option.name, option.default)
        if option.kind == "grade_map":
            value = parse_grade_map(value or None)
        elif option.kind == "tags":
            value = tuple(value or ())
        elif option.kind == "text" and value == "" and option.default is None:
            value = None
        arguments[option.name] = value
    return arguments


def run_import(
    kind: ImportKind | str,
    store: Any,
    path: str | Path,
    values: Mapping[str, Any] | None = None,
    *,
    actor: str,
    progress: Callable[[int], None] | None = None,
) -> ImportOutcome:
    """Run the importer of ``kind`` on ``path`` with the options in ``values`` (defaults for
    the rest), and describe what it did. ``actor`` is who imports: on a team server, an
    owner (``labeler.accounts.roles``)."""
    require(store, actor, Right.IMPORT)
    kind = get_kind(kind) if isinstance(kind, str) else kind
    arguments = _arguments(kind, values or {})
    if kind.progress is not None and progress is not None:
        arguments["progress"] = progress
    return describe(kind, kind.load()(store, path, **arguments))


def describe(kind: ImportKind, result: Any) -> ImportOutcome:
    """One shape for every importer's result: its lines of text and its data."""
    if hasattr(result, "unmatched"):  # generated questions, with their context matching
        return ImportOutcome(
            (result.summary(),),
            result.as_dict(),
            unmatched=tuple(result.unmatched),
            unmatched_total=result.unmatched_total,
            chunking=result.chunking,
        )
    if hasattr(result, "reports"):  # a test set read back
        what = "version" if result.kind == "version" else "BEIR folder"
        head = (
            f"Imported a {what} into chunking {result.chunking!r} as reviewer {result.reviewer!r}"
        )
        lines = (head, *(f"  {r.summary()}" for r in result.reports))
        return ImportOutcome(lines, result.as_dict(), chunking=result.chunking)
    reports = result if isinstance(result, list) else [result]
    return ImportOutcome(
        tuple(r.summary() for r in reports),
        [r.as_dict() for r in reports] if isinstance(result, list) else result.as_dict(),
    )


def formats_table_markdown() -> str:
    """The README's table of what ``labeler import`` reads."""
    lines = ["| kind | formats | holds |", "| --- | --- | --- |"]
    lines += [f"| `{k.name}` | {k.formats} | {k.summary} |" for k in IMPORT_KINDS.values()]
    return "\n".join(lines) + "\n"


__all__ = [
    "IMPORT_KINDS",
    "OPTION_KINDS",
    "ImportKind",
    "ImportOption",
    "ImportOutcome",
    "describe",
    "formats_table_markdown",
    "get_kind",
    "run_import",
]
