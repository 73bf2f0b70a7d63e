"""Adjudications: a lead's settled grade of a (question, chunk), which wins over the reviewers'
grades in every export. Each change is recorded in ``label_events`` (actions ``adjudicate`` and
``unadjudicate``) in the same transaction."""

from __future__ import annotations

from labeler.errors import LabelerError, NotFoundError
from labeler.store.base import Facet, now
from labeler.store.labels import append_event, check_reviewer, require_question


class Adjudications(Facet):
    __slots__ = ()

    def current(self, chunking: str) -> dict[tuple[str, str], int]:
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

    def get(self, question_id: str, chunking: str, chunk_id: str) -> dict | None:
        rows = self.query(
            "SELECT grade, reviewer, note, at, state FROM adjudications"
            " WHERE question_id = ? AND chunking = ? AND chunk_id = ?",
            (question_id, chunking, chunk_id),
        )
        return rows[0] if rows else None

    def set(
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

    def relevance_adjudications(self, chunking: str) -> dict[str, int]:
        """{report key: grade} of every adjudicated (question, chunk) of the chunking."""
        return dict(
            self.conn.execute(
                "SELECT json_array(question_id, chunk_id), grade FROM adjudications"
                " WHERE chunking = ?",
                (chunking,),
            )
        )

    def rows(self, chunking: str) -> dict[tuple[str, str], dict]:
        """{(question, chunk): {grade, reviewer, note, at}} of every adjudication."""
        return {
            (row.pop("question_id"), row.pop("chunk_id")): row
            for row in self.query(
                "SELECT question_id, chunk_id, grade, reviewer, note, at FROM adjudications"
                " WHERE chunking = ?",
                (chunking,),
            )
        }


__all__ = ["Adjudications"]
