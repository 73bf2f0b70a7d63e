"""The test-set version on disk: its files, their one canonical form, and its hash. Writing
(``labeler.versions.writing``) and reading (``labeler.versions.reading``) both go through here,
so there is one definition of a version.

```
exports/<name>/v<N>/
  manifest.json      what, when, from where, counts, completeness, hash, changes since the parent
  questions.jsonl    {"id", "question", "reference_answer", "tags", "unanswerable"} by id,
                     and "conversation" for a turn of one (labeler.conversations.turn_record)
  qrels.tsv          question-id TAB 0 TAB chunk-id TAB grade, by question then chunk
  chunks.jsonl       {"id", "doc_id", "title", "text"} of every chunk the qrels name, by id
  completeness.jsonl how deep each question's pool is graded, per run it was pooled from
  signature.json     the Ed25519 signature of the project that exported it (``signing``)
```

The files are written one way only (sorted, LF, UTF-8, JSON with sorted keys), so the same
content is the same bytes. The **content hash** of the current format, ``labeler-testset/3``,
is ``sha256:`` and the SHA-256 of the canonical JSON (sorted keys, no spaces) of the whole
manifest but the hash itself: every field (created, counts, reviewers, policy, the version
number, ...) and, through ``files`` (each file's SHA-256 and size), every file. The signature
(``labeler.versions.signing``) signs that hash.

Two versions hold **the same content** when their name, chunking, min_grade and the three files
a consumer evaluates against are the same (``content_key``): the export never writes the same
content twice, whatever else (the creation time, the reviewers) differs.

Older formats are still read and checked by their own rule: ``labeler-testset/2`` hashed the
manifest fields that change what a consumer reads (format, name, chunking, min_grade) with the
SHA-256 of the three content files; ``labeler-testset/1`` the three files only.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labeler.conversations import turn_record
from labeler.errors import LabelerError
from labeler.models import Question
from labeler.readers import (
    bad_id_character,
)

MANIFEST = "manifest.json"
QUESTIONS = "questions.jsonl"
QRELS = "qrels.tsv"
CHUNKS = "chunks.jsonl"
COMPLETENESS = "completeness.jsonl"
SIGNATURE = "signature.json"
# What a consumer evaluates against: the files whose bytes make "the same content".
CONTENT_FILES = (QUESTIONS, QRELS, CHUNKS)
FORMAT_V1 = "labeler-testset/1"
FORMAT_V2 = "labeler-testset/2"
FORMAT = "labeler-testset/3"
FORMATS = (FORMAT_V1, FORMAT_V2, FORMAT)
# The files of a version, by format (the manifest and the signature apart).
FILES = {FORMAT_V1: CONTENT_FILES, FORMAT_V2: CONTENT_FILES, FORMAT: (*CONTENT_FILES, COMPLETENESS)}
HASH_PREFIX = "sha256:"
# What the labeler-testset/2 hash covered of the manifest (the current one covers every field).
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
    # What checking it found (``labeler.versions.checking.Findings``), and its completeness
    # records by question (labeler-testset/3 on; None before).
    findings: Any = field(default=None, repr=False, compare=False)
    completeness: Mapping[str, dict] | None = field(default=None, repr=False, compare=False)

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


def check_name(name: object, *, path: str | Path | None = None) -> str:
    """A test-set name is a folder name: letters, digits, '.', '_' and '-', 1 to 100 of them
    (the whole name: a trailing line break is not part of a name). The one rule for a name
    typed on the command line and a name read from a manifest (``path``), so no name ever
    becomes a path of its own (``/tmp/x``, ``../..``)."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        shown = repr(name) if len(repr(name)) <= 120 else repr(name)[:119] + "…"
        msg = (
            f"a test-set name is 1 to 100 letters, digits, '.', '_' or '-' (not first), got {shown}"
        )
        raise LabelerError(msg, path=path, field="name")
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


# the canonical form and the hash ---------------------------------------------------------------


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
    """A question as questions.jsonl holds it. A turn of a conversation also holds
    ``conversation`` (its conversation, turn number, the messages before it and its rewrite),
    so the hash covers it; a question that stands alone is written as it always was, so its
    version's hash does not change."""
    record = {
        "id": question.id,
        "question": question.text,
        "reference_answer": question.reference_answer,
        "tags": sorted(question.tags),
        "unanswerable": question.unanswerable,
    }
    if question.turn is not None:
        record["conversation"] = turn_record(question.turn)
    return record


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


def serialise_lines(records: Iterable[dict]) -> bytes:
    """Records as a version's JSON lines file (``completeness.jsonl``): the canonical form of
    ``serialise``'s, in the order given."""
    return _json_lines(records).encode("utf-8")


def format_of(manifest: Mapping) -> str:
    """The manifest's format; a manifest without one is the first format's."""
    return str(manifest.get("format", FORMAT_V1))


