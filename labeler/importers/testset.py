"""Read a test set back into a database: one of our versions, or a BEIR folder.

A version (``manifest.json`` and its files, checked against its hash and its signature) comes in
as:
its chunks into the chunking the manifest names (created if missing; a chunk that is already
there with another text, title or document is a conflict, not an overwrite), its questions
(a turn of a conversation with its conversation), its
qrels as the labels of reviewer ``testset.<name>.v<N>``, and its unanswerable questions marked
by that reviewer. Exporting that database again gives the same content (``content_key``).

A BEIR folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/``) is read by the BEIR importer;
the extra fields our BEIR conversion writes on queries (``reference_answer``, ``tags``,
``unanswerable``) are read too, so export -> convert to BEIR -> import -> export also gives the
same content.

Everything is one transaction: a bad line anywhere writes nothing. Grading progress is not
recomputed for the questions of a version (a full-text search each); the grading page does it
when a question is opened.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from labeler.conversations import read_turn
from labeler.errors import LabelerError, shown
from labeler.importers.batching import refuse_question_text_changes
from labeler.importers.beir import import_beir
from labeler.models import ImportReport
from labeler.names import to_name
from labeler.readers import as_bool, as_id, as_name, as_tags, as_text, iter_jsonl
from labeler.store import Store, check_reviewer
from labeler.versions.format import QRELS, Version
from labeler.versions.history import check_record, trust_for
from labeler.versions.reading import read_manifest, read_version

REVIEWER_PREFIX = "testset."


@dataclass(frozen=True, slots=True)
class TestsetImport:
    """``kind`` is "version" or "beir"; one report per part, in the order they were written."""

    kind: str
    chunking: str
    reviewer: str
    reports: tuple[ImportReport, ...]

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "chunking": self.chunking,
            "reviewer": self.reviewer,
            "reports": [
                {
                    "kind": r.kind,
                    "path": r.path,
                    "added": r.added,
                    "updated": r.updated,
                    "unchanged": r.unchanged,
                    "skipped": r.skipped,
                }
                for r in self.reports
            ],
        }


def is_beir_folder(folder: Path) -> bool:
    return (
        (folder / "corpus.jsonl").is_file()
        and (folder / "queries.jsonl").is_file()
        and (folder / "qrels").is_dir()
    )


def default_reviewer(label: str) -> str:
    """``testset.<name>.v<N>``: a reviewer name by the one rule (``labeler.names``), each
    character the rule does not allow in the test set's name written as ``-``."""
    return to_name(REVIEWER_PREFIX + label)


