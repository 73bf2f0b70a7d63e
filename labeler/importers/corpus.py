"""Import chunks (JSON lines, CSV, TSV, Parquet) and documents (JSON lines)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from labeler.errors import LabelerError, cut
from labeler.importers.batching import (
    Counted,
    read_ahead,
    unique_batches,
    upsert_batches,
    upsert_unique,
)
from labeler.importers.registry import IMPORT_KINDS
from labeler.models import ImportReport
from labeler.readers import (
    Progress,
    as_id,
    as_int,
    as_name,
    as_object,
    as_text,
    check_file,
    empty_file,
    iter_jsonl,
    iter_records,
)
from labeler.store import Store
from labeler.store.corpus import StagedChunks, stage_chunks

BATCH = 20_000


def import_chunks(
    store: Store,
    path: str | Path,
    *,
    chunking: str = "default",
    progress: Progress | None = None,
    replace_text: bool = False,
) -> ImportReport:
    """Chunks with ``id`` and ``text``; optional ``doc_id``, ``title``, ``start``, ``end``
    (character offsets in the document) and ``metadata`` (an object, or its JSON as text).

    One transaction: a bad line anywhere, or a file with no chunk, leaves the database
    untouched (a new chunking is created only with its chunks). A chunk already stored keeps
    the optional fields the file does not carry. A file that changes the text of chunks
    carrying labels is refused, unless ``replace_text``: then those labels become stale.
    """
    path = check_file(path)
    kinds = IMPORT_KINDS["chunks"].reads
    return write_chunks(
        store,
        path,
        lambda counted: iter_records(path, counted, accept=kinds),
        chunking=chunking,
        replace_text=replace_text,
        progress=progress,
    )


def write_chunks(
    store: Store,
    path: Path,
    read: Callable[[Counted], Iterable[tuple[int, dict]]],
    *,
    chunking: str,
    replace_text: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """The checks and writes of a chunk import, over the records of any reader (``read(counted)``
    reports the bytes it reads to ``counted``). The chunking's name follows the rule of names
    (``labeler.readers.as_name``): ``--chunking ""`` is refused.

    The file is read, checked and staged a batch ahead in a thread
    (``labeler.importers.batching.read_ahead``), while SQLite indexes the batch before outside
    Python's lock: on two cores the reading costs no time."""
    chunking = as_name(chunking, what="chunking")

    def batches(counted: Counted) -> Iterable[StagedChunks]:
        rows = (
            (line, {**_chunk_row(record, path=path, line=line), "line": line})
            for line, record in read(counted)
        )
        for batch in unique_batches(rows, path=path, what="chunk", batch=BATCH):
            yield stage_chunks(chunking, batch)

    with store.write():
        store.corpus.ensure_chunking(chunking, source=str(path))
        added, updated, unchanged = upsert_batches(
            read_ahead(batches, progress),
            lambda staged: store.corpus.upsert_chunks(chunking, staged, replace_text=replace_text),
        )
        if not added + updated + unchanged:
            raise empty_file(path, "chunks")
        changes = store.corpus.take_text_changes()
        refuse_text_changes([c for c in changes if not c[3]], path=path)
    detail = f"chunking {chunking!r}"
    stale = sum(c[2] for c in changes)
    if stale:
        detail += (
            f"; {stale} label{'' if stale == 1 else 's'} on {len(changes)} chunk"
            f"{'' if len(changes) == 1 else 's'} whose text changed"
            f" {'is' if stale == 1 else 'are'} now stale"
        )
    return ImportReport(
        "chunks",
        str(path),
        added=added,
        updated=updated,
        unchanged=unchanged,
        detail=detail,
    )


def _chunk_row(record: dict, *, path: Path, line: int) -> dict:
    where = {"path": path, "line": line}
    start = as_int(record.get("start"), **where, field="start", minimum=0)
    end = as_int(record.get("end"), **where, field="end", minimum=0)
    if start is not None and end is not None and not start <= end:
        msg = f"expected 0 <= start <= end, got start={start}, end={end}"
        raise LabelerError(msg, **where, field="end")
    metadata = as_object(record.get("metadata"), **where, field="metadata")
    doc_id = record.get("doc_id")
    row = {
        "id": as_id(record.get("id"), **where, field="id"),
        "text": as_text(record.get("text"), **where, field="text"),
        "doc_id": None if doc_id in (None, "") else as_id(doc_id, **where, field="doc_id"),
        "title": as_text(record.get("title"), **where, field="title", optional=True),
        "start": start,
        "end": end,
        "metadata": metadata or None,
    }
    # A field the file does not carry keeps its stored value (an empty one clears it).
    return {key: value for key, value in row.items() if key in ("id", "text") or key in record}


SHOWN_CHANGES = 20


def refuse_text_changes(changes: list[tuple[str, int | None, int, bool]], *, path: Path) -> None:
    """Refuse a file that would change, in silence, the text labels were given for."""
    if not changes:
        return
    listed = ", ".join(
        f"{cut(chunk_id)} ({labels} label{'' if labels == 1 else 's'})"
        for chunk_id, _, labels, _ in changes[:SHOWN_CHANGES]
    )
    if len(changes) > SHOWN_CHANGES:
        listed += f" and {len(changes) - SHOWN_CHANGES} more"
    msg = (
        f"changes the text of {len(changes)} chunk{'' if len(changes) == 1 else 's'} that"
        f" carr{'ies' if len(changes) == 1 else 'y'} labels given for the old text: {listed}."
        " Import the new text as a new chunking (--chunking NEW) and carry the labels over with"
        " `labeler remap`, or pass --replace-text to replace it and mark those labels stale"
        " (left out of exports until a reviewer confirms or changes them)"
    )
    raise LabelerError(msg, path=path, line=changes[0][1], field="text")


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
            store.corpus.upsert_documents,
            path=path,
            what="document",
            batch=1000,
        )
        if not added + updated + unchanged:
            raise empty_file(path, "documents")
    return ImportReport("documents", str(path), added=added, updated=updated, unchanged=unchanged)


def _document_row(record: dict, *, path: Path, line: int) -> dict:
    where = {"path": path, "line": line}
    return {
        "id": as_id(record.get("id"), **where, field="id"),
        "text": as_text(record.get("text"), **where, field="text", blank=True),
        "title": as_text(record.get("title"), **where, field="title", optional=True),
        "source": path.name,
    }
