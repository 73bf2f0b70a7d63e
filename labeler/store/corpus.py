"""Documents, chunkings and chunks (the full-text index follows them; searching it is
``labeler.store.search``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from labeler.config import DEFAULT_CHUNKING
from labeler.errors import NotFoundError
from labeler.models import Chunk
from labeler.store.base import Database, Facet, now, text_hash
from labeler.store.labels import Labels
from labeler.store.search import fts_query, fts_terms

CHUNK_COLUMNS = ("id", "doc_id", "title", "text", "start", "end", "metadata")
OPTIONAL_CHUNK_FIELDS = ("doc_id", "title", "start", "end", "metadata")
# One bit per optional field: which ones a staged row holds.
_FIELD_BITS = tuple((1 << i, name) for i, name in enumerate(OPTIONAL_CHUNK_FIELDS))
_ALL_FIELDS = (1 << len(OPTIONAL_CHUNK_FIELDS)) - 1
IMPORT_CACHE_KIB = -1_048_576  # SQLite's cache_size: negative is KiB


@dataclass(frozen=True, slots=True)
class StagedChunks:
    """A batch of chunk rows as ``Corpus.upsert_chunks`` stages them (``stage_chunks``), made
    apart from the database: an importer's reading thread prepares a batch while the one
    before is written."""

    chunking: str
    rows: list[tuple]

    def __len__(self) -> int:
        return len(self.rows)

    def without(self, chunk_ids: Iterable[str]) -> StagedChunks:
        """The batch less the rows of ``chunk_ids``."""
        left = set(chunk_ids)
        return StagedChunks(self.chunking, [r for r in self.rows if r[1] not in left])


def stage_chunks(chunking: str, rows: Iterable[dict]) -> StagedChunks:
    """The rows ``Corpus.upsert_chunks`` takes (see there) as the tuples it stages: the
    metadata as JSON, the text's hash, and which optional fields each row holds."""
    staged = []
    append = staged.append
    for r in rows:
        metadata = r.get("metadata")
        if metadata is not None and not isinstance(metadata, str):
            metadata = json.dumps(metadata, ensure_ascii=False, sort_keys=True)
        present = 0
        for bit, name in _FIELD_BITS:
            if name in r:
                present |= bit
        text = r["text"]
        append(
            (
                chunking,
                r["id"],
                r.get("doc_id"),
                r.get("title"),
                text,
                r.get("start"),
                r.get("end"),
                metadata,
                text_hash(text),
                r.get("line"),
                present,
            )
        )
    return StagedChunks(chunking, staged)


def _row_to_chunk(row: dict) -> Chunk:
    return Chunk(
        id=row["id"],
        chunking=row["chunking"],
        text=row["text"],
        doc_id=row["doc_id"],
        title=row["title"],
        start=row["start"],
        end=row["end"],
    )