def version_files(manifest: Mapping) -> tuple[str, ...]:
    """The files a version of this manifest's format holds, beside the manifest and signature."""
    return FILES.get(format_of(manifest), FILES[FORMAT])


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(value: object) -> bytes:
    """The one serialisation a hash or a signature is taken over: sorted keys, no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def file_digests(files: Mapping[str, bytes], names: Iterable[str] = CONTENT_FILES) -> dict:
    """Per-file sha256 and size, kept in the manifest so a check can say which file changed."""
    return {name: {"sha256": sha256_hex(files[name]), "bytes": len(files[name])} for name in names}


def hashed_fields(manifest: Mapping) -> dict:
    """The manifest fields the labeler-testset/2 hash covers (a missing min_grade reads as 1)."""
    return {
        "format": manifest.get("format", FORMAT_V2),
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


def content_hash_v2(fields: Mapping, digests: Mapping[str, str]) -> str:
    """``labeler-testset/2``: sha256 of the canonical JSON of the ``HASHED_FIELDS`` and
    ``{"files": {name: sha256 of the file}}``."""
    body = {
        **{k: fields[k] for k in HASHED_FIELDS},
        "files": {n: digests[n] for n in CONTENT_FILES},
    }
    return HASH_PREFIX + sha256_hex(canonical_json(body))


def manifest_hash(manifest: Mapping) -> str:
    """``labeler-testset/3``: sha256 of the canonical JSON of every manifest field but
    ``content_hash`` (its ``files`` hold each file's sha256 and size)."""
    body = {k: v for k, v in manifest.items() if k != "content_hash"}
    return HASH_PREFIX + sha256_hex(canonical_json(body))


def hash_from_digests(manifest: Mapping, digests: Mapping[str, str]) -> str | None:
    """The content hash the manifest should carry when its files have these sha256 digests;
    None for the first format, whose hash needs the bytes themselves (``hash_of``)."""
    kind = format_of(manifest)
    if kind == FORMAT_V1:
        return None
    if kind == FORMAT_V2:
        return content_hash_v2(hashed_fields(manifest), digests)
    recorded = manifest.get("files") or {}
    files = {
        name: {**(recorded.get(name) or {}), "sha256": digests.get(name)}
        for name in version_files(manifest)
    }
    return manifest_hash({**manifest, "files": files})


def hash_of(manifest: Mapping, files: Mapping[str, bytes]) -> str:
    """The content hash the manifest should carry for ``files``, by the manifest's format."""
    if format_of(manifest) == FORMAT_V1:
        return content_hash_v1(files)
    if format_of(manifest) == FORMAT_V2:
        digests = {n: sha256_hex(files[n]) for n in CONTENT_FILES}
        return content_hash_v2(hashed_fields(manifest), digests)
    return manifest_hash({**manifest, "files": file_digests(files, version_files(manifest))})


def seal(manifest: Mapping, files: Mapping[str, bytes]) -> dict:
    """``manifest`` (``format`` defaulting to the current one) with the files' digests and the
    content hash filled in: what a version's manifest.json holds."""
    sealed = {"format": FORMAT, **manifest}
    sealed.pop("content_hash", None)
    sealed["files"] = file_digests(files, version_files(sealed))
    sealed["content_hash"] = hash_of(sealed, files)
    return sealed


def content_key(name: str, chunking: str, min_grade: int, digests: Mapping[str, str]) -> str:
    """What makes two versions hold the same content, whatever their format: the name, the
    chunking, min_grade and the sha256 of the three files a consumer evaluates against. (It is
    the labeler-testset/2 hash of that content.)"""
    fields = {"format": FORMAT_V2, "name": name, "chunking": chunking, "min_grade": min_grade}
    return content_hash_v2(fields, digests)


def manifest_content_key(manifest: Mapping, files: Mapping[str, bytes] | None = None) -> str:
    """``content_key`` of a version, from its manifest's file digests (or from ``files``, the
    bytes, for the first format, whose manifest may not list them)."""
    if files is not None:
        digests = {n: sha256_hex(files[n]) for n in CONTENT_FILES}
    else:
        recorded = manifest.get("files") or {}
        digests = {n: str((recorded.get(n) or {}).get("sha256")) for n in CONTENT_FILES}
    return content_key(
        str(manifest.get("name")),
        str(manifest.get("chunking")),
        int(manifest.get("min_grade", 1)),
        digests,
    )


def manifest_bytes(manifest: dict) -> bytes:
    return (json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()


__all__ = [
    "CHUNKS",
    "COMPLETENESS",
    "CONTENT_FILES",
    "FILES",
    "FORMAT",
    "FORMATS",
    "FORMAT_V1",
    "FORMAT_V2",
    "HASHED_FIELDS",
    "MANIFEST",
    "NAME",
    "QRELS",
    "QUESTIONS",
    "SIGNATURE",
    "VERSION_DIR",
    "ChunkEntry",
    "Content",
    "QuestionEntry",
    "Version",
    "canonical_json",
    "check_name",
    "check_trec_ids",
    "content_hash_v1",
    "content_hash_v2",
    "content_key",
    "file_digests",
    "format_of",
    "hash_from_digests",
    "hash_of",
    "hashed_fields",
    "manifest_bytes",
    "manifest_content_key",
    "manifest_hash",
    "seal",
    "serialise",
    "serialise_lines",
    "sha256_hex",
    "version_dirs",
    "version_files",
    "version_folder",
    "version_number",
]
