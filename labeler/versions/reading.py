"""Reading a version folder, checked first (``labeler.versions.checking``: files, hash,
signature): the whole version (for ``convert``, ``diff``, ``import testset``), or just what an
evaluation needs (``read_testset``: the questions and qrels, with the qrels table built by the
caller's reader, so that the metric engine reads its fast table and this package needs nothing
of it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from labeler.conversations import check_unique_turns, read_turn
from labeler.errors import LabelerError
from labeler.models import Question
from labeler.readers import (
    as_bool,
    as_id,
    as_tags,
    as_text,
    iter_qrels,
    lines,
    loads,
)
from labeler.versions.checking import Findings, inspect, verify
from labeler.versions.format import (
    CHUNKS,
    COMPLETENESS,
    FORMAT_V1,
    FORMATS,
    MANIFEST,
    QRELS,
    QUESTIONS,
    ChunkEntry,
    Content,
    Version,
    check_name,
    version_files,
    version_folder,
    version_number,
)
from labeler.versions.signing import NO_TRUST, Trust

Q = TypeVar("Q")


def read_manifest(folder: Path) -> dict:
    """The manifest, strictly read; it must name the version and its hash."""
    path = folder / MANIFEST
    if not path.is_file():
        raise LabelerError("no manifest.json: not a test-set version folder", path=folder)
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        line = path.read_bytes().count(b"\n", 0, error.start) + 1
        raise LabelerError("not valid UTF-8", path=path, line=line) from None
    manifest = loads(text, path=path)
    if not isinstance(manifest, dict):
        raise LabelerError("expected a JSON object", path=path, line=1)
    for key in ("name", "version", "content_hash"):
        if key not in manifest:
            raise LabelerError("missing", path=path, field=key)
    check_name(manifest["name"], path=path)
    if manifest.get("format", FORMAT_V1) not in FORMATS:
        msg = f"unknown format {manifest.get('format')!r} (this labeler reads {', '.join(FORMATS)})"
        raise LabelerError(msg, path=path, field="format")
    version = manifest["version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise LabelerError(f"expected a number from 1, got {version!r}", path=path, field="version")
    number = version_number(folder)
    if number is not None and number != version:
        msg = f"the folder is v{number} but the manifest says version {version}"
        raise LabelerError(msg, path=path, field="version")
    return manifest


def read_files(folder: Path, names: Iterable[str]) -> dict[str, bytes]:
    files = {}
    for name in names:
        path = folder / name
        if not path.is_file():
            raise LabelerError("missing from the version folder", path=path)
        files[name] = path.read_bytes()
    return files


def _records(path: Path, data: bytes) -> Iterator[tuple[int, dict]]:
    """(line, object) of a version's JSON lines file, strictly: in one parse when the file is
    well formed (fast), else line by line, which names the bad line."""
    try:
        text = data.decode("utf-8")
        rows = [line for line in text.split("\n") if line.strip()]
        records = loads("[" + ",".join(rows) + "]", path=path)
    except (UnicodeDecodeError, LabelerError):
        records = None
    if records is None or len(records) != len(rows) or any(type(r) is not dict for r in records):
        for number, line in lines(path, keep_ending=True, data=data):
            record = loads(line, path=path, line=number)
            if type(record) is not dict:
                raise LabelerError("expected a JSON object", path=path, line=number)
            yield number, record
        return
    numbers = [n for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    yield from zip(numbers, records, strict=True)


def parse_questions(path: Path, data: bytes) -> dict[str, Question]:
    questions: dict[str, Question] = {}
    turns = []
    for line, record in _records(path, data):
        where = {"path": path, "line": line}
        question_id = as_id(record.get("id"), **where, field="id")
        if question_id in questions:
            msg = f"question id {question_id!r} appears twice"
            raise LabelerError(msg, **where, field="id")
        tags = record.get("tags")
        if tags is not None and not isinstance(tags, list):
            raise LabelerError("expected a list of text", **where, field="tags")
        questions[question_id] = Question(
            id=question_id,
            text=as_text(record.get("question"), **where, field="question") or "",
            reference_answer=as_text(
                record.get("reference_answer"),
                **where,
                field="reference_answer",
                optional=True,
                blank=True,
            ),
            tags=tuple(sorted(as_tags(tags, **where))),
            unanswerable=_flag(record, **where),
            turn=read_turn(record.get("conversation"), **where),
        )
        if questions[question_id].turn is not None:
            turns.append((line, question_id, questions[question_id].turn))
    check_unique_turns(turns, path=path)
    return questions


def _flag(record: dict, *, path: Path, line: int) -> bool:
    value = record.get("unanswerable", False)
    if not isinstance(value, bool):
        raise LabelerError("expected true or false", path=path, line=line, field="unanswerable")
    return as_bool(value, path=path, line=line, field="unanswerable")


def parse_qrels(
    path: Path, data: bytes | None = None
) -> tuple[dict[str, dict[str, int]], dict[tuple[str, str], int]]:
    """{question: {chunk: grade}} of a version's qrels.tsv (grades 0, 1 or 2), and the line of
    each (question, chunk), for the cross-file checks."""
    qrels: dict[str, dict[str, int]] = {}
    lines: dict[tuple[str, str], int] = {}
    for line, question_id, chunk_id, grade in iter_qrels(path, allow_empty=True, data=data):
        if grade not in (0, 1, 2):
            msg = f"expected 0, 1 or 2, got {grade}"
            raise LabelerError(msg, path=path, line=line, field="grade")
        qrels.setdefault(question_id, {})[chunk_id] = grade  # type: ignore[index]
        lines[question_id, chunk_id] = line  # type: ignore[index]
    return qrels, lines


def parse_chunks(path: Path, data: bytes) -> dict[str, ChunkEntry]:
    chunks: dict[str, ChunkEntry] = {}
    for line, record in _records(path, data):
        where = {"path": path, "line": line}
        chunk_id = as_id(record.get("id"), **where, field="id")
        if chunk_id in chunks:
            msg = f"chunk id {chunk_id!r} appears twice"
            raise LabelerError(msg, **where, field="id")
        doc_id = record.get("doc_id")
        chunks[chunk_id] = ChunkEntry(
            id=chunk_id,
            text=as_text(record.get("text"), **where, field="text") or "",
            doc_id=None if doc_id is None else as_id(doc_id, **where, field="doc_id"),
            title=as_text(record.get("title"), **where, field="title", optional=True, blank=True),
        )
    return chunks


def check_qrels(
    folder: Path,
    qrels: Mapping[str, Mapping[str, int]],
    lines: Mapping[tuple[str, str], int],
    questions: Mapping[str, Question],
    chunks: Mapping[str, ChunkEntry] | None = None,
) -> None:
    """The cross-file rules: every qrels line names a question of questions.jsonl (and a chunk
    of chunks.jsonl, when given), and no unanswerable question has qrels lines. Errors name
    the qrels line."""
    path = folder / QRELS
    for (question_id, chunk_id), line in lines.items():
        question = questions.get(question_id)
        if question is None:
            msg = f"qrels name question {question_id!r}, which questions.jsonl does not hold"
            raise LabelerError(msg, path=path, line=line, field="question_id")
        if question.unanswerable:
            msg = f"question {question_id!r} is flagged unanswerable but has qrels lines"
            raise LabelerError(msg, path=path, line=line, field="question_id")
        if chunks is not None and chunk_id not in chunks:
            msg = f"qrels name chunk {chunk_id!r}, which chunks.jsonl does not hold"
            raise LabelerError(msg, path=path, line=line, field="chunk_id")


def parse_content(folder: Path, files: Mapping[str, bytes]) -> Content:
    """The three files parsed and cross-checked (``check_qrels``)."""
    questions = parse_questions(folder / QUESTIONS, files[QUESTIONS])
    qrels, lines = parse_qrels(folder / QRELS, files[QRELS])
    chunks = parse_chunks(folder / CHUNKS, files[CHUNKS])
    check_qrels(folder, qrels, lines, questions, chunks)
    return Content(questions=questions, qrels=qrels, chunks=chunks)


def parse_completeness(path: Path, data: bytes) -> dict[str, dict]:
    """{question: its completeness record} of a version's completeness.jsonl (see
    ``labeler.export``): how deep each question's pool was graded when it was exported."""
    found: dict[str, dict] = {}
    for line, record in _records(path, data):
        question_id = as_id(record.get("id"), path=path, line=line, field="id")
        if question_id in found:
            msg = f"question id {question_id!r} appears twice"
            raise LabelerError(msg, path=path, line=line, field="id")
        found[question_id] = record
    return found


