"""What a remap reads (old labels with their passages, the new chunking by document) and writes
(mappings, carried labels, marks and adjudications, review decisions).

Every write here runs inside the caller's transaction (``Store.write()``), so a remap is applied
whole or not at all. Old labels are only ever read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from labeler.store.base import Facet
from labeler.store.labels import LABEL_KEY, append_event, label_row

MAPPING_COLUMNS = (
    "from_chunking",
    "to_chunking",
    "kind",
    "question_id",
    "reviewer",
    "old_chunk_id",
    "new_chunk_id",
    "old_grade",
    "grade",
    "note",
    "method",
    "coverage",
    "containment",
    "similarity",
    "decision",
    "reason",
    "applied_at",
    "review",
    "review_grade",
    "reviewed_by",
    "reviewed_at",
)
KEY_COLUMNS = MAPPING_COLUMNS[:7]


class MappingRow(NamedTuple):
    """One row of ``remap_mappings``, in column order (a tuple: a remap holds many)."""

    from_chunking: str
    to_chunking: str
    kind: str
    question_id: str
    reviewer: str
    old_chunk_id: str
    new_chunk_id: str
    old_grade: int
    grade: int
    note: str | None
    method: str | None
    coverage: float
    containment: float
    similarity: float
    decision: str
    reason: str
    applied_at: str | None
    review: str | None
    review_grade: int | None
    reviewed_by: str | None
    reviewed_at: str | None

    @property
    def key(self) -> tuple:
        return self[:7]


BATCH = 500


def _batches(items: Sequence, size: int = BATCH) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _write_logged(
    conn: sqlite3.Connection,
    sql: str,
    changes: Iterable[tuple[Sequence, tuple, dict]],
    *,
    chunking: str,
    action: str,
    at: str,
    note: str | None = None,
) -> int:
    """Run ``sql`` once per change and append its history row only where it changed a row, so
    the history records what happened and no more. A change is (the statement's parameters,
    (question, chunk, reviewer) of the event, the event's own old_grade / new_grade / note).
    Returns how many rows changed."""
    done = 0
    for params, (question_id, chunk_id, reviewer), event in changes:
        if conn.execute(sql, params).rowcount:
            done += 1
            fields = {"note": note, **event}
            append_event(conn, question_id, chunking, chunk_id, reviewer, action, at=at, **fields)
    return done


class Remaps(Facet):
    __slots__ = ()

    # what a remap reads ---------------------------------------------------------------------

    def remap_labels(self, chunking: str) -> Iterator[tuple]:
        """(question, chunk, reviewer, grade, note, passage text, doc id, start, end) of every
        label in the chunking, by document then position: the passage is the text the label
        was given for (the chunk's text when an old label kept none)."""
        cursor = self.conn.execute(
            "SELECT l.question_id, l.chunk_id, l.reviewer, l.grade, l.note,"
            " coalesce(l.passage_text, c.text), coalesce(l.doc_id, c.doc_id),"
            " CASE WHEN l.passage_text IS NULL THEN c.start ELSE l.start END,"
            ' CASE WHEN l.passage_text IS NULL THEN c."end" ELSE l."end" END'
            " FROM labels l LEFT JOIN chunks c ON c.chunking = l.chunking AND c.id = l.chunk_id"
            " WHERE l.chunking = ?"
            " ORDER BY coalesce(l.doc_id, c.doc_id), l.start, l.chunk_id, l.question_id,"
            " l.reviewer",
            (chunking,),
        )
        while rows := cursor.fetchmany(20_000):
            yield from rows

    def remap_adjudications(self, chunking: str) -> list[tuple]:
        """(question, chunk, grade, adjudicator, note, chunk text, doc id, start, end) of every
        adjudication in the chunking whose chunk the chunking still holds."""
        return self.conn.execute(
            "SELECT a.question_id, a.chunk_id, a.grade, a.reviewer, a.note, c.text, c.doc_id,"
            ' c.start, c."end" FROM adjudications a'
            " JOIN chunks c ON c.chunking = a.chunking AND c.id = a.chunk_id"
            " WHERE a.chunking = ? ORDER BY a.question_id, a.chunk_id",
            (chunking,),
        ).fetchall()

    def chunking_document_ids(self, chunking: str) -> set[str]:
        return {
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT doc_id FROM chunks WHERE chunking = ? AND doc_id IS NOT NULL",
                (chunking,),
            )
        }

    def document_chunks(self, chunking: str, doc_ids: Iterable[str]) -> list[dict]:
        """id, doc_id, text, start, end, text_hash of the chunking's chunks of these documents,
        in document order."""
        rows: list[dict] = []
        for batch in _batches(list(doc_ids)):
            rows += self.query(
                'SELECT id, doc_id, text, start, "end", text_hash FROM chunks'
                " WHERE chunking = ? AND doc_id IN (SELECT value FROM json_each(?))"
                " ORDER BY doc_id, start, pk",
                (chunking, json.dumps(list(batch))),
            )
        return rows

    def chunks_without_document(self, chunking: str) -> list[dict]:
        return self.query(
            'SELECT id, doc_id, text, start, "end", text_hash FROM chunks'
            " WHERE chunking = ? AND doc_id IS NULL ORDER BY pk",
            (chunking,),
        )

    def document_texts(self, doc_ids: Iterable[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for batch in _batches(list(doc_ids)):
            found.update(
                self.conn.execute(
                    "SELECT id, text FROM documents WHERE text IS NOT NULL"
                    " AND id IN (SELECT value FROM json_each(?))",
                    (json.dumps(list(batch)),),
                ).fetchall()
            )
        return found

    def chunks_with_hashes(
        self, chunking: str, hashes: Iterable[str]
    ) -> list[tuple[str, str, str]]:
        """(text hash, chunk id, doc id) of the chunks whose exact text has one of the hashes."""
        found: list[tuple[str, str, str]] = []
        for batch in _batches(sorted(set(hashes))):
            found += self.conn.execute(
                "SELECT text_hash, id, doc_id FROM chunks INDEXED BY chunks_by_text_hash"
                " WHERE chunking = ? AND text_hash IN (SELECT value FROM json_each(?))",
                (chunking, json.dumps(list(batch))),
            ).fetchall()
        return found

    def first_chunk_with_unknown_document(self, chunking: str) -> tuple[str, str] | None:
        """(chunk id, doc id) of a chunk naming a document the database does not hold."""
        row = self.conn.execute(
            "SELECT c.id, c.doc_id FROM chunks c LEFT JOIN documents d ON d.id = c.doc_id"
            " WHERE c.chunking = ? AND c.doc_id IS NOT NULL AND d.id IS NULL"
            " ORDER BY c.pk LIMIT 1",
            (chunking,),
        ).fetchone()
        return None if row is None else (row[0], row[1])

    def label_grades(self, chunking: str) -> dict[tuple[str, str, str], tuple[int, str]]:
        """{(question, chunk, reviewer): (grade, updated_at)} of the chunking's labels."""
        return {
            (q, c, r): (g, at)
            for q, c, r, g, at in self.conn.execute(
                "SELECT question_id, chunk_id, reviewer, grade, updated_at FROM labels"
                " WHERE chunking = ?",
                (chunking,),
            )
        }

    def label_grades_of(
        self, question_id: str, chunking: str, chunk_id: str, reviewer: str
    ) -> tuple[int, str] | None:
        """(grade, updated_at) of one label, or None."""
        row = label_row(self.conn, "grade, updated_at", question_id, chunking, chunk_id, reviewer)
        return None if row is None else (row[0], row[1])

    def adjudication_grades(self, chunking: str) -> dict[tuple[str, str], tuple[int, str]]:
        """{(question, chunk): (grade, at)} of the chunking's adjudications."""
        return {
            (q, c): (g, at)
            for q, c, g, at in self.conn.execute(
                "SELECT question_id, chunk_id, grade, at FROM adjudications WHERE chunking = ?",
                (chunking,),
            )
        }

    def unanswerable_state(self, chunking: str) -> tuple[set, set]:
        """(marked, withdrawn): the (question, reviewer) pairs marked unanswerable in the
        chunking, and those whose mark was set and then removed there."""
        marked = {
            (q, r)
            for q, r in self.conn.execute(
                "SELECT question_id, reviewer FROM question_marks"
                " WHERE chunking = ? AND unanswerable = 1",
                (chunking,),
            )
        }
        withdrawn = {
            (q, r)
            for q, r in self.conn.execute(
                "SELECT DISTINCT question_id, reviewer FROM label_events"
                " WHERE chunking = ? AND action = 'answerable'",
                (chunking,),
            )
        }
        return marked, withdrawn

    # the mappings -------------------------------------------------------------------------------

    def remap_mappings(self, from_chunking: str, to_chunking: str) -> list[MappingRow]:
        cursor = self.conn.execute(
            f"SELECT {', '.join(MAPPING_COLUMNS)} FROM remap_mappings"
            " WHERE from_chunking = ? AND to_chunking = ?"
            " ORDER BY question_id, kind, reviewer, old_chunk_id, new_chunk_id",
            (from_chunking, to_chunking),
        )
        return [MappingRow._make(row) for row in cursor]

    def proposal_mappings(
        self, from_chunking: str, to_chunking: str, question_id: str, new_chunk_id: str
    ) -> list[MappingRow]:
        """The queued label mappings of one proposal (a question and a new chunk)."""
        cursor = self.conn.execute(
            f"SELECT {', '.join(MAPPING_COLUMNS)} FROM remap_mappings"
            " WHERE from_chunking = ? AND to_chunking = ? AND kind = 'label'"
            " AND decision = 'queued' AND question_id = ? AND new_chunk_id = ?",
            (from_chunking, to_chunking, question_id, new_chunk_id),
        )
        return [MappingRow._make(row) for row in cursor]

    def save_mappings(self, rows: Sequence[MappingRow], deleted: Sequence[tuple]) -> None:
        """Upsert mapping rows (every column) and delete the rows with the given keys."""
        with self.write() as conn:
            if deleted:
                conn.executemany(
                    "DELETE FROM remap_mappings WHERE "
                    + " AND ".join(f"{c} = ?" for c in KEY_COLUMNS),
                    deleted,
                )
            if rows:
                columns = ", ".join(MAPPING_COLUMNS)
                marks = ", ".join("?" for _ in MAPPING_COLUMNS)
                updates = ", ".join(
                    f"{c} = excluded.{c}" for c in MAPPING_COLUMNS if c not in KEY_COLUMNS
                )
                conn.executemany(
                    f"INSERT INTO remap_mappings ({columns}) VALUES ({marks})"
                    f" ON CONFLICT ({', '.join(KEY_COLUMNS)}) DO UPDATE SET {updates}",
                    rows,
                )

    def record(
        self, from_chunking: str, to_chunking: str, *, min_coverage: float, counts: dict, at: str
    ) -> bool:
        """Remember the remap and its counts; writes only when something differs."""
        text = json.dumps(counts, sort_keys=True)
        with self.write() as conn:
            old = conn.execute(
                "SELECT min_coverage, counts FROM remaps WHERE from_chunking = ?"
                " AND to_chunking = ?",
                (from_chunking, to_chunking),
            ).fetchone()
            if old is not None and tuple(old) == (min_coverage, text):
                return False
            conn.execute(
                "INSERT INTO remaps (from_chunking, to_chunking, min_coverage, counts,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (from_chunking, to_chunking) DO UPDATE SET"
                " min_coverage = excluded.min_coverage, counts = excluded.counts,"
                " updated_at = excluded.updated_at",
                (from_chunking, to_chunking, min_coverage, text, at, at),
            )
        return True

    def all(self) -> list[dict]:
        """Every remap, latest first, with its review queue: proposals (a question and a new
        chunk that queued label mappings point at) and how many of them are decided."""
        rows = self.query(
            "SELECT r.from_chunking, r.to_chunking, r.min_coverage, r.counts, r.updated_at,"
            " count(DISTINCT m.question_id || char(0) || m.new_chunk_id) AS proposals,"
            " count(DISTINCT CASE WHEN m.review IS NOT NULL"
            "  THEN m.question_id || char(0) || m.new_chunk_id END) AS decided"
            " FROM remaps r LEFT JOIN remap_mappings m ON m.from_chunking = r.from_chunking"
            "  AND m.to_chunking = r.to_chunking AND m.kind = 'label' AND m.decision = 'queued'"
            " GROUP BY r.from_chunking, r.to_chunking"
            " ORDER BY r.updated_at DESC, r.from_chunking, r.to_chunking"
        )
        for row in rows:
            row["counts"] = json.loads(row["counts"])
        return rows

    def remap_proposal_keys(
        self, from_chunking: str, to_chunking: str, *, reviewer: str | None = None
    ) -> list[tuple]:
        """(question, new chunk, proposed grade, decided) of every proposal of a remap: the
        queued label mappings grouped by question and new chunk; by question, then grade
        (highest first), then the new chunk's place in its document. Light: no texts."""
        return self.conn.execute(
            "SELECT m.question_id, m.new_chunk_id, max(m.grade) AS grade,"
            " max(m.review IS NOT NULL) AS decided FROM remap_mappings m"
            " LEFT JOIN chunks n ON n.chunking = m.to_chunking AND n.id = m.new_chunk_id"
            " WHERE m.from_chunking = ? AND m.to_chunking = ? AND m.kind = 'label'"
            " AND m.decision = 'queued' AND (? IS NULL OR m.reviewer = ?)"
            " GROUP BY m.question_id, m.new_chunk_id"
            " ORDER BY m.question_id, grade DESC, n.doc_id, n.start, m.new_chunk_id",
            (from_chunking, to_chunking, reviewer, reviewer),
        ).fetchall()

    def remap_queue_rows(
        self,
        from_chunking: str,
        to_chunking: str,
        *,
        question_id: str | None = None,
        new_chunk_id: str | None = None,
    ) -> list[dict]:
        """The queued label mappings of a remap (of one proposal, when question and new chunk
        are given), with the texts the review shows and where else each old label went."""
        one = question_id is not None and new_chunk_id is not None
        return self.query(
            "SELECT m.question_id, m.reviewer, m.old_chunk_id, m.new_chunk_id, m.old_grade,"
            " m.grade, m.note, m.method, m.coverage, m.containment, m.similarity, m.reason,"
            " m.review, m.review_grade, m.reviewed_by, m.reviewed_at,"
            " coalesce(l.passage_text, o.text) AS old_text, n.text AS new_text,"
            " n.doc_id AS new_doc_id, n.title AS new_title, n.start AS new_start,"
            " q.text AS question,"
            " (SELECT group_concat(e.new_chunk_id, char(10)) FROM remap_mappings e"
            "  WHERE e.from_chunking = m.from_chunking AND e.to_chunking = m.to_chunking"
            "  AND e.kind = 'label' AND e.question_id = m.question_id"
            "  AND e.reviewer = m.reviewer AND e.old_chunk_id = m.old_chunk_id"
            "  AND e.new_chunk_id != m.new_chunk_id AND e.decision = 'queued') AS elsewhere"
            " FROM remap_mappings m"
            " LEFT JOIN labels l ON l.question_id = m.question_id"
            "  AND l.chunking = m.from_chunking AND l.chunk_id = m.old_chunk_id"
            "  AND l.reviewer = m.reviewer"
            " LEFT JOIN chunks o ON o.chunking = m.from_chunking AND o.id = m.old_chunk_id"
            " LEFT JOIN chunks n ON n.chunking = m.to_chunking AND n.id = m.new_chunk_id"
            " LEFT JOIN questions q ON q.id = m.question_id"
            " WHERE m.from_chunking = ? AND m.to_chunking = ? AND m.kind = 'label'"
            " AND m.decision = 'queued'"
            # Spelled out (not "? IS NULL OR ..."), so one proposal is an index lookup.
            + (" AND m.question_id = ? AND m.new_chunk_id = ?" if one else "")
            + " ORDER BY m.question_id, m.new_chunk_id, m.old_chunk_id, m.reviewer",
            (from_chunking, to_chunking, *((question_id, new_chunk_id) if one else ())),
        )

    def label_provenance(
        self, question_id: str, chunking: str, chunk_id: str, reviewer: str
    ) -> list[dict]:
        """The mappings a label in ``chunking`` came from: carried by a remap under the
        original reviewer's name, or decided in the review queue by ``reviewer``."""
        return self.query(
            f"SELECT {', '.join(MAPPING_COLUMNS)} FROM remap_mappings"
            " WHERE to_chunking = ? AND question_id = ? AND new_chunk_id = ? AND kind = 'label'"
            " AND ((decision = 'applied' AND reviewer = ?)"
            "      OR (review IN ('accepted', 'changed') AND reviewed_by = ?))"
            " ORDER BY from_chunking, old_chunk_id, reviewer",
            (chunking, question_id, chunk_id, reviewer, reviewer),
        )

    def set_mapping_review(
        self,
        keys: Sequence[tuple],
        *,
        review: str | None,
        grade: int | None,
        reviewer: str | None,
        at: str | None,
    ) -> None:
        with self.write() as conn:
            conn.executemany(
                "UPDATE remap_mappings SET review = ?, review_grade = ?, reviewed_by = ?,"
                " reviewed_at = ? WHERE " + " AND ".join(f"{c} = ?" for c in KEY_COLUMNS),
                [(review, grade, reviewer, at, *key) for key in keys],
            )

    # carrying labels, marks and adjudications ------------------------------------------------

    def add_remapped_labels(self, chunking: str, rows: Sequence[tuple], *, at: str) -> int:
        """Insert (question, chunk, reviewer, grade, note, provenance) labels where the
        chunking has none yet, each with its history row ``remap``; returns how many."""
        with self.write() as conn:
            conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS staged_remap (question_id TEXT, chunk_id TEXT,"
                " reviewer TEXT, grade INTEGER, note TEXT, provenance TEXT)"
            )
            conn.execute("DELETE FROM temp.staged_remap")
            conn.executemany("INSERT INTO temp.staged_remap VALUES (?, ?, ?, ?, ?, ?)", rows)
            params = {"chunking": chunking, "at": at}
            missing = (
                " FROM temp.staged_remap s JOIN chunks c ON c.chunking = :chunking"
                " AND c.id = s.chunk_id WHERE NOT EXISTS (SELECT 1 FROM labels l"
                " WHERE l.question_id = s.question_id AND l.chunking = :chunking"
                " AND l.chunk_id = s.chunk_id AND l.reviewer = s.reviewer)"
            )
            conn.execute(
                "INSERT INTO label_events (question_id, chunking, chunk_id, reviewer, action,"
                " old_grade, new_grade, note, at) SELECT s.question_id, :chunking, s.chunk_id,"
                " s.reviewer, 'remap', NULL, s.grade, s.provenance, :at" + missing,
                params,
            )
            added = conn.execute(
                "INSERT INTO labels (question_id, chunking, chunk_id, reviewer, grade, note,"
                ' passage_text, doc_id, start, "end", created_at, updated_at)'
                " SELECT s.question_id, :chunking, s.chunk_id, s.reviewer, s.grade, s.note,"
                ' c.text, c.doc_id, c.start, c."end", :at, :at' + missing,
                params,
            ).rowcount
            conn.execute("DELETE FROM temp.staged_remap")
        return added

    def regrade_remapped(self, chunking: str, rows: Sequence[tuple], *, at: str, table: str) -> int:
        """Regrade labels (``table`` labels) or adjudications a remap wrote, when their old
        label was regraded since: rows of (question, chunk, reviewer or adjudicator, old grade,
        the stamp the remap gave it, new grade, provenance). A row someone changed since (its
        grade or stamp differ) is left alone. History row ``remap``."""
        if table not in ("labels", "adjudications"):
            msg = f"unknown table {table!r}"
            raise ValueError(msg)
        stamp, owner = ("updated_at", "reviewer = ? AND ") if table == "labels" else ("at", "")
        with self.write() as conn:
            return _write_logged(
                conn,
                f"UPDATE {table} SET grade = ?, {stamp} = ? WHERE question_id = ?"
                f" AND chunking = ? AND chunk_id = ? AND {owner}grade = ? AND {stamp} = ?",
                (
                    (
                        [new, at, q, chunking, c, *([r] if owner else []), old, applied_at],
                        (q, c, r),
                        {"old_grade": old, "new_grade": new, "note": note},
                    )
                    for q, c, r, old, applied_at, new, note in rows
                ),
                chunking=chunking,
                action="remap",
                at=at,
            )

    def withdraw_remapped_labels(self, chunking: str, rows: Sequence[tuple], *, at: str) -> int:
        """Remove labels a remap wrote that nobody changed since: (question, chunk, reviewer,
        grade, applied_at) must all still match. History row ``unremap``."""
        note = "a later remap no longer carries this label"
        with self.write() as conn:
            return _write_logged(
                conn,
                f"DELETE FROM labels WHERE {LABEL_KEY} AND grade = ? AND updated_at = ?",
                (
                    ((q, chunking, c, r, grade, applied_at), (q, c, r), {"old_grade": grade})
                    for q, c, r, grade, applied_at in rows
                ),
                chunking=chunking,
                action="unremap",
                at=at,
                note=note,
            )

    def add_remapped_adjudications(self, chunking: str, rows: Sequence[tuple], *, at: str) -> int:
        """Insert (question, chunk, grade, adjudicator, note, provenance) adjudications where
        the chunking has none for the (question, chunk); history row ``remap``."""
        with self.write() as conn:
            return _write_logged(
                conn,
                "INSERT OR IGNORE INTO adjudications (question_id, chunking, chunk_id, grade,"
                " reviewer, note, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        (q, chunking, c, grade, r, note, at),
                        (q, c, r),
                        {"new_grade": grade, "note": provenance},
                    )
                    for q, c, grade, r, note, provenance in rows
                ),
                chunking=chunking,
                action="remap",
                at=at,
            )

    def withdraw_remapped_adjudications(
        self, chunking: str, rows: Sequence[tuple], *, at: str
    ) -> int:
        """Remove (question, chunk, grade, adjudicator, applied_at) adjudications a remap wrote
        and nobody changed since; history row ``unremap``."""
        note = "a later remap no longer carries this adjudication"
        with self.write() as conn:
            return _write_logged(
                conn,
                "DELETE FROM adjudications WHERE question_id = ? AND chunking = ?"
                " AND chunk_id = ? AND grade = ? AND at = ?",
                (
                    ((q, chunking, c, grade, applied_at), (q, c, r), {"old_grade": grade})
                    for q, c, grade, r, applied_at in rows
                ),
                chunking=chunking,
                action="unremap",
                at=at,
                note=note,
            )

    def carry_unanswerable(
        self, chunking: str, pairs: Iterable[tuple[str, str]], *, at: str, note: str
    ) -> int:
        """Mark (question, reviewer) unanswerable in the chunking; history row ``remap``."""
        with self.write() as conn:
            return _write_logged(
                conn,
                "INSERT INTO question_marks (question_id, chunking, reviewer, unanswerable,"
                " updated_at) VALUES (?, ?, ?, 1, ?) ON CONFLICT (question_id, chunking,"
                " reviewer) DO UPDATE SET unanswerable = 1, updated_at = excluded.updated_at",
                (((q, chunking, r, at), (q, None, r), {}) for q, r in pairs),
                chunking=chunking,
                action="remap",
                at=at,
                note=note,
            )

    def remove_label(
        self,
        question_id: str,
        chunking: str,
        chunk_id: str,
        reviewer: str,
        *,
        action: str,
        at: str,
        note: str | None = None,
    ) -> int | None:
        """Delete one label, recording the removal under ``action``; returns its grade."""
        with self.write() as conn:
            old = label_row(conn, "grade", question_id, chunking, chunk_id, reviewer)
            if old is None:
                return None
            conn.execute(
                f"DELETE FROM labels WHERE {LABEL_KEY}", (question_id, chunking, chunk_id, reviewer)
            )
            append_event(
                conn,
                question_id,
                chunking,
                chunk_id,
                reviewer,
                action,
                at=at,
                old_grade=old[0],
                note=note,
            )
        return old[0]

    def record_event(
        self,
        question_id: str,
        chunking: str,
        chunk_id: str | None,
        reviewer: str,
        action: str,
        *,
        at: str,
        note: str | None = None,
    ) -> None:
        with self.write() as conn:
            append_event(conn, question_id, chunking, chunk_id, reviewer, action, at=at, note=note)


__all__ = ["KEY_COLUMNS", "MAPPING_COLUMNS", "MappingRow", "Remaps"]
