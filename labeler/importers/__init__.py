"""Importers: one module per kind of file. The registry below is what the CLI, the app's upload
and the README list, so a new kind is added in one place."""

from __future__ import annotations

from dataclasses import dataclass

from labeler.importers.beir import import_beir
from labeler.importers.corpus import import_chunks, import_documents
from labeler.importers.deepeval import import_deepeval
from labeler.importers.qrels import import_qrels, parse_grade_map
from labeler.importers.questions import import_questions
from labeler.importers.ragas import import_ragas
from labeler.importers.runs import import_run
from labeler.importers.testset import import_testset


@dataclass(frozen=True, slots=True)
class ImportKind:
    name: str
    formats: str
    summary: str


IMPORT_KINDS = {
    kind.name: kind
    for kind in (
        ImportKind("chunks", "JSONL, CSV, Parquet", "chunks of one chunking, indexed for search"),
        ImportKind("documents", "JSONL", "whole documents, for the text around a chunk"),
        ImportKind("questions", "JSONL, CSV", "questions with optional reference answers and tags"),
        ImportKind("run", "TREC run, JSONL", "a retriever's ranked chunks per question"),
        ImportKind("qrels", "TREC qrels", "judgements from another tool, as a reviewer's labels"),
        ImportKind("beir", "BEIR folder", "corpus, queries and qrels of a BEIR dataset"),
        ImportKind(
            "testset", "version folder, BEIR folder", "an exported test-set version, read back"
        ),
        ImportKind(
            "ragas", "CSV, JSON, JSONL", "a Ragas test set, as generated questions to review"
        ),
        ImportKind(
            "deepeval", "JSON, JSONL, CSV", "DeepEval goldens, as generated questions to review"
        ),
    )
}

__all__ = [
    "IMPORT_KINDS",
    "ImportKind",
    "import_beir",
    "import_chunks",
    "import_deepeval",
    "import_documents",
    "import_qrels",
    "import_questions",
    "import_ragas",
    "import_run",
    "import_testset",
    "parse_grade_map",
]
