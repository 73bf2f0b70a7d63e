"""Labels (one grade per question, chunk and reviewer), question marks, and their history.

Every change appends a row to ``label_events`` in the same transaction as the change itself, so
the history can never miss a write. Reviewers are part of the key: two reviewers grading the
same chunk at once each keep their own grade.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence

from labeler.errors import LabelerError, NotFoundError
from labeler.names import check_name
from labeler.store.base import Facet, insert_batches, now, raise_first

EVERYONE = "*"
LABEL_KEY = "question_id = ? AND chunking = ? AND chunk_id = ? AND reviewer = ?"
"""Where one label stands: one reviewer's grade of a chunk for a question, in a chunking."""


def label_row(
    conn: sqlite3.Connection,
    columns: str,
    question_id: str,
    chunking: str,
    chunk_id: str,
    reviewer: str,
) -> tuple | None:
    """The ``columns`` of one label, or None when there is none."""
    return conn.execute(
        f"SELECT {columns} FROM labels WHERE {LABEL_KEY}",
        (question_id, chunking, chunk_id, reviewer),
    ).fetchone()


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
    seen_others: bool = False,
) -> None:
    """One row of the append-only history; called inside the transaction of the change.
    ``seen_others``: the reviewer had been shown others' grades on this question before."""
    conn.execute(
        "INSERT INTO label_events (question_id, chunking, chunk_id, reviewer, action,"
        " old_grade, new_grade, note, at, seen_others) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            question_id,
            chunking,
            chunk_id,
            reviewer,
            action,
            old_grade,
            new_grade,
            note,
            at,
            int(seen_others),
        ),
    )


SAW_OTHERS = "saw others"
"""The history's action for the moment a reviewer was first shown others' grades on a question
(``labeler.grading.labeling``'s blind rule): every change of theirs after it is marked."""


def has_seen_others(
    conn: sqlite3.Connection, question_id: str, chunking: str, reviewer: str
) -> bool:
    return (
        conn.execute(
            "SELECT 1 FROM label_events WHERE question_id = ? AND chunking = ? AND reviewer = ?"
            " AND action = ? LIMIT 1",
            (question_id, chunking, reviewer, SAW_OTHERS),
        ).fetchone()
        is not None
    )


def require_question(conn: sqlite3.Connection, question_id: str) -> None:
    """Refuse a write about a question the store does not hold."""
    if conn.execute("SELECT 1 FROM questions WHERE id = ?", (question_id,)).fetchone() is None:
        msg = f"unknown question {question_id!r}"
        raise NotFoundError(msg, field="question_id")


def _check_grade(grade: object) -> None:
    if isinstance(grade, bool) or grade not in (0, 1, 2):
        msg = f"expected 0, 1 or 2, got {grade!r}"
        raise LabelerError(msg, field="grade")


def check_reviewer(reviewer: str) -> str:
    """A reviewer's name by the one name rule (``labeler.names``), for every write that records
    one; ``EVERYONE`` (``*``, progress's row for all reviewers together) never passes it."""
    return check_name(reviewer, field="reviewer")


