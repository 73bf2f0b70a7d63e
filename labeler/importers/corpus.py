"""Import chunks (JSONL, CSV, Parquet) and documents (JSONL)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.batching import upsert_unique
from labeler.models import ImportReport
from labeler.readers import (
    Progress,
    as_int,
    as_text,
    check_file,
    iter_jsonl,
    iter_records,
    require,
)
from labeler.store import Store

BATCH = 20_000


def import_chunks(
    store: Store, path: str | Path, *, chunking: str = "default", progress: Progress | None = None
) -> ImportReport:
    """Chunks with ``id`` and ``text``; optional ``doc_id``, ``title``, ``start``, ``end``
    (character offsets in the document) and ``metadata`` (an object, or its JSON as text).

    One transaction: a bad line anywhere leaves the database untouched.
    """
    path = check_file(path)
    return write_chunks(store, path, iter_records(path, progress), chunking=chunking)


def write_chunks(
    store: Store, path: Path, records: Iterable[tuple[int, dict]], *, chunking: str
) -> ImportReport:
    """The checks and writes of a chunk import, over records from any reader."""
    with store.write():
        store.ensure_chunking(chunking, source=str(path))
        added, updated, unchanged = upsert_unique(
            ((line, _chunk_row(record, path=path, line=line)) for line, record in records),
            lambda rows: store.upsert_chunks(chunking, rows),
            path=path,
            what="chunk",
            batch=BATCH,
        )
    return ImportReport(
        "chunks",
        str(path),
        added=added,
        updated=updated,
        unchanged=unchanged,
        detail=f"chunking {chunking!r}",
    )


def _chunk_row(record: dict, *, path: Path, line: int) -> dict:
    chunk_id = as_text(
        require(record, "id", path=path, line=line), path=path, line=line, field="id"
    )
    text = as_text(
        require(record, "text", path=path, line=line), path=path, line=line, field="text"
    )
    start = as_int(record.get("start"), path=path, line=line, field="start")
    end = as_int(record.get("end"), path=path, line=line, field="end")
    if start is not None and end is not None and not 0 <= start <= end:
        msg = f"expected 0 <= start <= end, got start={start}, end={end}"
        raise LabelerError(msg, path=path, line=line, field="end")
    metadata = record.get("metadata")
    if isinstance(metadata, str) and metadata.strip():
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError:
            msg = "expected a JSON object"
            raise LabelerError(msg, path=path, line=line, field="metadata") from None
    if metadata in ("", None):
        metadata = None
    elif not isinstance(metadata, dict):
        msg = f"expected an object, got {type(metadata).__name__}"
        raise LabelerError(msg, path=path, line=line, field="metadata")
    doc_id = record.get("doc_id")
    title = record.get("title")
    return {
        "id": chunk_id,
        "text": text,
        "doc_id": None
        if doc_id in (None, "")
        else as_text(doc_id, path=path, line=line, field="doc_id"),
        "title": None
        if title in (None, "")
        else as_text(title, path=path, line=line, field="title"),
        "start": start,
        "end": end,
        "metadata": metadata,
    }


def import_documents(
    store: Store, path: str | Path, *, progress: Progress | None = None
) -> ImportReport:
    """Documents with ``id`` and ``text``, optional ``title``: the text around a chunk."""
    path = check_file(path)
    with store.write():
        added, updated, unchanged = upsert_unique(
            (
                (line, _document_row(record, path=path, line=line))
                for line, record in iter_jsonl(path, progress)
            ),
            store.upsert_documents,
            path=path,
            what="document",
            batch=1000,
        )
    return ImportReport("documents", str(path), added=added, updated=updated, unchanged=unchanged)


def _document_row(record: dict, *, path: Path, line: int) -> dict:
    doc_id = as_text(require(record, "id", path=path, line=line), path=path, line=line, field="id")
    text = record.get("text")
    if not isinstance(text, str):
        raise LabelerError("missing, or not text", path=path, line=line, field="text")
    return {"id": doc_id, "text": text, "title": record.get("title"), "source": path.name}