def read_version(
    folder: str | Path, *, allow_modified: bool = False, trust: Trust = NO_TRUST
) -> Version:
    """Read a version folder, checked first (files, hash, signature under ``trust``).

    A version changed after export raises (naming what differs), unless ``allow_modified``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelerError("no such version folder", path=folder)
    manifest = read_manifest(folder)
    if allow_modified:
        findings, _ = inspect(folder, manifest, trust, names=())
        files = read_files(folder, version_files(manifest))
    else:  # the bytes parsed are the bytes checked
        findings, files = verify(folder, manifest, trust)
    completeness = files.get(COMPLETENESS)
    return Version(
        path=folder,
        manifest=manifest,
        content=parse_content(folder, files),
        findings=findings,
        completeness=None
        if completeness is None
        else parse_completeness(folder / COMPLETENESS, completeness),
    )


# what an evaluation reads ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class TestSet(Generic[Q]):
    """A version folder written by ``labeler export``, as an evaluation reads it: its qrels
    (the caller's table, ``Q``), questions and identity."""

    __test__ = False  # not a pytest test class, whatever its name

    path: str
    name: str
    version: Any
    content_hash: str
    qrels: Q
    questions: tuple[Question, ...]
    # How the version was checked (its signature's state), and its manifest's counts.
    findings: Findings | None = None
    counts: Mapping[str, Any] | None = None

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


def read_testset(
    path: str | Path,
    read_qrels: Callable[[Path, Mapping[str, Question]], Q],
    *,
    trust: Trust = NO_TRUST,
) -> TestSet[Q]:
    """A version written by ``labeler export``: ``exports/<name>/v<N>`` (or ``exports/<name>``
    for its latest version). Reads manifest.json, questions.jsonl and qrels.tsv, checked
    against the content hash, not the chunk texts (a figure is never quoted beside a hash that
    does not cover it). ``read_qrels(path, questions)`` builds the qrels table of the version's
    qrels.tsv; on a file that breaks the version's rules it calls ``check_qrels_file``, which
    names the line. The signature is checked under ``trust``."""
    folder = version_folder(path)
    manifest = read_manifest(folder)
    findings, files = verify(folder, manifest, trust, names=(QUESTIONS, QRELS))
    questions = parse_questions(folder / QUESTIONS, files[QUESTIONS])
    counts = manifest.get("counts")
    return TestSet(
        path=str(folder),
        name=str(manifest["name"]),
        version=manifest["version"],
        content_hash=str(manifest["content_hash"]),
        qrels=read_qrels(folder / QRELS, questions),
        questions=tuple(questions.values()),
        findings=findings,
        counts=counts if isinstance(counts, dict) else None,
    )


def check_qrels_file(path: Path, questions: Mapping[str, Question]) -> None:
    """A version's qrels.tsv checked line by line against its questions (every question known
    and answerable, grades 0, 1 or 2): raises naming the first bad line."""
    table, numbers = parse_qrels(path)
    check_qrels(path.parent, table, numbers, questions)


__all__ = [
    "TestSet",
    "check_qrels",
    "check_qrels_file",
    "parse_completeness",
    "parse_content",
    "parse_qrels",
    "parse_questions",
    "read_files",
    "read_manifest",
    "read_testset",
    "read_version",
]
