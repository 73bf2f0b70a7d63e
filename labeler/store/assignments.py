"""Questions assigned to reviewers (``labeler assign``), and the team's figures read from the
labels' history: what the Team page shows. How questions are split is
``labeler.accounts.assignments``' rule; this facet keeps and counts the rows."""

from __future__ import annotations

import json
from collections.abc import Iterable

from labeler.store.base import Facet


class Assignments(Facet):
    __slots__ = ()

    def add(self, rows: Iterable[tuple[str, str, bool]], *, batch: str, actor: str, at: str) -> int:
        """Assign (question, reviewer, in the overlap); a pair already assigned is kept as it
        was. Returns how many pairs were new."""
        with self.write() as conn:
            before = conn.total_changes
            conn.executemany(
                "INSERT OR IGNORE INTO assignments (question_id, reviewer, batch, overlap,"
                " assigned_by, assigned_at) VALUES (?, ?, ?, ?, ?, ?)",
                [(q, r, batch, int(o), actor, at) for q, r, o in rows],
            )
            return conn.total_changes - before

    def assigned_questions(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT DISTINCT question_id FROM assignments")}

    def of_reviewer(self, reviewer: str) -> set[str]:
        return {
            r[0]
            for r in self.conn.execute(
                "SELECT question_id FROM assignments WHERE reviewer = ?", (reviewer,)
            )
        }

    def rows(self, chunking: str) -> list[dict]:
        """Every assignment with whether its reviewer has fully graded the question."""
        return self.query(
            "SELECT a.question_id, a.reviewer, a.batch, a.overlap, a.assigned_by, a.assigned_at,"
            " coalesce(p.complete, 0) AS done FROM assignments a"
            " LEFT JOIN progress p ON p.question_id = a.question_id AND p.chunking = ?"
            " AND p.reviewer = a.reviewer ORDER BY a.reviewer, a.question_id",
            (chunking,),
        )

    def overlap_pairs(self) -> list[tuple[str, str, str]]:
        """(question, reviewer a, reviewer b), a < b, for every question assigned to both."""
        return [
            tuple(r)
            for r in self.conn.execute(
                "SELECT a.question_id, a.reviewer, b.reviewer FROM assignments a"
                " JOIN assignments b ON b.question_id = a.question_id AND a.reviewer < b.reviewer"
                " ORDER BY a.question_id, a.reviewer, b.reviewer"
            )
        ]

    # the team's figures -----------------------------------------------------------------------

    def grade_times(self, reviewer: str, *, limit: int) -> list[str]:
        """When ``reviewer``'s last ``limit`` grades were given by hand (not imports), oldest
        first: the time between two is the time a grade took."""
        rows = self.conn.execute(
            "SELECT at FROM label_events WHERE reviewer = ? AND action IN ('grade', 'confirm')"
            " ORDER BY at DESC LIMIT ?",
            (reviewer, limit),
        ).fetchall()
        return [r[0] for r in reversed(rows)]

    def grades_since(self, reviewers: Iterable[str], since: str) -> dict[str, int]:
        """{reviewer: grades given by hand since ``since``}."""
        return self.pairs(
            "SELECT reviewer, count(*) FROM label_events WHERE at >= :since"
            " AND action IN ('grade', 'confirm')"
            " AND reviewer IN (SELECT value FROM json_each(:reviewers)) GROUP BY reviewer",
            {"since": since, "reviewers": json.dumps(list(reviewers))},
        )

    def last_active(self) -> dict[str, str]:
        """{reviewer: the time of their last change to a label or mark}."""
        return self.pairs("SELECT reviewer, max(at) FROM label_events GROUP BY reviewer")


__all__ = ["Assignments"]
