"""The test-set version on disk: its files, their one canonical form, its hash, and reading
and verifying it. The exporters write through here and the metric engine and the importers read
through here, so there is one definition of a version (and the metric engine needs nothing of
the exporters).

```
exports/<name>/v<N>/
  manifest.json      what, when, from where, counts, hash, changes since the parent
  questions.jsonl    {"id", "question", "reference_answer", "tags", "unanswerable"} by id
  qrels.tsv          question-id TAB 0 TAB chunk-id TAB grade, by question then chunk
  chunks.jsonl       {"id", "doc_id", "title", "text"} of every chunk the qrels name, by id
```

The content files are written one way only (sorted, LF, UTF-8, JSON with sorted keys), so the
same content is the same bytes. The **content hash** (format ``labeler-testset/2``) is
``sha256:`` and the SHA-256 of the canonical JSON of the manifest fields that change what a
consumer reads (``HASHED_FIELDS``: format, name, chunking, min_grade) with the SHA-256 of each
content file: edit a grade, a question, a chunk's text, or the manifest's ``min_grade`` (which
decides what ``convert`` writes), and the hash changes. Fields that only describe (created,
counts, reviewers, parent, changes) are left out, so the same content exported twice has the
same hash. Versions written before (``labeler-testset/1``) hashed the three files only; they are
still read and checked by that rule.

The version number is not hashed (a test set's next version may hold the same content as an
earlier one); it is bound to the folder ``v<N>`` and to the database's record of the export.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from labeler.errors import LabelerError
from labeler.models import Question
from labeler.readers import (
    as_bool,
    as_id,
    as_tags,
    as_text,
    bad_id_character,
    iter_qrels,
    lines,
    loads,
)

MANIFEST = "manifest.json"
QUESTIONS = "questions.jsonl"
QRELS = "qrels.tsv"
CHUNKS = "chunks.jsonl"
CONTENT_FILES = (QUESTIONS, QRELS, CHUNKS)
FORMAT_V1 = "labeler-testset/1"
FORMAT = "labeler-testset/2"
FORMATS = (FORMAT_V1, FORMAT)
HASH_PREFIX = "sha256:"
HASHED_FIELDS = ("format", "name", "chunking", "min_grade")

VERSION_DIR = re.compile(r"v([1-9][0-9]*)")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")

QuestionEntry = Question  # the name round one gave a version's question


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

    questions: Mapping[str, Question]
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


# names and folders ---------------------------------------------------------------------------


def check_name(name: str) -> str:
    """A test-set name is a folder name: letters, digits, '.', '_' and '-', 1 to 100 of them
    (the whole name: a trailing line break is not part of a name)."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        msg = (
            f"a test-set name is 1 to 100 letters, digits, '.', '_' or '-' (not first), got"
            f" {name!r}"
        )
        raise LabelerError(msg, field="name")
    return name


def version_number(folder: Path) -> int | None:
    """N for a folder named ``v<N>``, else None."""
    match = VERSION_DIR.fullmatch(folder.name)
    return int(match.group(1)) if match else None


def version_dirs(out: str | Path, name: str) -> list[tuple[int, Path]]:
    """The version folders of a test set, (number, path) oldest first; others are ignored."""
    folder = Path(out) / check_name(name)
    if not folder.is_dir():
        return []
    found = []
    for child in folder.iterdir():
        number = version_number(child)
        if number is not None and child.is_dir():
            found.append((number, child))
    return sorted(found)


def version_folder(path: str | Path) -> Path:
    """A version folder, or the latest version inside a test set's folder."""
    path = Path(path)
    if not path.exists():
        raise LabelerError("no such folder", path=path)
    if (path / MANIFEST).is_file() or not path.is_dir():
        return path
    versions = [
        (number, child)
        for child in path.iterdir()
        if (number := version_number(child)) is not None and child.is_dir()
    ]
    if not versions:
        raise LabelerError("not a test-set version folder (no manifest.json, no v<N>)", path=path)
    return max(versions)[1]


# writing -------------------------------------------------------------------------------------


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


def question_record(question: Question) -> dict:
    return {
        "id": question.id,
        "question": question.text,
        "reference_answer": question.reference_answer,
        "tags": sorted(question.tags),
        "unanswerable": question.unanswerable,
    }


def chunk_record(chunk: ChunkEntry) -> dict:
    return {"id": chunk.id, "doc_id": chunk.doc_id, "title": chunk.title, "text": chunk.text}


def check_trec_ids(values: Iterable[str], what: str) -> None:
    """TREC files separate columns by whitespace: an id holding any cannot be written there
    (the importers refuse such ids; this guards what the database already holds)."""
    values = list(values)
    # One scan over all the ids (joined by a character that is not whitespace) finds the rare
    # bad one faster than a check per id.
    joined = "\x01".join(values)
    if "" in values or re.search(r"[\s\x00\x02-\x1f\x7f-\x9f]|(?:^|\x01)#", joined):
        bad = next(v for v in values if bad_id_character(v) is not None)
        msg = f"{what} id {bad!r} {bad_id_character(bad)}"
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


def file_digests(files: Mapping[str, bytes]) -> dict[str, dict]:
    """Per-file sha256 and size, kept in the manifest so a check can say which file changed."""
    return {
        name: {"sha256": hashlib.sha256(files[name]).hexdigest(), "bytes": len(files[name])}
        for name in CONTENT_FILES
    }