class Labels(Facet):
    __slots__ = ()

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
        over when the corpus is re-chunked. Setting the same grade again changes nothing, unless
        the label is stale (its chunk's text changed since): then it is a confirmation, which
        makes the label current again for the new text (history action ``confirm``).
        """
        reviewer = check_reviewer(reviewer)
        _check_grade(grade)
        stamp = now()
        with self.write() as conn:
            chunk = self._chunk_for_label(conn, question_id, chunking, chunk_id)
            old = label_row(conn, "grade, note, state", question_id, chunking, chunk_id, reviewer)
            old_grade, old_note, old_state = (None, None, "current") if old is None else old
            new_note = old_note if note is None else (note.strip() or None)
            stale = old_state == "stale"
            if old_grade == grade and old_note == new_note and not stale:
                return old_grade
            conn.execute(
                """
                INSERT INTO labels (question_id, chunking, chunk_id, reviewer, grade, note,
                    passage_text, doc_id, start, "end", created_at, updated_at, state)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'current')
                ON CONFLICT (question_id, chunking, chunk_id, reviewer) DO UPDATE SET
                    grade = excluded.grade, note = excluded.note,
                    passage_text = excluded.passage_text, doc_id = excluded.doc_id,
                    start = excluded.start, "end" = excluded."end",
                    updated_at = excluded.updated_at, state = 'current'
                """,
                (question_id, chunking, chunk_id, reviewer, grade, new_note, *chunk, stamp, stamp),
            )
            if old_grade != grade:
                happened = action
            elif stale:
                happened = "confirm"
            else:
                happened = "note"
            append_event(
                conn,
                question_id,
                chunking,
                chunk_id,
                reviewer,
                happened,
                at=stamp,
                old_grade=old_grade,
                new_grade=grade,
                note=new_note,
                seen_others=has_seen_others(conn, question_id, chunking, reviewer),
            )
        return old_grade

    def set_note(
        self, question_id: str, chunking: str, chunk_id: str, reviewer: str, note: str
    ) -> bool:
        """Set the note on ``reviewer``'s label, keeping its grade; True if it changed.

        The grade is read and the note written in one write transaction, so a regrade in
        another tab can never be undone by a note saved on the older grade. A note explains a
        grade: without a label it is refused.
        """
        reviewer = check_reviewer(reviewer)
        with self.write() as conn:
            old = label_row(conn, "grade, note", question_id, chunking, chunk_id, reviewer)
            if old is None:
                msg = "grade the chunk before adding a note"
                raise LabelerError(msg, field="note")
            grade, old_note = old
            new_note = note.strip() or None
            if new_note == old_note:
                return False
            stamp = now()
            conn.execute(
                f"UPDATE labels SET note = ?, updated_at = ? WHERE {LABEL_KEY}",
                (new_note, stamp, question_id, chunking, chunk_id, reviewer),
            )
            append_event(
                conn,
                question_id,
                chunking,
                chunk_id,
                reviewer,
                "note",
                at=stamp,
                old_grade=grade,
                new_grade=grade,
                note=new_note,
                seen_others=has_seen_others(conn, question_id, chunking, reviewer),
            )
        return True

    @staticmethod
    def _chunk_for_label(
        conn: sqlite3.Connection, question_id: str, chunking: str, chunk_id: str
    ) -> tuple:
        """(text, doc_id, start, end) of the chunk, after checking both ids exist."""
        chunk = conn.execute(
            'SELECT text, doc_id, start, "end" FROM chunks WHERE chunking = ? AND id = ?',
            (chunking, chunk_id),
        ).fetchone()
        if chunk is None:
            msg = f"unknown chunk {chunk_id!r} in chunking {chunking!r}"
            raise NotFoundError(msg, field="chunk_id")
        require_question(conn, question_id)
        return chunk

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
            require_question(conn, question_id)
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
            seen = has_seen_others(conn, question_id, chunking, reviewer)
            append_event(
                conn, question_id, chunking, None, reviewer, action, at=stamp, seen_others=seen
            )
        return True

    # blind grading ------------------------------------------------------------------------

    def saw_others(self, question_id: str, chunking: str, reviewer: str) -> bool:
        """Record that ``reviewer`` was shown others' grades on the question, the first time;
        True when this was the first time."""
        with self.write() as conn:
            if has_seen_others(conn, question_id, chunking, reviewer):
                return False
            append_event(conn, question_id, chunking, None, reviewer, SAW_OTHERS, at=now())
        return True

    def has_seen_others(self, question_id: str, chunking: str, reviewer: str) -> bool:
        return has_seen_others(self.conn, question_id, chunking, reviewer)

    def blind_labels(self, chunking: str) -> Iterator[tuple[str, str, str, int]]:
        """(question, chunk, reviewer, grade) of every current label in the chunking, each
        grade as it stood before its reviewer was shown others' grades on the question: the
        last grade the history gives it before the ``saw others`` row. A chunk the reviewer
        graded only after seeing others has no blind grade and is left out."""
        cursor = self.conn.execute(
            """
            WITH seen AS (
                SELECT question_id, reviewer, min(id) AS seen_id FROM label_events
                WHERE action = :saw AND chunking = :chunking GROUP BY question_id, reviewer
            )
            SELECT l.question_id, l.chunk_id, l.reviewer,
                CASE WHEN s.seen_id IS NULL THEN l.grade ELSE (
                    SELECT e.new_grade FROM label_events e
                    WHERE e.question_id = l.question_id AND e.chunking = :chunking
                      AND e.chunk_id = l.chunk_id AND e.reviewer = l.reviewer
                      AND e.id < s.seen_id AND e.new_grade IS NOT NULL
                    ORDER BY e.id DESC LIMIT 1) END AS grade
            FROM labels l
            LEFT JOIN seen s ON s.question_id = l.question_id AND s.reviewer = l.reviewer
            WHERE l.chunking = :chunking AND l.state = 'current'
            """,
            {"saw": SAW_OTHERS, "chunking": chunking},
        )
        while rows := cursor.fetchmany(50_000):
            yield from (row for row in rows if row[3] is not None)

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
        """Every reviewer's label on the question: chunk_id, reviewer, grade, note, updated_at,
        state ('current' or 'stale') and, for a stale label, the text it was given for."""
        return self.query(
            "SELECT chunk_id, reviewer, grade, note, updated_at, state,"
            " CASE state WHEN 'stale' THEN passage_text END AS graded_text FROM labels"
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

    def history(self, question_id: str, chunking: str | None = None) -> list[dict]:
        """Every change on the question, oldest first; ``seen_others`` marks those made after
        their reviewer was shown others' grades (``saw others``)."""
        return self.query(
            "SELECT chunk_id, reviewer, action, old_grade, new_grade, note, at, seen_others"
            " FROM label_events"
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
        return insert_batches(
            self.conn, "INSERT INTO staged_labels VALUES (?, ?, ?, ?)", rows, batch
        )

    def check_staged_labels(self, chunking: str, path: str) -> None:
        raise_first(
            self.conn,
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

    # stale labels ---------------------------------------------------------------------------

    def _go_stale(self, conn: sqlite3.Connection, where: str, params: dict) -> int:
        """Make the current labels and adjudications matching ``where`` stale, with a history
        row each (note ``params["note"]``); the labels that went stale stay in
        temp.going_stale (question_id, chunking, chunk_id, reviewer, grade) for the caller's
        progress update. Returns how many labels went stale."""
        conn.execute("DROP TABLE IF EXISTS temp.going_stale")
        conn.execute(
            "CREATE TEMP TABLE going_stale AS SELECT question_id, chunking, chunk_id, reviewer,"
            f" grade FROM labels WHERE state = 'current' AND {where}",
            params,
        )
        stale = int(self.scalar("SELECT count(*) FROM temp.going_stale"))
        conn.execute(
            "INSERT INTO label_events (question_id, chunking, chunk_id, reviewer, action,"
            " old_grade, new_grade, note, at) SELECT question_id, chunking, chunk_id,"
            " reviewer, 'stale', grade, grade, :note, :at"
            " FROM temp.going_stale ORDER BY question_id, chunking, chunk_id, reviewer",
            params,
        )
        conn.execute(
            "UPDATE labels SET state = 'stale', updated_at = :at"
            f" WHERE state = 'current' AND {where}",
            params,
        )
        conn.execute(
            "INSERT INTO label_events (question_id, chunking, chunk_id, reviewer, action,"
            " old_grade, new_grade, note, at) SELECT question_id, chunking, chunk_id,"
            " reviewer, 'stale adjudication', grade, grade, :note, :at"
            f" FROM adjudications WHERE state = 'current' AND {where}",
            params,
        )
        conn.execute(
            f"UPDATE adjudications SET state = 'stale' WHERE state = 'current' AND {where}",
            params,
        )
        return stale

    def make_stale(self, chunking: str, chunk_ids: Sequence[str]) -> int:
        """The text of these chunks is being replaced: their current labels and adjudications
        become stale, with a history row each; returns how many labels went stale.

        A stale label counts as ungraded, so the progress of its reviewer (and of everyone) on
        its question drops at once; the labelling core recomputes it exactly when the question
        is next opened.
        """
        stamp = now()
        params = {
            "chunking": chunking,
            "ids": json.dumps(list(chunk_ids)),
            "at": stamp,
            "note": "the chunk text was replaced",
        }
        with self.write() as conn:
            stale = self._go_stale(
                conn,
                "chunking = :chunking AND chunk_id IN (SELECT value FROM json_each(:ids))",
                params,
            )
            # Progress: each reviewer loses the grades that went stale, everyone loses the
            # chunks; a question stays complete only if its reviewer marked it unanswerable.
            unanswerable = (
                "coalesce((SELECT max(m.unanswerable) FROM question_marks m"
                " WHERE m.question_id = progress.question_id AND m.chunking = :chunking"
                " AND (progress.reviewer = '*' OR m.reviewer = progress.reviewer)), 0)"
            )
            conn.execute(
                f"UPDATE progress SET graded = max(graded - x.n, 0), complete = {unanswerable},"
                " updated_at = :at FROM (SELECT question_id, reviewer, count(*) AS n"
                " FROM temp.going_stale GROUP BY question_id, reviewer) AS x"
                " WHERE progress.chunking = :chunking AND progress.question_id = x.question_id"
                " AND progress.reviewer = x.reviewer",
                params,
            )
            conn.execute(
                f"UPDATE progress SET graded = max(graded - x.n, 0), complete = {unanswerable},"
                " updated_at = :at FROM (SELECT question_id, count(DISTINCT chunk_id) AS n"
                " FROM temp.going_stale GROUP BY question_id) AS x"
                " WHERE progress.chunking = :chunking AND progress.question_id = x.question_id"
                f" AND progress.reviewer = '{EVERYONE}'",
                params,
            )
            conn.execute("DROP TABLE temp.going_stale")
        return stale

    def make_questions_stale(self, question_ids: Sequence[str]) -> int:
        """The text of these questions is being replaced: every judgement given for the old
        text goes. Their current labels and adjudications, in every chunking, become stale
        (history row ``stale``, as for a replaced chunk text), and their unanswerable marks
        are withdrawn (history row ``answerable``): a reviewer confirms or changes each for
        the new text. Their progress drops to nothing graded. Returns how many labels went
        stale."""
        stamp = now()
        note = "the question text was replaced"
        params = {"ids": json.dumps(list(question_ids)), "at": stamp, "note": note}
        within = "question_id IN (SELECT value FROM json_each(:ids))"
        with self.write() as conn:
            stale = self._go_stale(conn, within, params)
            conn.execute("DROP TABLE temp.going_stale")
            marks = conn.execute(
                f"SELECT question_id, chunking, reviewer FROM question_marks WHERE {within}"
                " AND unanswerable = 1 ORDER BY question_id, chunking, reviewer",
                params,
            ).fetchall()
            for question_id, chunking, reviewer in marks:
                append_event(
                    conn, question_id, chunking, None, reviewer, "answerable", at=stamp, note=note
                )
            conn.execute(
                f"UPDATE question_marks SET unanswerable = 0, updated_at = :at WHERE {within}"
                " AND unanswerable = 1",
                params,
            )
            conn.execute(
                f"UPDATE progress SET graded = 0, complete = 0, updated_at = :at WHERE {within}",
                params,
            )
        return stale

    def judged_question_ids(self, question_ids: Sequence[str]) -> dict[str, int]:
        """{question: its labels (any state, any chunking)} of those of ``question_ids`` that
        carry a label, an adjudication or an unanswerable mark: what a new text would
        silently change."""
        return self.pairs(
            """
            WITH wanted(id) AS (SELECT value FROM json_each(:ids))
            SELECT w.id, (SELECT count(*) FROM labels l WHERE l.question_id = w.id) FROM wanted w
            WHERE EXISTS (SELECT 1 FROM labels l WHERE l.question_id = w.id)
               OR EXISTS (SELECT 1 FROM adjudications a WHERE a.question_id = w.id)
               OR EXISTS (SELECT 1 FROM question_marks m WHERE m.question_id = w.id
                          AND m.unanswerable = 1)
            """,
            {"ids": json.dumps(list(question_ids))},
        )

    # what an export reads -----------------------------------------------------------------

    def judged_questions(self, chunking: str, statuses: Sequence[str]) -> list[dict]:
        """Questions in ``statuses`` with at least one label or unanswerable mark in the
        chunking: id, text, reference_answer, tags (a list), review_status, generator,
        source_chunk_ids (a list); by id."""
        rows = self.query(
            """
            SELECT q.id, q.text, q.reference_answer, q.tags, q.review_status, q.generator,
                q.source_chunk_ids
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
            row["source_chunk_ids"] = json.loads(row["source_chunk_ids"])
        return rows

    def chunking_labels(
        self, chunking: str, questions: Iterable[str] | None = None
    ) -> Iterator[tuple[str, str, str, int]]:
        """(question, chunk, reviewer, grade) of every current label in the chunking, streamed;
        only those of ``questions`` when given (a few questions that changed).

        Stale labels (their chunk's text changed since) are left out. Otherwise unfiltered on
        purpose: the caller already knows which questions it wants, and a join with the
        questions would cost more than the labels it saves.
        """
        sql = (
            "SELECT question_id, chunk_id, reviewer, grade FROM labels"
            " WHERE chunking = ? AND state = 'current'"
        )
        if questions is None:
            cursor = self.conn.execute(sql, (chunking,))
        else:
            cursor = self.conn.execute(
                sql + " AND question_id IN (SELECT value FROM json_each(?))",
                (chunking, json.dumps(list(questions))),
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

    def last_event(self) -> int:
        """The id of the latest change of a label, mark or adjudication (0: none yet)."""
        return int(self.scalar("SELECT coalesce(max(id), 0) FROM label_events"))

    def changed_since(self, event: int, chunking: str) -> set[str]:
        """The questions whose labels, marks or adjudications in ``chunking`` changed after
        the change ``event`` (every change is recorded in label_events)."""
        return {
            row[0]
            for row in self.conn.execute(
                "SELECT DISTINCT question_id FROM label_events WHERE id > ? AND chunking = ?",
                (event, chunking),
            )
        }

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

    # status -----------------------------------------------------------------------------------

    def revision(self) -> tuple[int, str]:
        """Changes whenever a label, mark or adjudication changes (the history only grows) or a
        run is imported: a cache key for anything computed from labels and runs."""
        runs = str(self.scalar("SELECT coalesce(max(imported_at), '') FROM runs"))
        return self.last_event(), runs

    def counts(self, chunking: str) -> dict[str, dict]:
        """Labels of one chunking per grade and per reviewer, with the label count of every
        chunking beside them (a remap fills a second one). Questions marked unanswerable are
        counted with the other question counts (``labeler.grading.counts``)."""

        def count_by(column: str, where: str = "", params: tuple = ()) -> dict:
            return self.pairs(
                f"SELECT {column}, count(*) FROM labels{where} GROUP BY {column} ORDER BY {column}",
                params,
            )

        in_chunking = (" WHERE chunking = ?", (chunking,))
        by_grade = {str(g): n for g, n in count_by("grade", *in_chunking).items()}
        by_reviewer = count_by("reviewer", *in_chunking)
        by_chunking = count_by("chunking")
        return {
            "chunking": chunking,
            "by_grade": by_grade,
            "by_reviewer": by_reviewer,
            "by_chunking": by_chunking,
        }