class Corpus(Facet):
    """Documents, chunkings and chunks. New text for a labelled chunk makes its labels stale in
    the same transaction, so the facet holds the labels facet for that one write."""

    __slots__ = ("_labels",)

    def __init__(self, db: Database, labels: Labels) -> None:
        super().__init__(db)
        self._labels = labels

    # chunkings -------------------------------------------------------------------------------

    def ensure_chunking(self, name: str, *, source: str | None = None) -> bool:
        """Create the chunking if new; the first one becomes the current chunking."""
        with self.write() as conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO chunkings (name, created_at, source) VALUES (?, ?, ?)",
                (name, now(), source),
            )
            if self.get_setting("current_chunking") is None:
                self.set_setting("current_chunking", name)
            return cursor.rowcount > 0

    def chunkings(self) -> list[dict]:
        return self.query(
            "SELECT c.name, c.created_at, c.source, "
            "(SELECT count(*) FROM chunks WHERE chunking = c.name) AS chunks "
            "FROM chunkings c ORDER BY c.created_at"
        )

    def current_chunking(self) -> str:
        return self.get_setting("current_chunking") or DEFAULT_CHUNKING

    def set_current_chunking(self, name: str) -> None:
        if self.scalar("SELECT 1 FROM chunkings WHERE name = ?", (name,)) is None:
            msg = f"no chunking named {name!r}; known: {[c['name'] for c in self.chunkings()]}"
            raise NotFoundError(msg)
        self.set_setting("current_chunking", name)

    # documents -------------------------------------------------------------------------------

    def upsert_documents(self, rows: Iterable[dict]) -> tuple[int, int]:
        """Insert new documents and update changed ones; returns (added, updated)."""
        stamp = now()
        batch = [
            (r["id"], r.get("title"), r.get("source"), r["text"], text_hash(r["text"]), stamp)
            for r in rows
        ]
        with self.write() as conn:
            added = conn.executemany(
                "INSERT OR IGNORE INTO documents (id, title, source, text, content_hash,"
                " imported_at) VALUES (?, ?, ?, ?, ?, ?)",
                batch,
            ).rowcount
            updated = conn.executemany(
                "UPDATE documents SET title = ?2, source = ?3, text = ?4, content_hash = ?5,"
                " imported_at = ?6 WHERE id = ?1 AND (content_hash IS NOT ?5 OR title IS NOT ?2)",
                batch,
            ).rowcount
        return added, updated

    def count_documents(self) -> int:
        return int(self.scalar("SELECT count(*) FROM documents"))

    def get_document(self, doc_id: str) -> dict | None:
        rows = self.query("SELECT id, title, source, text FROM documents WHERE id = ?", (doc_id,))
        return rows[0] if rows else None

    # chunks ----------------------------------------------------------------------------------

    def upsert_chunks(
        self,
        chunking: str,
        rows: Sequence[dict] | StagedChunks,
        *,
        replace_text: bool = False,
    ) -> tuple[int, int]:
        """Insert new chunks and update changed ones (text, title, offsets, metadata).

        A row holds ``id`` and ``text`` and any of OPTIONAL_CHUNK_FIELDS; a field the row does
        not hold keeps its stored value (``None`` clears it). An optional ``line`` is the row's
        line in its file, for error messages. ``rows`` may come prepared by ``stage_chunks``.

        A chunk whose text changes while labels hang on it is not changed in silence: without
        ``replace_text`` it is left as it is and noted for ``take_text_changes`` (the importer
        then refuses the file); with it, the text is replaced and its labels (and
        adjudications) become stale, counting as ungraded until a reviewer confirms them.

        Returns (added, updated); the rest were already there unchanged. The full-text index
        follows through triggers, so it can never disagree with the table.
        """
        staged = rows if isinstance(rows, StagedChunks) else stage_chunks(chunking, rows)
        if staged.chunking != chunking:
            msg = f"rows staged for chunking {staged.chunking!r}, not {chunking!r}"
            raise ValueError(msg)
        batch = staged.rows
        with self.write() as conn:
            # A big page cache keeps the indexes of chunks and the FTS segments being merged in
            # memory: at 1M chunks, 1 GiB indexes 12 % faster than 256 MiB (pages are taken
            # only as the database grows into them).
            conn.execute(f"PRAGMA cache_size = {IMPORT_CACHE_KIB}")
            # Dropped and made anew: faster than emptying it row by row.
            conn.execute("DROP TABLE IF EXISTS temp.staged_chunks")
            conn.execute(
                "CREATE TEMP TABLE staged_chunks (chunking, id, doc_id, title, text,"
                ' start, "end", metadata, text_hash, line, present)'
            )
            conn.executemany(
                "INSERT INTO temp.staged_chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", batch
            )
            # One statement for the whole batch: the FTS trigger still fires for every row (so
            # the index cannot disagree with the table), but FTS5 flushes its pending terms once
            # per statement instead of once per row: three times faster on a large import.
            added = conn.execute(
                'INSERT OR IGNORE INTO chunks (chunking, id, doc_id, title, text, start, "end",'
                ' metadata, text_hash) SELECT chunking, id, doc_id, title, text, start, "end",'
                " metadata, text_hash FROM temp.staged_chunks"
            ).rowcount
            updated = 0
            if added < len(batch):
                self._keep_omitted_fields(conn)
                self._labelled_text_changes(conn, chunking, replace_text=replace_text)
                updated = conn.execute(
                    "UPDATE chunks SET doc_id = s.doc_id, title = s.title, text = s.text,"
                    ' start = s.start, "end" = s."end", metadata = s.metadata,'
                    " text_hash = s.text_hash FROM temp.staged_chunks s"
                    " WHERE chunks.chunking = s.chunking AND chunks.id = s.id"
                    " AND (chunks.text_hash IS NOT s.text_hash OR chunks.doc_id IS NOT s.doc_id"
                    " OR chunks.title IS NOT s.title OR chunks.start IS NOT s.start"
                    ' OR chunks."end" IS NOT s."end" OR chunks.metadata IS NOT s.metadata)'
                ).rowcount
            if added or updated:
                self.set_setting(f"chunks_revision:{chunking}", now())
        return added, updated

    @staticmethod
    def _keep_omitted_fields(conn: sqlite3.Connection) -> None:
        """Staged rows of existing chunks take the stored value of every field they omit."""
        assignments = ", ".join(
            f'"{name}" = CASE WHEN s.present & {bit} THEN s."{name}" ELSE c."{name}" END'
            for bit, name in _FIELD_BITS
        )
        conn.execute(
            f"UPDATE temp.staged_chunks AS s SET {assignments} FROM chunks c"
            f" WHERE c.chunking = s.chunking AND c.id = s.id AND s.present != {_ALL_FIELDS}"
        )

    def _labelled_text_changes(
        self, conn: sqlite3.Connection, chunking: str, *, replace_text: bool
    ) -> None:
        """Staged chunks whose new text would change the meaning of labels, noted in
        temp.text_changes: refused (left out of the update) or, with ``replace_text``, their
        labels made stale in the same transaction, with history."""
        conn.execute(
            "CREATE TEMP TABLE IF NOT EXISTS text_changes"
            " (chunk_id TEXT PRIMARY KEY, line INTEGER, labels INTEGER, replaced INTEGER)"
        )
        changed = conn.execute(
            "SELECT s.id, s.line, (SELECT count(*) FROM labels l WHERE l.chunking = s.chunking"
            " AND l.chunk_id = s.id) AS labels"
            " FROM temp.staged_chunks s JOIN chunks c ON c.chunking = s.chunking AND c.id = s.id"
            " WHERE c.text_hash != s.text_hash AND (labels > 0 OR EXISTS (SELECT 1 FROM"
            " adjudications a WHERE a.chunking = s.chunking AND a.chunk_id = s.id))"
        ).fetchall()
        if not changed:
            return
        conn.executemany(
            "INSERT OR REPLACE INTO temp.text_changes (chunk_id, line, labels, replaced)"
            " VALUES (?, ?, ?, ?)",
            [(*row, int(replace_text)) for row in changed],
        )
        if replace_text:
            self._labels.make_stale(chunking, [c[0] for c in changed])
        else:
            conn.executemany(
                "DELETE FROM temp.staged_chunks WHERE id = ?", [(c[0],) for c in changed]
            )

    def take_text_changes(self) -> list[tuple[str, int | None, int, bool]]:
        """(chunk id, line, labels, replaced) of every labelled chunk whose text
        ``upsert_chunks`` was given anew in this transaction, in file order: refused
        (``replaced`` False) or replaced with its labels made stale. Forgets them."""
        exists = "SELECT count(*) FROM temp.sqlite_master WHERE name = 'text_changes'"
        if not self.scalar(exists):
            return []
        rows = [
            (chunk_id, line, labels, bool(replaced))
            for chunk_id, line, labels, replaced in self.conn.execute(
                "SELECT chunk_id, line, labels, replaced FROM temp.text_changes"
                " ORDER BY line, chunk_id"
            )
        ]
        self.conn.execute("DELETE FROM temp.text_changes")
        return rows

    def chunks_revision(self, chunking: str) -> str:
        """Changes whenever the chunking's chunks change, so cached searches know to rerun."""
        return self.get_setting(f"chunks_revision:{chunking}", "")

    def get_chunk(self, chunking: str, chunk_id: str) -> Chunk | None:
        found = self.get_chunks(chunking, [chunk_id])
        return found.get(chunk_id)

    def get_chunks(self, chunking: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        if not chunk_ids:
            return {}
        rows = self.query(
            'SELECT id, chunking, doc_id, title, text, start, "end" FROM chunks'
            " WHERE chunking = ? AND id IN (SELECT value FROM json_each(?))",
            (chunking, json.dumps(list(chunk_ids))),
        )
        return {row["id"]: _row_to_chunk(row) for row in rows}

    def count_chunks(self, chunking: str | None = None) -> int:
        if chunking is None:
            return int(self.scalar("SELECT count(*) FROM chunks"))
        return int(self.scalar("SELECT count(*) FROM chunks WHERE chunking = ?", (chunking,)))

    def neighbours(self, chunk: Chunk, *, before: int = 1, after: int = 1) -> list[Chunk]:
        """The chunks around ``chunk`` in its document, in document order (itself included)."""
        if chunk.doc_id is None:
            return [chunk]
        rows = self.query(
            'SELECT id, chunking, doc_id, title, text, start, "end" FROM chunks'
            " WHERE chunking = ? AND doc_id = ? ORDER BY start, pk",
            (chunk.chunking, chunk.doc_id),
        )
        ids = [r["id"] for r in rows]
        if chunk.id not in ids:
            return [chunk]
        at = ids.index(chunk.id)
        return [_row_to_chunk(r) for r in rows[max(0, at - before) : at + after + 1]]

    # lookups for importers of other tools' files -------------------------------------------

    def chunk_texts(self, chunking: str, chunk_ids: Iterable[str]) -> list[dict]:
        """id, doc_id, title, text of the named chunks (those the chunking holds)."""
        return self.query(
            "SELECT id, doc_id, title, text FROM chunks"
            " WHERE chunking = ? AND id IN (SELECT value FROM json_each(?))",
            (chunking, json.dumps(list(chunk_ids))),
        )

    def chunk_ids_by_text_hash(self, chunking: str, hashes: Iterable[str]) -> dict[str, list[str]]:
        """{text hash: [chunk ids, by id]} for chunks whose exact text has one of the hashes."""
        found: dict[str, list[str]] = {}
        # No ORDER BY here: it would lead SQLite to walk the (chunking, id) index over the whole
        # chunking instead of looking the hashes up in chunks_by_text_hash.
        for digest, chunk_id in self.conn.execute(
            "SELECT text_hash, id FROM chunks INDEXED BY chunks_by_text_hash"
            " WHERE chunking = ? AND text_hash IN (SELECT value FROM json_each(?))",
            (chunking, json.dumps(list(hashes))),
        ):
            found.setdefault(digest, []).append(chunk_id)
        return {digest: sorted(ids) for digest, ids in found.items()}

    def iter_chunk_texts(self, chunking: str) -> Iterator[tuple[str, str]]:
        """(id, text) of every chunk in the chunking, by id, streamed."""
        yield from self.conn.execute(
            "SELECT id, text FROM chunks WHERE chunking = ? ORDER BY id", (chunking,)
        )

    def iter_chunk_passages(self, chunking: str) -> Iterator[tuple[str, str | None, str]]:
        """(id, title, text) of every chunk in the chunking, by id, streamed: what an embedding
        model reads of a chunk (``labeler.dense``)."""
        yield from self.conn.execute(
            "SELECT id, title, text FROM chunks WHERE chunking = ? ORDER BY id", (chunking,)
        )

    def chunking_exists(self, chunking: str) -> bool:
        return self.scalar("SELECT 1 FROM chunkings WHERE name = ?", (chunking,)) is not None


__all__ = ["Corpus", "StagedChunks", "fts_query", "fts_terms", "stage_chunks"]
