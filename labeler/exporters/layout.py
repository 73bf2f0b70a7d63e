"""A test-set version on disk: its files, their one canonical serialisation, and its hash.

```
exports/<name>/v<N>/
  manifest.json      what, when, from where, counts, hash, changes since the parent
  questions.jsonl    {"id", "question", "reference_answer", "tags", "unanswerable"} by id
  qrels.tsv          question-id TAB 0 TAB chunk-id TAB grade, by question then chunk
  chunks.jsonl       {"id", "doc_id", "title", "text"} of every chunk the qrels name, by id
```

The content files are written one way only (sorted, LF, UTF-8, JSON with sorted keys), so the
same content is the same bytes, and the content hash is a hash of those bytes. It never covers
the manifest, so the creation time does not change it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from labeler.errors import LabelerError

MANIFEST = "manifest.json"
QUESTIONS = "questions.jsonl"
QRELS = "qrels.tsv"
CHUNKS = "chunks.jsonl"
CONTENT_FILES = (QUESTIONS, QRELS, CHUNKS)
FORMAT = "labeler-testset/1"
HASH_PREFIX = "sha256:"

VERSION_DIR = re.compile(r"^v([1-9][0-9]*)$")
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
# Characters that would break a whitespace-separated qrels line.
_WHITESPACE = re.compile(r"\s")


@dataclass(frozen=True, slots=True)
class QuestionEntry:
    id: str
    question: str
    reference_answer: str | None = None
    tags: tuple[str, ...] = ()
    unanswerable: bool = False


@dataclass(frozen=True, slots=True)
class ChunkEntry:
    id: str
    text: str
    doc_id: str | None = None
    title: str | None = None


@dataclass(frozen=True, slots=True)
class Content:
    """What a user evaluates against: questions, graded (question, chunk) pairs, chunk texts.

    ``qrels`` maps a question id to {chunk id: grade}; unanswerable questions have none.
    """

    questions: Mapping[str, QuestionEntry]
    qrels: Mapping[str, Mapping[str, int]]
    chunks: Mapping[str, ChunkEntry]

    def qrels_lines(self) -> Iterator[tuple[str, str, int]]:
        """(question, chunk, grade) in file order: by question id, then chunk id."""
        for question_id in sorted(self.qrels):
            for chunk_id, grade in sorted(self.qrels[question_id].items()):
                yield question_id, chunk_id, grade

    @property
    def qrels_count(self) -> int:
        return sum(len(judged) for judged in self.qrels.values())


@dataclass(frozen=True, slots=True)
class Version:
    """A version folder, read and checked: its manifest and its content."""

    path: Path
    manifest: dict
    content: Content = field(repr=False)

    @property
    def name(self) -> str:
        return str(self.manifest["name"])

    @property
    def number(self) -> int:
        return int(self.manifest["version"])

    @property
    def content_hash(self) -> str:
        return str(self.manifest["content_hash"])

    @property
    def min_grade(self) -> int:
        return int(self.manifest.get("min_grade", 1))


def check_name(name: str) -> str:
    """A test-set name is a folder name: letters, digits, '.', '_' and '-', 1 to 100 of them."""
    if not NAME.match(name or ""):
        msg = (
            f"a test-set name is 1 to 100 letters, digits, '.', '_' or '-' (not first), got"
            f" {name!r}"
        )
        raise LabelerError(msg, field="name")
    return name


def version_dirs(out: str | Path, name: str) -> list[tuple[int, Path]]:
    """The version folders of a test set, (number, path) oldest first; others are ignored."""
    folder = Path(out) / check_name(name)
    if not folder.is_dir():
        return []
    found = []
    for child in folder.iterdir():
        match = VERSION_DIR.match(child.name)
        if match and child.is_dir():
            found.append((int(match.group(1)), child))
    return sorted(found)


# writing ------------------------------------------------------------------------------------


_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True)
_RAW_SEPARATORS = re.compile("[\u2028\u2029\x85]")


def _json_lines(records: Iterable[dict]) -> str:
    """One JSON object per line, keys sorted, text readable (not \\u-escaped), except the three
    line separators json leaves raw: escaped, so no reader splitting on Unicode line breaks can
    cut a record in two. (They can only occur inside JSON strings, so one pass over the whole
    text is enough.)"""
    encode = _ENCODER.encode
    text = "".join([encode(record) + "\n" for record in records])
    if _RAW_SEPARATORS.search(text):
        text = _RAW_SEPARATORS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def question_record(question: QuestionEntry) -> dict:
    return {
        "id": question.id,
        "question": question.question,
        "reference_answer": question.reference_answer,
        "tags": sorted(question.tags),
        "unanswerable": question.unanswerable,
    }


def chunk_record(chunk: ChunkEntry) -> dict:
    return {"id": chunk.id, "doc_id": chunk.doc_id, "title": chunk.title, "text": chunk.text}


def check_trec_ids(values: Iterable[str], what: str) -> None:
    """TREC files separate columns by whitespace: an id holding any cannot be written there."""
    values = list(values)
    # One scan over all the ids (joined by a character that is not whitespace) finds the rare
    # bad one faster than a scan per id.
    if "" in values or _WHITESPACE.search("\x00".join(values)):
        bad = next(v for v in values if not v or _WHITESPACE.search(v))
        msg = f"{what} id {bad!r} is empty or holds whitespace, which TREC qrels cannot carry"
        raise LabelerError(msg, field=f"{what}_id")


def serialise(content: Content) -> dict[str, bytes]:
    """The bytes of the three content files: one canonical form for one content."""
    questions = _json_lines(
        question_record(content.questions[q]) for q in sorted(content.questions)
    )
    qrels = "".join([f"{q}\t0\t{c}\t{g}\n" for q, c, g in content.qrels_lines()])
    chunks = _json_lines(chunk_record(content.chunks[c]) for c in sorted(content.chunks))
    return {
        QUESTIONS: questions.encode("utf-8"),
        QRELS: qrels.encode("utf-8"),
        CHUNKS: chunks.encode("utf-8"),
    }


def content_hash(files: Mapping[str, bytes]) -> str:
    """sha256 over, for each content file in order: its name, LF, its length in bytes, LF, its
    bytes. Lengths make the boundaries unambiguous; the manifest is not covered."""
    digest = hashlib.sha256()
    for name in CONTENT_FILES:
        data = files[name]
        digest.update(f"{name}\n{len(data)}\n".encode())
        digest.update(data)
    return HASH_PREFIX + digest.hexdigest()


def file_digests(files: Mapping[str, bytes]) -> dict[str, dict]:
    """Per-file sha256 and size, kept in the manifest so a check can say which file changed."""
    return {
        name: {"sha256": hashlib.sha256(files[name]).hexdigest(), "bytes": len(files[name])}
        for name in CONTENT_FILES
    }


def manifest_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()


# reading ------------------------------------------------------------------------------------


def read_manifest(folder: Path) -> dict:
    path = folder / MANIFEST
    if not path.is_file():
        raise LabelerError("no manifest.json: not a test-set version folder", path=folder)
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise LabelerError(f"not valid JSON: {error}", path=path) from None
    if not isinstance(manifest, dict):
        raise LabelerError("expected a JSON object", path=path)
    for key in ("name", "version", "content_hash"):
        if key not in manifest:
            raise LabelerError("missing", path=path, field=key)
    return manifest


def read_files(folder: Path) -> dict[str, bytes]:
    files = {}
    for name in CONTENT_FILES:
        path = folder / name
        if not path.is_file():
            raise LabelerError("missing from the version folder", path=path)
        files[name] = path.read_bytes()
    return files


def changed_files(folder: Path, manifest: dict) -> list[str]:
    """The content files (or the manifest's hash itself) that no longer match the manifest.

    Empty when the version is as exported.
    """
    try:
        files = read_files(folder)
    except LabelerError as error:
        return [str(error)]
    if content_hash(files) == manifest.get("content_hash"):
        return []
    recorded = manifest.get("files") or {}
    actual = file_digests(files)
    named = [n for n in CONTENT_FILES if recorded.get(n, {}).get("sha256") != actual[n]["sha256"]]
    return named or [MANIFEST + " (content_hash)"]


def _lines(path: Path, data: bytes) -> list[tuple[int, str]]:
    """(line number, text) of the file's non-blank lines."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LabelerError(f"not valid UTF-8 at byte {error.start}", path=path) from None
    return [
        (number, line.rstrip("\r"))
        for number, line in enumerate(text.split("\n"), start=1)
        if line and not line.isspace()
    ]


def _json_records(path: Path, data: bytes) -> list[tuple[int, dict]]:
    """(line number, object) of a JSONL file. Parsed in one call when the file is well formed
    (fast); line by line, to name the bad line, when it is not."""
    lines = _lines(path, data)
    try:
        records = json.loads("[" + ",".join(text for _, text in lines) + "]")
    except json.JSONDecodeError:
        records = None
    if records is None or len(records) != len(lines):
        records = []
        for number, text in lines:
            try:
                records.append(json.loads(text))
            except json.JSONDecodeError as error:
                msg = f"not valid JSON: {error.msg} at column {error.colno}"
                raise LabelerError(msg, path=path, line=number) from None
    numbered = list(zip((n for n, _ in lines), records, strict=True))
    for number, record in numbered:
        if type(record) is not dict:
            raise LabelerError("expected a JSON object", path=path, line=number)
    return numbered


def _text(record: dict, key: str, *, path: Path, line: int, optional: bool = False) -> str | None:
    value = record.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or (not optional and not value):
        raise LabelerError("missing, empty or not text", path=path, line=line, field=key)
    return value


def _is_text(value: object) -> bool:
    return type(value) is str and bool(value)


def _is_optional_text(value: object) -> bool:
    return value is None or type(value) is str


def parse_questions(path: Path, data: bytes) -> dict[str, QuestionEntry]:
    questions: dict[str, QuestionEntry] = {}
    for line, record in _json_records(path, data):
        question_id = _text(record, "id", path=path, line=line)
        if question_id in questions:
            msg = f"question id {question_id!r} appears twice"
            raise LabelerError(msg, path=path, line=line, field="id")
        tags = record.get("tags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise LabelerError("expected a list of text", path=path, line=line, field="tags")
        unanswerable = record.get("unanswerable", False)
        if not isinstance(unanswerable, bool):
            raise LabelerError("expected true or false", path=path, line=line, field="unanswerable")
        questions[question_id] = QuestionEntry(
            id=question_id,
            question=_text(record, "question", path=path, line=line),
            reference_answer=_text(record, "reference_answer", path=path, line=line, optional=True),
            tags=tuple(sorted(set(tags))),
            unanswerable=unanswerable,
        )
    return questions


_GRADES = {"0": 0, "1": 1, "2": 2}


def parse_qrels(path: Path, data: bytes) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    grades = _GRADES
    for line, text in _lines(path, data):
        columns = text.split()
        if len(columns) != 4:
            msg = f"expected 4 columns (question-id 0 chunk-id grade), got {len(columns)}"
            raise LabelerError(msg, path=path, line=line)
        question_id, _, chunk_id, grade = columns
        value = grades.get(grade)
        if value is None:
            msg = f"expected 0, 1 or 2, got {grade!r}"
            raise LabelerError(msg, path=path, line=line, field="grade")
        judged = qrels.get(question_id)
        if judged is None:
            judged = qrels[question_id] = {}
        elif chunk_id in judged:
            msg = f"chunk {chunk_id!r} is judged twice for question {question_id!r}"
            raise LabelerError(msg, path=path, line=line, field="chunk_id")
        judged[chunk_id] = value
    return qrels


def parse_chunks(path: Path, data: bytes) -> dict[str, ChunkEntry]:
    chunks: dict[str, ChunkEntry] = {}
    for line, record in _json_records(path, data):
        chunk_id, text = record.get("id"), record.get("text")
        doc_id, title = record.get("doc_id"), record.get("title")
        if not (
            _is_text(chunk_id)
            and _is_text(text)
            and _is_optional_text(doc_id)
            and _is_optional_text(title)
        ):
            for key, optional in (("id", False), ("text", False), ("doc_id", True)):
                _text(record, key, path=path, line=line, optional=optional)
            _text(record, "title", path=path, line=line, optional=True)
        if chunk_id in chunks:
            msg = f"chunk id {chunk_id!r} appears twice"
            raise LabelerError(msg, path=path, line=line, field="id")
        chunks[chunk_id] = ChunkEntry(id=chunk_id, text=text, doc_id=doc_id, title=title)
    return chunks


def parse_content(folder: Path, files: Mapping[str, bytes]) -> Content:
    """The three files parsed and cross-checked: every qrels line names a known question and
    chunk, and no unanswerable question has qrels lines."""
    questions = parse_questions(folder / QUESTIONS, files[QUESTIONS])
    qrels = parse_qrels(folder / QRELS, files[QRELS])
    chunks = parse_chunks(folder / CHUNKS, files[CHUNKS])
    for question_id, judged in qrels.items():
        if question_id not in questions:
            msg = f"qrels name question {question_id!r}, which questions.jsonl does not hold"
            raise LabelerError(msg, path=folder / QRELS, field="question_id")
        if questions[question_id].unanswerable:
            msg = f"question {question_id!r} is flagged unanswerable but has qrels lines"
            raise LabelerError(msg, path=folder / QRELS, field="question_id")
        missing = sorted(c for c in judged if c not in chunks)
        if missing:
            msg = f"qrels name chunk {missing[0]!r}, which chunks.jsonl does not hold"
            raise LabelerError(msg, path=folder / QRELS, field="chunk_id")
    return Content(questions=questions, qrels=qrels, chunks=chunks)


def read_version(folder: str | Path, *, allow_modified: bool = False) -> Version:
    """Read a version folder, checking its files against the manifest's hash.

    A version changed after export raises (naming the files), unless ``allow_modified``.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelerError("no such version folder", path=folder)
    manifest = read_manifest(folder)
    files = read_files(folder)
    if not allow_modified:
        changed = changed_files(folder, manifest)
        if changed:
            msg = (
                f"modified after export (differs from the manifest: {', '.join(changed)});"
                " a version is immutable: restore it from version control"
            )
            raise LabelerError(msg, path=folder)
    return Version(path=folder, manifest=manifest, content=parse_content(folder, files))


__all__ = [
    "CHUNKS",
    "CONTENT_FILES",
    "FORMAT",
    "MANIFEST",
    "NAME",
    "QRELS",
    "QUESTIONS",
    "VERSION_DIR",
    "ChunkEntry",
    "Content",
    "QuestionEntry",
    "Version",
    "changed_files",
    "check_name",
    "check_trec_ids",
    "content_hash",
    "file_digests",
    "manifest_bytes",
    "parse_content",
    "read_manifest",
    "read_version",
    "serialise",
    "version_dirs",
]
