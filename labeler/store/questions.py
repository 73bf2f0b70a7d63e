"""Questions, their tags, and the queue of work for a reviewer. A question that is a turn of a
conversation carries its ``Turn``, kept by ``store.conversations`` and written and read here with
the question."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import replace

from labeler.models import Question, Turn
from labeler.store.base import Database, Facet, now
from labeler.store.conversations import Conversations
from labeler.store.labels import Labels

QUESTION_FIELDS = (
    "text",
    "reference_answer",
    "tags",
    "origin",
    "generator",
    "source_chunk_ids",
    "review_status",
)


def _row_to_question(row: dict, turn: Turn | None = None) -> Question:
    return Question(
        id=row["id"],
        text=row["text"],
        reference_answer=row["reference_answer"],
        tags=tuple(json.loads(row["tags"])),
        origin=row["origin"],
        review_status=row["review_status"],
        generator=row["generator"],
        source_chunk_ids=tuple(json.loads(row["source_chunk_ids"])),
        turn=turn,
    )


def _stored_values(row: dict) -> dict:
    """A question row as the columns hold it, defaults filled in."""
    origin = row.get("origin", "human")
    return {
        "text": row["text"],
        "reference_answer": row.get("reference_answer"),
        "tags": json.dumps(sorted(set(row.get("tags") or ())), ensure_ascii=False),
        "origin": origin,
        "generator": row.get("generator"),
        "source_chunk_ids": json.dumps(list(row.get("source_chunk_ids") or ())),
        "review_status": row.get(
            "review_status", "pending" if origin == "generated" else "accepted"
        ),
    }


class Questions(Facet):
    """Questions and their tags; their turns through the conversations facet, in the same
    transaction. New text for a judged question makes its labels stale in the same transaction,
    so the facet holds the labels facet for that one write."""

    __slots__ = ("_labels", "_turns")

    def __init__(self, db: Database, labels: Labels, conversations: Conversations) -> None:
        super().__init__(db)
        self._labels = labels
        self._turns = conversations

    def upsert(self, rows: Sequence[dict], *, replace_text: bool = False) -> tuple[int, int]:
        """Insert new questions, update changed ones; returns (added, updated).

        A row holds ``id``, ``text`` and any of QUESTION_FIELDS (tags and source chunk ids as
        lists), ``turn`` (a ``Turn``) for a turn of a conversation, and may hold its ``line`` in
        its file. On update only the fields a row names are compared and written, so a file
        without reference answers does not erase the ones already stored (nor one without
        conversations the turns).

        A question whose text changes while labels, adjudications or an unanswerable mark hang
        on it is not changed in silence: without ``replace_text`` its row (and its turn) is left
        out and noted for ``take_text_changes`` (the importer then refuses the file); with it,
        the text is replaced and those judgements become stale (``Labels.make_questions_stale``).
        """
        if len({r["id"] for r in rows}) != len(rows):  # one id twice: row after row, in order
            with self.write():
                done = [self.upsert([row], replace_text=replace_text) for row in rows]
            return sum(a for a, _ in done), sum(u for _, u in done)
        stamp = now()
        added = updated = 0
        with self.write() as conn:
            rows = self._judged_text_changes(conn, rows, replace_text=replace_text)
            turns = [(r["id"], r["turn"]) for r in rows if r.get("turn") is not None]
            pending = self._turns.changed(turns)
            new_turns = {question_id for question_id, _ in pending}
            stored_rows = self._stored(r["id"] for r in rows)
            inserts: list[tuple] = []
            tag_rows: list[tuple[str, str]] = []
            for row in rows:
                values = _stored_values(row)
                old = stored_rows.get(row["id"])
                if old is None:
                    inserts.append((row["id"], *values.values(), stamp, stamp))
                    tag_rows += [(tag, row["id"]) for tag in json.loads(values["tags"])]
                    added += 1
                    continue
                stored = dict(zip(QUESTION_FIELDS, old, strict=True))
                new = {k: v for k, v in values.items() if k in row and stored[k] != v}
                if not new:
                    if row["id"] in new_turns:
                        conn.execute(
                            "UPDATE questions SET updated_at = ? WHERE id = ?", (stamp, row["id"])
                        )
                        updated += 1
                    continue
                assignments = ", ".join(f"{k} = ?" for k in new)
                conn.execute(
                    f"UPDATE questions SET {assignments}, updated_at = ? WHERE id = ?",
                    (*new.values(), stamp, row["id"]),
                )
                updated += 1
                if "tags" in new:
                    conn.execute("DELETE FROM question_tags WHERE question_id = ?", (row["id"],))
                    tag_rows += [(tag, row["id"]) for tag in json.loads(values["tags"])]
            # New questions in one statement (a file of 80,000 turns is one of 16 batches).
            conn.executemany(
                "INSERT INTO questions (id, " + ", ".join(QUESTION_FIELDS) + ","
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                inserts,
            )
            conn.executemany("INSERT INTO question_tags (tag, question_id) VALUES (?, ?)", tag_rows)
            self._turns.write_turns(pending)
        return added, updated

    def _stored(self, question_ids: Iterable[str]) -> dict[str, tuple]:
        """{id: its QUESTION_FIELDS as stored} of those of the questions that exist."""
        return {
            row[0]: tuple(row[1:])
            for row in self.conn.execute(
                "SELECT id, " + ", ".join(QUESTION_FIELDS) + " FROM questions"
                " WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(question_ids)),),
            )
        }

    def _judged_text_changes(
        self, conn: sqlite3.Connection, rows: Sequence[dict], *, replace_text: bool
    ) -> list[dict]:
        """``rows`` without those that would silently change the text of a judged question
        (with ``replace_text``: all of them, those judgements made stale); each such question
        is noted in temp.question_text_changes (id, line, labels, replaced)."""
        given = {row["id"]: row for row in rows if "text" in row}
        stored = self.pairs(
            "SELECT id, text FROM questions WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(given)),),
        )
        changed = [q for q, text in stored.items() if given[q]["text"] != text]
        judged = self._labels.judged_question_ids(changed) if changed else {}
        if not judged:
            return list(rows)
        conn.execute(
            "CREATE TEMP TABLE IF NOT EXISTS question_text_changes"
            " (question_id TEXT PRIMARY KEY, line INTEGER, labels INTEGER, replaced INTEGER)"
        )
        conn.executemany(
            "INSERT OR REPLACE INTO temp.question_text_changes VALUES (?, ?, ?, ?)",
            [(q, given[q].get("line"), n, int(replace_text)) for q, n in judged.items()],
        )
        if replace_text:
            self._labels.make_questions_stale(list(judged))
            return list(rows)
        return [row for row in rows if row["id"] not in judged]

    def take_text_changes(self) -> list[tuple[str, int | None, int, bool]]:
        """(question id, line, labels, replaced) of every judged question whose text
        ``upsert`` was given anew in this transaction, in file order: refused (``replaced``
        False) or replaced with its judgements made stale. Forgets them."""
        exists = "SELECT count(*) FROM temp.sqlite_master WHERE name = 'question_text_changes'"
        if not self.scalar(exists):
            return []
        rows = [
            (question_id, line, labels, bool(replaced))
            for question_id, line, labels, replaced in self.conn.execute(
                "SELECT question_id, line, labels, replaced FROM temp.question_text_changes"
                " ORDER BY line, question_id"
            )
        ]
        self.conn.execute("DELETE FROM temp.question_text_changes")
        return rows

    def get(self, question_id: str) -> Question | None:
        rows = self.query("SELECT * FROM questions WHERE id = ?", (question_id,))
        if not rows:
            return None
        return _row_to_question(rows[0], self._turns.get(question_id))

    def many(self, question_ids: Sequence[str]) -> dict[str, Question]:
        """{id: question} of those of ``question_ids`` that exist, turns with their turn."""
        listed = json.dumps(list(question_ids))
        rows = self.query(
            "SELECT * FROM questions WHERE id IN (SELECT value FROM json_each(?))", (listed,)
        )
        turns = self._turns.of(r["id"] for r in rows)
        return {r["id"]: _row_to_question(r, turns.get(r["id"])) for r in rows}

    def with_turns(self, questions: Iterable[Question]) -> list[Question]:
        """``questions`` (built from other rows, an export's say) with their stored turns."""
        questions = list(questions)
        turns = self._turns.of(q.id for q in questions)
        return [replace(q, turn=turns[q.id]) if q.id in turns else q for q in questions]

    def ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM questions ORDER BY id")]

    def accepted_ids(self, *, tag: str | None = None) -> list[str]:
        """Questions in the grading queue (accepted ones: generated questions wait for review),
        by id; only those tagged ``tag`` when given."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT id FROM questions WHERE review_status = 'accepted' AND (:tag IS NULL"
                " OR id IN (SELECT question_id FROM question_tags WHERE tag = :tag)) ORDER BY id",
                {"tag": tag},
            )
        ]

    def count(self) -> int:
        return int(self.scalar("SELECT count(*) FROM questions"))

    def count_by_status(self) -> dict[str, int]:
        """{review status: questions} (pending, accepted, rejected; those with any)."""
        return self.pairs("SELECT review_status, count(*) FROM questions GROUP BY review_status")

    def all_tags(self) -> list[tuple[str, int]]:
        return [
            (r[0], r[1])
            for r in self.conn.execute(
                "SELECT tag, count(*) FROM question_tags GROUP BY tag ORDER BY tag"
            )
        ]

    def queue(
        self,
        chunking: str,
        reviewer: str,
        *,
        tag: str | None = None,
        include_done: bool = True,
    ) -> list[dict]:
        """The reviewer's work list: ungraded first, then partly graded, then done; by id.

        Only accepted questions are graded; generated ones wait for review first. Each row
        says ``state``: ``todo``, ``started``, ``skipped`` or ``done``, and for a turn its
        ``conversation`` and ``turn`` (None for a question that stands alone).
        """
        rows = self.query(
            """
            SELECT q.id, q.text, t.conversation AS conversation, t.turn AS turn,
                CASE
                    WHEN p.complete = 1 THEN 'done'
                    WHEN m.skipped = 1 THEN 'skipped'
                    WHEN coalesce(p.graded, 0) > 0 THEN 'started'
                    ELSE 'todo'
                END AS state,
                coalesce(p.graded, 0) AS graded, p.pool_size AS pool_size
            FROM questions q
            LEFT JOIN progress p
                ON p.question_id = q.id AND p.chunking = :chunking AND p.reviewer = :reviewer
            LEFT JOIN question_marks m
                ON m.question_id = q.id AND m.chunking = :chunking AND m.reviewer = :reviewer
            LEFT JOIN question_turns t ON t.question_id = q.id
            WHERE q.review_status = 'accepted'
              AND (:tag IS NULL
                   OR q.id IN (SELECT question_id FROM question_tags WHERE tag = :tag))
            ORDER BY CASE state WHEN 'started' THEN 0 WHEN 'todo' THEN 1
                                WHEN 'skipped' THEN 2 ELSE 3 END, q.id
            """,
            {"chunking": chunking, "reviewer": reviewer, "tag": tag},
        )
        if not include_done:
            rows = [r for r in rows if r["state"] != "done"]
        return rows

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        return {
            r[0]
            for r in self.conn.execute(
                "SELECT id FROM questions WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(ids)),),
            )
        }

    def tag_map(self) -> dict[str, list[str]]:
        """{question id: its tags} for every question with a tag."""
        found: dict[str, list[str]] = {}
        for tag, question_id in self.conn.execute(
            "SELECT tag, question_id FROM question_tags ORDER BY tag"
        ):
            found.setdefault(question_id, []).append(tag)
        return found

    def texts(self, ids: Sequence[str]) -> dict[str, str]:
        return dict(
            self.conn.execute(
                "SELECT id, text FROM questions WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(ids)),),
            )
        )