def import_testset(
    store: Store,
    folder: str | Path,
    *,
    chunking: str | None = None,
    reviewer: str | None = None,
    allow_modified: bool = False,
    split: str = "test",
    grade_map: dict[int, int | None] | None = None,
) -> TestsetImport:
    """Import a version folder or a BEIR folder (see the module docstring)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelerError("not a folder", path=folder)
    if (folder / "manifest.json").is_file():
        trust = trust_for(store, folder, read_manifest(folder))
        version = read_version(folder, allow_modified=allow_modified, trust=trust)
        if not allow_modified:
            check_record(store, folder, version.manifest)
        return _import_version(store, version, chunking=chunking, reviewer=reviewer)
    if is_beir_folder(folder):
        return _import_beir(
            store,
            folder,
            chunking=chunking or store.corpus.current_chunking(),
            reviewer=check_reviewer(reviewer or default_reviewer(folder.resolve().name)),
            split=split,
            grade_map=grade_map,
        )
    msg = (
        "neither a test-set version (manifest.json, questions.jsonl, qrels.tsv, chunks.jsonl)"
        " nor a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)"
    )
    raise LabelerError(msg, path=folder)


def _import_chunks(store: Store, version: Version, chunking: str) -> ImportReport:
    chunks = version.content.chunks
    stored = store.corpus.get_chunks(chunking, list(chunks))
    lines = {chunk_id: line for line, chunk_id in enumerate(chunks, start=1)}  # canonical file
    for chunk_id in sorted(stored, key=lines.__getitem__):
        chunk, mine = stored[chunk_id], chunks[chunk_id]
        if (chunk.text, chunk.title, chunk.doc_id) != (mine.text, mine.title, mine.doc_id):
            msg = (
                f"chunk {shown(chunk_id)} is already in chunking {shown(chunking)} with another"
                " text, title or document; import into another chunking with --chunking NAME"
            )
            raise LabelerError(
                msg, path=version.path / "chunks.jsonl", line=lines[chunk_id], field="id"
            )
    new = [
        {"id": c.id, "text": c.text, "doc_id": c.doc_id, "title": c.title}
        for chunk_id, c in chunks.items()
        if chunk_id not in stored
    ]
    added, _ = store.corpus.upsert_chunks(chunking, new)
    return ImportReport(
        "chunks",
        str(version.path / "chunks.jsonl"),
        added=added,
        unchanged=len(stored),
        detail=f"chunking {chunking!r}",
    )


def _import_questions(store: Store, rows: list[dict], path: Path) -> ImportReport:
    """The questions of a version (or of a BEIR folder's unanswerable queries); a question
    this database holds with other labels and another text is refused, as by `labeler import
    questions`."""
    added = updated = 0
    for start in range(0, len(rows), 5000):
        a, u = store.questions.upsert(rows[start : start + 5000])
        added, updated = added + a, updated + u
    refuse_question_text_changes(store.questions.take_text_changes(), path=path)
    return ImportReport(
        "questions", str(path), added=added, updated=updated, unchanged=len(rows) - added - updated
    )


def _mark_unanswerable(
    store: Store, question_ids: list[str], chunking: str, reviewer: str, path: Path
) -> ImportReport:
    added = sum(
        store.labels.set_mark(question_id, chunking, reviewer, mark="unanswerable", value=True)
        for question_id in question_ids
    )
    return ImportReport(
        "unanswerable",
        str(path),
        added=added,
        unchanged=len(question_ids) - added,
        detail=f"reviewer {reviewer!r}",
    )


def _import_qrels(store: Store, version: Version, chunking: str, reviewer: str) -> ImportReport:
    """The qrels as ``reviewer``'s labels, through the same staged checks as ``labeler import
    qrels``. Unlike it, the questions' progress is not recomputed here: that takes a full-text
    search per question (minutes for a test set of 10,000), and the grading page recomputes a
    question's progress whenever it is opened."""
    path = version.path / QRELS
    lines = [(n, q, c, g) for n, (q, c, g) in enumerate(version.content.qrels_lines(), start=1)]
    store.labels.stage_labels(lines)
    store.labels.check_staged_labels(chunking, str(path))
    added, updated, unchanged = store.labels.merge_staged_labels(chunking, reviewer)
    return ImportReport(
        "qrels",
        str(path),
        added=added,
        updated=updated,
        unchanged=unchanged,
        detail=f"reviewer {reviewer!r}",
    )


def _import_version(
    store: Store, version: Version, *, chunking: str | None, reviewer: str | None
) -> TestsetImport:
    content = version.content
    chunking = chunking or str(version.manifest.get("chunking") or store.corpus.current_chunking())
    reviewer = check_reviewer(reviewer or default_reviewer(f"{version.name}.v{version.number}"))
    with store.write():
        store.corpus.ensure_chunking(as_name(chunking, what="chunking"), source=str(version.path))
        reports = [_import_chunks(store, version, chunking)]
        rows = [
            {
                "id": q.id,
                "text": q.text,
                "reference_answer": q.reference_answer,
                "tags": list(q.tags),
                "line": line,
            }
            | ({"turn": q.turn} if q.turn is not None else {})
            for line, q in enumerate(content.questions.values(), start=1)
        ]
        reports.append(_import_questions(store, rows, version.path / "questions.jsonl"))
        reports.append(_import_qrels(store, version, chunking, reviewer))
        flagged = sorted(q.id for q in content.questions.values() if q.unanswerable)
        reports.append(
            _mark_unanswerable(store, flagged, chunking, reviewer, version.path / "questions.jsonl")
        )
    return TestsetImport("version", chunking, reviewer, tuple(reports))


def _unanswerable_queries(path: Path) -> list[dict]:
    """The queries our BEIR conversion flagged unanswerable (BEIR's qrels cannot hold them)."""
    rows = []
    for line, record in iter_jsonl(path):
        where = {"path": path, "line": line}
        if not as_bool(record.get("unanswerable"), **where, field="unanswerable"):
            continue
        row = {
            "id": as_id(record.get("_id"), **where, field="_id"),
            "text": as_text(record.get("text"), **where, field="text").strip(),
        }
        reference = as_text(
            record.get("reference_answer"),
            **where,
            field="reference_answer",
            optional=True,
            blank=True,
        )
        if reference is not None:
            row["reference_answer"] = reference.strip()
        row["tags"] = as_tags(record.get("tags"), **where)
        turn = read_turn(record.get("conversation"), **where)
        if turn is not None:
            row["turn"] = turn
        rows.append(row)
    return rows


def _import_beir(
    store: Store,
    folder: Path,
    *,
    chunking: str,
    reviewer: str,
    split: str,
    grade_map: dict[int, int | None] | None,
) -> TestsetImport:
    queries = folder / "queries.jsonl"
    with store.write():
        reports = import_beir(
            store, folder, split=split, chunking=chunking, reviewer=reviewer, grade_map=grade_map
        )
        extra = _unanswerable_queries(queries)
        if extra:
            reports.append(_import_questions(store, extra, queries))
            reports.append(
                _mark_unanswerable(store, [r["id"] for r in extra], chunking, reviewer, queries)
            )
    return TestsetImport("beir", chunking, reviewer, tuple(reports))


__all__ = ["REVIEWER_PREFIX", "TestsetImport", "import_testset", "is_beir_folder"]
