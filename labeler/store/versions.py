"""What a test-set export reads and records: judged questions, labels, marks, adjudications, the
log of exported versions, and the chunk lookups that importers of other tools' files need.

Exports read inside ``snapshot()``, one read transaction, so a reviewer grading during an export
can never leave the version with half of a change.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Sequence

from labeler.errors import LabelerError, NotFoundError
from labeler.store.base import StoreBase, now
from labeler.store.labels import append_event, check_reviewer, require_question


class VersionStore(StoreBase):
    # a consistent read ----------------------------------------------------------------------

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction (WAL: a fixed view of the database) for everything inside.

        Inside a write transaction already, it simply joins it.
        """
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    # what an export reads ---------------------------------------------------------------------

    def judged_questions(self, chunking: str, statuses: Sequence[str]) -> list[dict]:
        """Questions in ``statuses`` with at least one label or unanswerable mark in the
        chunking: id, text, reference_answer, tags (a list), review_status; by id."""
        rows = self.query(
            """
            SELECT q.id, q.text, q.reference_answer, q.tags, q.review_status
            FROM questions q
            WHERE q.review_status IN (SELECT value FROM json_each(:statuses))
              AND (EXISTS (SELECT 1 FROM labels l
                           WHERE l.question_id = q.id AND l.chunking = :chunking
                             AND l.state = 'current')
                   OR EXISTS (SELECT 1 FROM question_marks m
                              WHERE m.question_id = q.id AND m.chunking = :chunking
                                AND m.unanswerable = 1))
            ORDER BY q.id
            """,
            {"chunking": chunking, "statuses": json.dumps(list(statuses))},
        )
        for row in rows:
            row["tags"] = json.loads(row["tags"])
        return rows

    def chunking_labels(self, chunking: str) -> Iterator[tuple[str, str, str, int]]:
        """(question, chunk, reviewer, grade) of every current label in the chunking, streamed.

        Stale labels (their chunk's text changed since) are left out. Otherwise unfiltered on
        purpose: the caller already knows which questions it wants, and a join with the
        questions would cost more than the labels it saves.
        """
        cursor = self.conn.execute(
            "SELECT question_id, chunk_id, reviewer, grade FROM labels"
            " WHERE chunking = ? AND state = 'current'",
            (chunking,),
        )
        while rows := cursor.fetchmany(50_000):
            yield from rows

    def stale_labels(self, chunking: str, statuses: Sequence[str]) -> list[dict]:
        """question_id, tags (a list), chunk_id, reviewer of every stale label in the chunking
        whose question has one of ``statuses``: what an export leaves out."""
        rows = self.query(
            "SELECT l.question_id, q.tags, l.chunk_id, l.reviewer FROM labels l"
            " JOIN questions q ON q.id = l.question_id"
            " WHERE l.chunking = :chunking AND l.state = 'stale'"
            " AND q.review_status IN (SELECT value FROM json_each(:statuses))"
            " ORDER BY l.question_id, l.chunk_id, l.reviewer",
            {"chunking": chunking, "statuses": json.dumps(list(statuses))},
        )
        for row in rows:
            row["tags"] = json.loads(row["tags"])
        return rows

    def unanswerable_marks(self, chunking: str) -> list[tuple[str, str]]:
        """(question, reviewer) for every reviewer who marked a question unanswerable."""
        return [
            tuple(row)
            for row in self.conn.execute(
                "SELECT question_id, reviewer FROM question_marks"
                " WHERE chunking = ? AND unanswerable = 1",
                (chunking,),
            )
        ]

    def chunk_texts(self, chunking: str, chunk_ids: Iterable[str]) -> list[dict]:
        """id, doc_id, title, text of the named chunks (those the chunking holds)."""
        return self.query(
            "SELECT id, doc_id, title, text FROM chunks"
            " WHERE chunking = ? AND id IN (SELECT value FROM json_each(?))",
            (chunking, json.dumps(list(chunk_ids))),
        )

    # adjudications ----------------------------------------------------------------------------

    def adjudications(self, chunking: str) -> dict[tuple[str, str], int]:
        """{(question, chunk): grade} of every current adjudication in the chunking (one made
        before its chunk's text changed is stale, and settles nothing)."""
        return {
            (q, c): g
            for q, c, g in self.conn.execute(
                "SELECT question_id, chunk_id, grade FROM adjudications"
                " WHERE chunking = ? AND state = 'current'",
                (chunking,),
            )
        }

    def adjudication(self, question_id: str, chunking: str, chunk_id: str) -> dict | None:
        rows = self.query(
            "SELECT grade, reviewer, note, at, state FROM adjudications"
            " WHERE question_id = ? AND chunking = ? AND chunk_id = ?",
            (question_id, chunking, chunk_id),
        )
        return rows[0] if rows else None

    def set_adjudication(
        self,
        question_id: str,
        chunking: str,
        chunk_id: str,
        grade: int | None,
        reviewer: str,
        *,
        note: str | None = None,
    ) -> int | None:
        """Settle the grade of (question, chunk) for everyone (``None`` removes the settlement);
        returns the previous adjudicated grade. Recorded in label_events as 'adjudicate'."""
        reviewer = check_reviewer(reviewer)
        if grade is not None and grade not in (0, 1, 2):
            msg = f"expected 0, 1 or 2, got {grade!r}"
            raise LabelerError(msg, field="grade")
        stamp = now()
        with self.write() as conn:
            require_question(conn, question_id)
            if (
                conn.execute(
                    "SELECT 1 FROM chunks WHERE chunking = ? AND id = ?", (chunking, chunk_id)
                ).fetchone()
                is None
            ):
                msg = f"unknown chunk {chunk_id!r} in chunking {chunking!r}"
                raise NotFoundError(msg, field="chunk_id")
            old = conn.execute(
                "SELECT grade FROM adjudications"
                " WHERE question_id = ? AND chunking = ? AND chunk_id = ?",
                (question_id, chunking, chunk_id),
            ).fetchone()
            old_grade = None if old is None else old[0]
            if grade is None:
                if old is None:
                    return None
                conn.execute(
                    "DELETE FROM adjudications"
                    " WHERE question_id = ? AND chunking = ? AND chunk_id = ?",
                    (question_id, chunking, chunk_id),
                )
            else:
                conn.execute(
                    "INSERT INTO adjudications (question_id, chunking, chunk_id, grade, reviewer,"
                    " note, at, state) VALUES (?, ?, ?, ?, ?, ?, ?, 'current')"
                    " ON CONFLICT (question_id, chunking, chunk_id) DO UPDATE SET"
                    " grade = excluded.grade, reviewer = excluded.reviewer,"
                    " note = excluded.note, at = excluded.at, state = 'current'",
                    (question_id, chunking, chunk_id, grade, reviewer, note, stamp),
                )
            append_event(
                conn,
                question_id,
                chunking,
                chunk_id,
                reviewer,
                "adjudicate" if grade is not None else "unadjudicate",
                at=stamp,
                old_grade=old_grade,
                new_grade=grade,
                note=note,
            )
        return old_grade

    # the log of exported versions -------------------------------------------------------------

    def record_version(
        self,
        *,
        name: str,
        version: int,
        content_hash: str,
        chunking: str,
        parent: int | None,
        path: str,
        counts: dict,
        selection: dict,
        created_at: str,
    ) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO testset_versions (name, version, content_hash, chunking, parent,"
                " path, counts, selection, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (name, version) DO UPDATE SET content_hash = excluded.content_hash,"
                " chunking = excluded.chunking, parent = excluded.parent, path = excluded.path,"
                " counts = excluded.counts, selection = excluded.selection,"
                " created_at = excluded.created_at",
                (
                    name,
                    version,
                    content_hash,
                    chunking,
                    parent,
                    path,
                    json.dumps(counts, sort_keys=True),
                    json.dumps(selection, sort_keys=True),
                    created_at,
                ),
            )

    def recorded_versions(self, name: str) -> dict[int, dict]:
        """{version: row} of what this database exported under ``name``."""
        rows = self.query(
            "SELECT name, version, content_hash, chunking, parent, path, counts, selection,"
            " created_at FROM testset_versions WHERE name = ? ORDER BY version",
            (name,),
        )
        for row in rows:
            row["counts"] = json.loads(row["counts"])
            row["selection"] = json.loads(row["selection"])
        return {row["version"]: row for row in rows}

    def testset_names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT name FROM testset_versions")]

    # lookups for importers ----------------------------------------------------------------------

    def existing_question_ids(self, ids: Iterable[str]) -> set[str]:
        return {
            r[0]
            for r in self.conn.execute(
                "SELECT id FROM questions WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(ids)),),
            )
        }

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

    def chunking_exists(self, chunking: str) -> bool:
        return self.scalar("SELECT 1 FROM chunkings WHERE name = ?", (chunking,)) is not None


__all__ = ["VersionStore"]
