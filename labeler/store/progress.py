"""Progress: who has fully graded which question, kept per question after every change (by
``labeler.grading``), so the pages' counters are one cheap count instead of a walk over every
pool."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from labeler.store.base import Facet, now
from labeler.store.labels import EVERYONE


class Progress(Facet):
    __slots__ = ()

    def save(
        self, question_id: str, chunking: str, rows: Iterable[tuple[str, int, int, bool]]
    ) -> None:
        """Store (reviewer, pool size, graded, complete) for one question."""
        stamp = now()
        with self.write() as conn:
            conn.executemany(
                "INSERT INTO progress (question_id, chunking, reviewer, pool_size, graded,"
                " complete, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (chunking, reviewer, question_id) DO UPDATE SET"
                " pool_size = excluded.pool_size, graded = excluded.graded,"
                " complete = excluded.complete, updated_at = excluded.updated_at",
                [
                    (question_id, chunking, r, size, graded, int(done), stamp)
                    for r, size, graded, done in rows
                ],
            )

    def of_question(self, question_id: str, chunking: str) -> dict[str, tuple[int, int, bool]]:
        return {
            reviewer: (size, graded, bool(done))
            for reviewer, size, graded, done in self.conn.execute(
                "SELECT reviewer, pool_size, graded, complete FROM progress"
                " WHERE question_id = ? AND chunking = ?",
                (question_id, chunking),
            )
        }

    def counts(self, chunking: str, reviewer: str | None) -> dict[str, int]:
        """Questions fully graded by ``reviewer`` (and by everyone), out of accepted questions."""
        total = int(self.scalar("SELECT count(*) FROM questions WHERE review_status = 'accepted'"))
        done_sql = (
            "SELECT count(*) FROM progress p JOIN questions q ON q.id = p.question_id"
            " AND q.review_status = 'accepted'"
            " WHERE p.chunking = ? AND p.reviewer = ? AND p.complete = 1"
        )
        everyone = int(self.scalar(done_sql, (chunking, EVERYONE)))
        mine = int(self.scalar(done_sql, (chunking, reviewer))) if reviewer else 0
        return {"total": total, "everyone": everyone, "mine": mine}

    def grades_since(self, reviewer: str, since: datetime) -> int:
        """Grades ``reviewer`` gave or confirmed by hand since ``since`` (not imports)."""
        return int(
            self.scalar(
                "SELECT count(*) FROM label_events WHERE reviewer = ? AND at >= ?"
                " AND action IN ('grade', 'confirm')",
                (reviewer, since.astimezone(UTC).isoformat(timespec="microseconds")),
            )
        )


__all__ = ["Progress"]