def hashed_fields(manifest: Mapping) -> dict:
    """The manifest fields the content hash covers (a missing min_grade reads as 1)."""
    return {
        "format": manifest.get("format", FORMAT),
        "name": manifest.get("name"),
        "chunking": manifest.get("chunking"),
        "min_grade": manifest.get("min_grade", 1),
    }


def content_hash_v1(files: Mapping[str, bytes]) -> str:
    """``labeler-testset/1``: sha256 over, for each content file in order: its name, LF, its
    length in bytes, LF, its bytes."""
    digest = hashlib.sha256()
    for name in CONTENT_FILES:
        data = files[name]
        digest.update(f"{name}\n{len(data)}\n".encode())
        digest.update(data)
    return HASH_PREFIX + digest.hexdigest()


def content_hash(fields: Mapping, digests: Mapping[str, str]) -> str:
    """``labeler-testset/2``: sha256 of the canonical JSON (sorted keys, no spaces) of the
    ``HASHED_FIELDS`` and ``{"files": {name: sha256 of the file}}``."""
    body = {
        **{k: fields[k] for k in HASHED_FIELDS},
        "files": {n: digests[n] for n in CONTENT_FILES},
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return HASH_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def hash_of(manifest: Mapping, files: Mapping[str, bytes]) -> str:
    """The content hash the manifest should carry for ``files``, by the manifest's format."""
    if manifest.get("format", FORMAT_V1) == FORMAT_V1:
        return content_hash_v1(files)
    digests = {n: hashlib.sha256(files[n]).hexdigest() for n in CONTENT_FILES}
    return content_hash(hashed_fields(manifest), digests)


def seal(manifest: Mapping, files: Mapping[str, bytes]) -> dict:
    """``manifest`` (``format`` defaulting to the current one) with the files' digests and the
    content hash filled in: what a version's manifest.json holds."""
    sealed = {"format": FORMAT, **manifest, "files": file_digests(files)}
    sealed["content_hash"] = hash_of(sealed, files)
    return sealed


def manifest_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()


# reading and verifying -----------------------------------------------------------------------


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


def read_files(folder: Path, names: Iterable[str] = CONTENT_FILES) -> dict[str, bytes]:
    files = {}
    for name in names:
        path = folder / name
        if not path.is_file():
            raise LabelerError("missing from the version folder", path=path)
        files[name] = path.read_bytes()
    return files


def changed_files(folder: Path, manifest: dict) -> list[str]:
    """What no longer matches the manifest's hash: the content files that changed, or the
    manifest itself (its hash, or a hashed field such as min_grade). Empty when intact."""
    try:
        files = read_files(folder)
    except LabelerError as error:
        return [str(error)]
    if hash_of(manifest, files) == manifest.get("content_hash"):
        return []
    recorded = manifest.get("files") or {}
    actual = file_digests(files)
    named = [n for n in CONTENT_FILES if recorded.get(n, {}).get("sha256") != actual[n]["sha256"]]
    fields = ", ".join(HASHED_FIELDS[1:]) if manifest.get("format") == FORMAT else "content_hash"
    return named or [f"{MANIFEST} ({fields})"]


def modified_error(folder: Path, changed: list[str]) -> LabelerError:
    msg = (
        f"modified after export (differs from the manifest: {', '.join(changed)});"
        " a version is immutable: restore it from version control"
    )
    return LabelerError(msg, path=folder)


def verify(folder: Path, manifest: dict) -> None:
    """Raise, naming what changed, unless the files are those the manifest's hash covers."""
    changed = changed_files(folder, manifest)
    if changed:
        raise modified_error(folder, changed)


def verify_partly(folder: Path, manifest: dict, names: tuple[str, ...]) -> dict[str, bytes]:
    """Check the files ``names`` (and the manifest) against the hash without reading the
    others: for the metric engine, which reads questions and qrels but not the chunk texts.
    The others' digests are taken from the manifest, which the hash covers. Returns the bytes
    read. An old (v1) version is checked whole."""
    if manifest.get("format", FORMAT_V1) == FORMAT_V1:
        verify(folder, manifest)
        return read_files(folder, names)
    files = read_files(folder, names)
    recorded = manifest.get("files") or {}
    digests = {n: hashlib.sha256(data).hexdigest() for n, data in files.items()}
    changed = [n for n in names if recorded.get(n, {}).get("sha256") != digests[n]]
    for name in CONTENT_FILES:
        digests.setdefault(name, str(recorded.get(name, {}).get("sha256")))
    if not changed and content_hash(hashed_fields(manifest), digests) != manifest["content_hash"]:
        changed = [f"{MANIFEST} ({', '.join(HASHED_FIELDS[1:])}, files)"]
    if changed:
        raise modified_error(folder, changed)
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
        )
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
        verify(folder, manifest)
    return Version(path=folder, manifest=manifest, content=parse_content(folder, files))


__all__ = [
    "CHUNKS",
    "CONTENT_FILES",
    "FORMAT",
    "FORMATS",
    "FORMAT_V1",
    "HASHED_FIELDS",
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
    "check_qrels",
    "check_trec_ids",
    "content_hash",
    "content_hash_v1",
    "file_digests",
    "hash_of",
    "hashed_fields",
    "manifest_bytes",
    "modified_error",
    "parse_content",
    "parse_qrels",
    "parse_questions",
    "read_files",
    "read_manifest",
    "read_version",
    "seal",
    "serialise",
    "verify",
    "verify_partly",
    "version_dirs",
    "version_folder",
    "version_number",
]
