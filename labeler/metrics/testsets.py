"""A test-set version as the metric engine reads it: one call to ``labeler.versions``, which
checks the version against its hash, with the engine's own fast qrels reader."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from labeler.metrics.files import read_qrels
from labeler.metrics.tables import Qrels
from labeler.models import Question
from labeler.versions.reading import TestSet, check_qrels_file
from labeler.versions.reading import read_testset as read_version_for_eval
from labeler.versions.signing import NO_TRUST, Trust


def read_testset(path: str | Path, *, trust: Trust = NO_TRUST) -> TestSet[Qrels]:
    """A version written by ``labeler export`` (``exports/<name>/v<N>``, or ``exports/<name>``
    for its latest version): its qrels and questions, checked against the content hash and its
    signature (under ``trust``: a key known apart from the version)."""
    return read_version_for_eval(path, qrels_of_version, trust=trust)


def qrels_of_version(path: Path, questions: Mapping[str, Question]) -> Qrels:
    """A version's qrels.tsv (which may be empty: every question unanswerable) as the
    engine's table, over the version's questions. Every qrels question must be a version
    question, none of them unanswerable, and grades 0, 1 or 2: cheap on columns; on a breach,
    the version format's own line-by-line check names the line."""
    if not path.read_bytes().strip():
        qrels = Qrels.from_rows([], [], [], source=str(path))
    else:
        qrels = read_qrels(path)
    flagged = {q for q, entry in questions.items() if entry.unanswerable}
    bad = [q for q in qrels.questions if q not in questions or q in flagged]
    grades = qrels.grades
    if bad or (len(grades) and (grades.min() < 0 or grades.max() > 2)):
        check_qrels_file(path, questions)
    return qrels.with_questions(questions, unanswerable=flagged)


__all__ = ["TestSet", "qrels_of_version", "read_testset"]
