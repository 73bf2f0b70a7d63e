"""A test-set version as the metric engine reads it: its qrels and questions, and its identity.

Read through ``labeler.version_format`` (the one definition of a version, shared with the
exporters). Only questions.jsonl and qrels.tsv are read; both, and the manifest, are checked
against the content hash, so a figure is never quoted beside a hash that does not cover it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labeler.metrics.files import read_qrels
from labeler.metrics.tables import Qrels
from labeler.models import Question
from labeler.version_format import (
    QRELS,
    QUESTIONS,
    check_qrels,
    parse_questions,
    read_manifest,
    verify_partly,
    version_folder,
)


@dataclass(frozen=True, slots=True, eq=False)
class TestSet:
    """A version folder written by ``labeler export``: its qrels and questions, and identity."""

    __test__ = False  # not a pytest test class, whatever its name

    path: str
    name: str
    version: Any
    content_hash: str
    qrels: Qrels
    questions: tuple[Question, ...]

    def identity(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "content_hash": self.content_hash,
            "path": self.path,
        }

    @property
    def unanswerable(self) -> frozenset[str]:
        """The questions reviewers marked unanswerable."""
        return frozenset(q.id for q in self.questions if q.unanswerable)


def read_testset(path: str | Path) -> TestSet:
    """A version written by ``labeler export``: ``exports/<name>/v<N>`` (or ``exports/<name>``
    for its latest version). Reads manifest.json, questions.jsonl and qrels.tsv, checked
    against the content hash; not the chunk texts."""
    folder = version_folder(path)
    manifest = read_manifest(folder)
    files = verify_partly(folder, manifest, (QUESTIONS, QRELS))
    entries = parse_questions(folder / QUESTIONS, files[QUESTIONS])
    qrels = read_qrels_of_version(folder)
    _check_cross_file(folder, qrels, entries)
    return TestSet(
        path=str(folder),
        name=str(manifest["name"]),
        version=manifest["version"],
        content_hash=str(manifest["content_hash"]),
        qrels=qrels.with_questions(
            entries, unanswerable=(q for q, e in entries.items() if e.unanswerable)
        ),
        questions=tuple(entries.values()),
    )


def read_qrels_of_version(folder: Path) -> Qrels:
    """A version's qrels.tsv (which may be empty: every question unanswerable)."""
    path = folder / QRELS
    if not path.read_bytes().strip():
        return Qrels.from_rows([], [], [], source=str(path))
    return read_qrels(path)


def _check_cross_file(folder: Path, qrels: Qrels, questions: dict[str, Question]) -> None:
    """Every qrels question is a version question, none of them unanswerable, and grades are
    0, 1 or 2: cheap on columns; on a breach, the version format's own check names the line."""
    known = set(questions)
    flagged = {q for q, entry in questions.items() if entry.unanswerable}
    bad = [q for q in qrels.questions if q not in known or q in flagged]
    grades = qrels.grades
    if bad or (len(grades) and (grades.min() < 0 or grades.max() > 2)):
        from labeler.version_format import parse_qrels

        table, lines = parse_qrels(folder / QRELS)
        check_qrels(folder, table, lines, questions)


__all__ = ["TestSet", "read_qrels_of_version", "read_testset"]
