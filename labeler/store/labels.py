"""Labels (one grade per question, chunk and reviewer), question marks, and their history.

Every change appends a row to ``label_events`` in the same transaction as the change itself, so
the history can never miss a write. Reviewers are part of the key: two reviewers grading the
same chunk at once each keep their own grade.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime

from labeler.errors import LabelerError, NotFoundError
from labeler.store.base import StoreBase, now
from labeler.store.runs import _insert_batches, _raise_first

EVERYONE = "*"


def append_event(
    conn: sqlite3.Connection,
    question_id: str,
    chunking: str,
    chunk_id: str | None,
    reviewer: str,
    action: str,
    *,
    at: str,
    old_grade: int | None = None,
    new_grade: int | None = None,
    note: str | None = None,
) -> None:
    """One row of the append-only history; called inside the transaction of the change."""
    conn.execute(
        "INSERT INTO label_events (question_id, chunking, chunk_id, reviewer, action,"
        " old_grade, new_grade, note, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (question_id, chunking, chunk_id, reviewer, action, old_grade, new_grade, note, at),
    )


def check_reviewer(reviewer: str) -> str:
    name = (reviewer or "").strip()
    if not name or name == EVERYONE or len(name) > 80:
        msg = f"a reviewer name must be 1 to 80 characters and not {EVERYONE!r}, got {reviewer!r}"
        raise LabelerError(msg, field="reviewer")
    return name


class LabelStore(StoreBase):
    # one label at a time (the grading page) ---------------------------------------------------

    def set_grade(
        self,
        question_id: str,
        chunking: str,
        chunk_id: str,
        reviewer: str,
        grade: int,
        *,
        note: str | None = None,
        action: str = "grade",
    ) -> int | None:
        """Record ``reviewer``'s grade (and note, when given); returns the previous grade.

        The chunk's text and document offsets are copied onto the label, so it can be carried
        over when the corpus is re-chunked. Setting the same grade again changes nothing.
        """
        reviewer = check_reviewer(reviewer)
        if grade not in (0, 1, 2):
            msg = f"expected 0, 1 or 2, got {grade!r}"
            raise LabelerError(msg, field="grade")
        stamp = now()
        with self.write() as conn:
            chunk = conn.execute(
                'SELECT text, doc_id, start, "end" FROM chunks WHERE chunking = ? AND id = ?',
                (chunking, chunk_id),
            ).fetchone()
            if chunk is None:
                msg = f"unknown chunk {chunk_id!r} in chunking {chunking!r}"
                raise NotFoundError(msg, field="chunk_id")
            if (
                conn.execute("SELECT 1 FROM questions WHERE id = ?", (question_id,)).fetchone()
                is None
            ):
                msg = f"unknown question {question_id!r}"
                raise NotFoundError(msg, field="question_id")
            old = conn.execute(
                "SELECT grade, note FROM labels WHERE question_id = ? AND chunking = ?"
                " AND chunk_id = ? AND reviewer = ?",
                (question_id, chunking, chunk_id, reviewer),
            ).fetchone()
            old_grade, old_note = (None, None) if old is None else old
            new_note = old_note if note is None else (note.strip() or None)
            if old_grade == grade and old_note == new_note:
                return old_grade
            conn.execute(
                """
                INSERT INTO labels (question_id, chunking, chunk_id, reviewer, grade, note,
                    passage_text, doc_id, start, "end", created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (question_id, chunking, chunk_id, reviewer) DO UPDATE SET
                    grade = excluded.grade, note = excluded.note,
                    passage_text = excluded.passage_text, doc_id = excluded.doc_id,
                    start = excluded.start, "end" = excluded."end",
                    updated_at = excluded.updated_at
                """,
                (question_id, chunking, chunk_id, reviewer, grade, new_note, *chunk, stamp, stamp),
            )
            append_event(
                conn,
                question_id,
                chunking,
                chunk_id,
                reviewer,
                action if old_grade != grade else "note",
                at=stamp,
                old_grade=old_grade,
                new_grade=grade,
                note=new_note,
            )
        return old_grade

    def set_mark(
        self, question_id: str, chunking: str, reviewer: str, *, mark: str, value: bool
    ) -> bool:
        """Set a question-level mark (``unanswerable`` or ``skipped``); returns True if changed."""
        if mark not in ("unanswerable", "skipped"):
            msg = f"unknown mark {mark!r}"
            raise ValueError(msg)
        reviewer = check_reviewer(reviewer)
        stamp = now()
        with self.write() as conn:
            if (
                conn.execute("SELECT 1 FROM questions WHERE id = ?", (question_id,)).fetchone()
                is None
            ):
                msg = f"unknown question {question_id!r}"
                raise NotFoundError(msg, field="question_id")
            old = conn.execute(
                f"SELECT {mark} FROM question_marks WHERE question_id = ? AND chunking = ?"
                " AND reviewer = ?",
                (question_id, chunking, reviewer),
            ).fetchone()
            if bool(old and old[0]) == value:
                return False
            conn.execute(
                f"INSERT INTO question_marks (question_id, chunking, reviewer, {mark}, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (question_id, chunking, reviewer)"
                f" DO UPDATE SET {mark} = excluded.{mark}, updated_at = excluded.updated_at",
                (question_id, chunking, reviewer, int(value), stamp),
            )
            action = mark if value else f"un{mark}" if mark == "skipped" else "answerable"
            append_event(conn, question_id, chunking, None, reviewer, action, at=stamp)
        return True

    def marks(self, question_id: str, chunking: str) -> dict[str, dict]:
        """Every reviewer's marks on one question: {reviewer: {"unanswerable", "skipped"}}."""
        return {
            row["reviewer"]: {
                "unanswerable": bool(row["unanswerable"]),
                "skipped": bool(row["skipped"]),
            }
            for row in self.query(
                "SELECT reviewer, unanswerable, skipped FROM question_marks"
                " WHERE question_id = ? AND chunking = ?",
                (question_id, chunking),
            )
        }

    def question_labels(self, question_id: str, chunking: str) -> list[dict]:
        return self.query(
            "SELECT chunk_id, reviewer, grade, note, updated_at FROM labels"
            " WHERE question_id = ? AND chunking = ? ORDER BY chunk_id, reviewer",
            (question_id, chunking),
        )

    def labelled_questions(self, chunking: str, reviewer: str) -> list[str]:
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT question_id FROM labels WHERE chunking = ? AND reviewer = ?"
                " ORDER BY question_id",
                (chunking, reviewer),
            )
        ]

    def label_history(self, question_id: str, chunking: str | None = None) -> list[dict]:
        return self.query(
            "SELECT chunk_id, reviewer, action, old_grade, new_grade, note, at FROM label_events"
            " WHERE question_id = ? AND (? IS NULL OR chunking = ?) ORDER BY id",
            (question_id, chunking, chunking),
        )

    # many labels at once (qrels imports) ------------------------------------------------------

    def stage_labels(
        self, rows: Iterable[tuple[int, str, str, int]], *, batch: int = 50_000
    ) -> int:
        """Load parsed (line, question_id, chunk_id, grade) into ``staged_labels``."""
        self.conn.execute("DROP TABLE IF EXISTS temp.staged_labels")
        self.conn.execute(
            "CREATE TEMP TABLE staged_labels (line INTEGER PRIMARY KEY, question_id TEXT,"
            " chunk_id TEXT, grade INTEGER)"
        )
        return _insert_batches(
            self.conn, "INSERT INTO staged_labels VALUES (?, ?, ?, ?)", rows, batch
        )

    def check_staged_labels(self, chunking: str, path: str) -> None:
        _raise_first(
            self,
            path,
            [
                (
                    "SELECT s.line, s.question_id FROM staged_labels s"
                    " LEFT JOIN questions q ON q.id = s.question_id"
                    " WHERE q.id IS NULL ORDER BY s.line LIMIT 1",
                    (),
                    "question_id",
                    "unknown question id {!r} (import the questions first)",
                ),
                (
                    "SELECT s.line, s.chunk_id FROM staged_labels s"
                    " LEFT JOIN chunks c ON c.chunking = ? AND c.id = s.chunk_id"
                    " WHERE c.id IS NULL ORDER BY s.line LIMIT 1",
                    (chunking,),
                    "chunk_id",
                    f"unknown chunk id {{!r}} in chunking {chunking!r}",
                ),
                (
                    "SELECT max(line), chunk_id FROM staged_labels"
                    " GROUP BY question_id, chunk_id HAVING count(*) > 1"
                    " ORDER BY max(line) LIMIT 1",
                    (),
                    "chunk_id",
                    "chunk id {!r} is judged twice for the same question",
                ),
            ],
        )

    def merge_staged_labels(self, chunking: str, reviewer: str) -> tuple[int, int, int]:
        """Write the staged grades as ``reviewer``'s labels; returns (added, updated, unchanged).

        Labels the file does not mention are kept: an import never deletes a label.
        """
        reviewer = check_reviewer(reviewer)
        stamp = now()
        params = {"chunking": chunking, "reviewer": reviewer, "at": stamp}
        with self.write() as conn:
            joined = (
                " FROM staged_labels s LEFT JOIN labels l ON l.question_id = s.question_id"
                " AND l.chunking = :chunking AND l.chunk_id = s.chunk_id"
                " AND l.reviewer = :reviewer"
            )
            added = self.scalar("SELECT count(*)" + joined + " WHERE l.grade IS NULL", params)
            updated = self.scalar(
                "SELECT count(*)" + joined + " WHERE l.grade IS NOT NULL AND l.grade != s.grade",
                params,
            )
            total = self.scalar("SELECT count(*) FROM staged_labels")
            conn.execute(
                "INSERT INTO label_events (question_id, chunking, chunk_id, reviewer, action,"
                " old_grade, new_grade, at) SELECT s.question_id, :chunking, s.chunk_id,"
                " :reviewer, 'import', l.grade, s.grade, :at"
                + joined
                + " WHERE l.grade IS NULL OR l.grade != s.grade ORDER BY s.line",
                params,
            )
            conn.execute(
                """
                INSERT INTO labels (question_id, chunking, chunk_id, reviewer, grade, note,
                    passage_text, doc_id, start, "end", created_at, updated_at)
                SELECT s.question_id, :chunking, s.chunk_id, :reviewer, s.grade, NULL,
                    c.text, c.doc_id, c.start, c."end", :at, :at
                FROM staged_labels s JOIN chunks c ON c.chunking = :chunking AND c.id = s.chunk_id
                WHERE true
                ON CONFLICT (question_id, chunking, chunk_id, reviewer) DO UPDATE SET
                    grade = excluded.grade, updated_at = excluded.updated_at
                WHERE labels.grade != excluded.grade
                """,
                params,
            )
        return int(added), int(updated), int(total - added - updated)

    def staged_label_questions(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT question_id FROM staged_labels")]

    # progress ---------------------------------------------------------------------------------

    def save_progress(
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

    def question_progress(
        self, question_id: str, chunking: str
    ) -> dict[str, tuple[int, int, bool]]:
        return {
            reviewer: (size, graded, bool(done))
            for reviewer, size, graded, done in self.conn.execute(
                "SELECT reviewer, pool_size, graded, complete FROM progress"
                " WHERE question_id = ? AND chunking = ?",
                (question_id, chunking),
            )
        }

    def progress_counts(self, chunking: str, reviewer: str | None) -> dict[str, int]:
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
        """Grades ``reviewer`` gave by hand since ``since`` (imports do not count)."""
        return int(
            self.scalar(
                "SELECT count(*) FROM label_events WHERE reviewer = ? AND at >= ?"
                " AND action = 'grade'",
                (reviewer, since.astimezone(UTC).isoformat(timespec="microseconds")),
            )
        )

    # status -----------------------------------------------------------------------------------

    def label_counts(self) -> dict[str, dict]:
        by_grade = {
            str(g): n
            for g, n in self.conn.execute(
                "SELECT grade, count(*) FROM labels GROUP BY grade ORDER BY grade"
            )
        }
        by_reviewer = {
            r: n
            for r, n in self.conn.execute(
                "SELECT reviewer, count(*) FROM labels GROUP BY reviewer ORDER BY reviewer"
            )
        }
        unanswerable = int(
            self.scalar(
                "SELECT count(DISTINCT question_id) FROM question_marks WHERE unanswerable = 1"
            )
        )
        return {
            "by_grade": by_grade,
            "by_reviewer": by_reviewer,
            "unanswerable_questions": unanswerable,
        }
