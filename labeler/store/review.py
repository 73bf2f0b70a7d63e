"""Generated questions under review: how each was generated, its review state, and the
append-only history of every decision, edit and undo.

A decision names the revision of the question it was made on; inside the write transaction
(``BEGIN IMMEDIATE``, so two reviewers queue rather than race) a revision that moved on means
someone else decided or edited the question meanwhile: ``ConflictError``, nothing written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from labeler.errors import ConflictError, LabelerError, NotFoundError
from labeler.store.base import Facet, now
from labeler.store.labels import LABEL_KEY, append_event

STATUSES = ("pending", "accepted", "rejected")
DECISIONS = ("accept", "reject")
EVENT_COLUMNS = (
    "id",
    "question_id",
    "reviewer",
    "action",
    "old_status",
    "new_status",
    "reason",
    "note",
    "old_text",
    "new_text",
    "old_reference",
    "new_reference",
    "sources",
    "undoes",
    "batch",
    "seconds",
    "at",
)
# The label_events action of a grade given by confirming a question's sources on accept.
SOURCE_LABEL_ACTION = "review:sources"


def _event(row: dict) -> dict:
    row = dict(row)
    row["sources"] = json.loads(row["sources"]) if row.get("sources") else []
    return row


class Reviews(Facet):
    __slots__ = ()

    # how questions were generated -------------------------------------------------------------

    def save_generation(
        self,
        question_id: str,
        *,
        synthesizer: str | None,
        persona: str | None,
        metadata: Mapping | None,
        contexts: Sequence[tuple[str, str, str, Sequence[str], float | None]],
    ) -> None:
        """Replace what is known of how a question was generated: its synthesizer, persona,
        other metadata, and its contexts as (text, chunking, how matched, chunk ids, score)."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO question_generation (question_id, synthesizer, persona, metadata)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (question_id) DO UPDATE SET"
                " synthesizer = excluded.synthesizer, persona = excluded.persona,"
                " metadata = excluded.metadata"
                " WHERE question_generation.synthesizer IS NOT excluded.synthesizer"
                " OR question_generation.persona IS NOT excluded.persona"
                " OR question_generation.metadata IS NOT excluded.metadata",
                (
                    question_id,
                    synthesizer,
                    persona,
                    json.dumps(dict(metadata or {}), ensure_ascii=False, sort_keys=True),
                ),
            )
            rows = [
                (question_id, position, text, chunking, how, json.dumps(list(ids)), score)
                for position, (text, chunking, how, ids, score) in enumerate(contexts, start=1)
            ]
            stored = conn.execute(
                "SELECT question_id, position, text, chunking, how, chunk_ids, score"
                " FROM question_contexts WHERE question_id = ? ORDER BY position",
                (question_id,),
            ).fetchall()
            if [tuple(r) for r in stored] == rows:
                return
            conn.execute("DELETE FROM question_contexts WHERE question_id = ?", (question_id,))
            conn.executemany(
                "INSERT INTO question_contexts (question_id, position, text, chunking, how,"
                " chunk_ids, score) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    def generation(self, question_id: str) -> dict:
        """{"synthesizer", "persona", "metadata"} of a question (Nones and {} when unknown)."""
        rows = self.query(
            "SELECT synthesizer, persona, metadata FROM question_generation WHERE question_id = ?",
            (question_id,),
        )
        if not rows:
            return {"synthesizer": None, "persona": None, "metadata": {}}
        row = rows[0]
        row["metadata"] = json.loads(row["metadata"])
        return row

    def question_contexts(self, question_id: str) -> list[dict]:
        """The contexts a question was generated from, in order, each with its match."""
        rows = self.query(
            "SELECT position, text, chunking, how, chunk_ids, score FROM question_contexts"
            " WHERE question_id = ? ORDER BY position",
            (question_id,),
        )
        for row in rows:
            row["chunk_ids"] = json.loads(row["chunk_ids"])
        return rows

    # review state -----------------------------------------------------------------------------

    def state(self, question_id: str) -> dict:
        """The question's status and review record; ``revision`` 0 when never reviewed."""
        rows = self.query(
            "SELECT q.id, q.origin, q.review_status AS status, q.text, q.reference_answer,"
            " coalesce(r.revision, 0) AS revision, r.decided_by, r.decided_at, r.reason,"
            " r.note, r.original_text, r.original_reference, r.edited_by, r.edited_at"
            " FROM questions q LEFT JOIN question_reviews r ON r.question_id = q.id"
            " WHERE q.id = ?",
            (question_id,),
        )
        if not rows:
            msg = f"unknown question {question_id!r}"
            raise NotFoundError(msg, field="question_id")
        return rows[0]

    def states(self, question_ids: Iterable[str]) -> dict[str, dict]:
        """``review_state`` of many questions at once; unknown ids are left out."""
        rows = self.query(
            "SELECT q.id, q.origin, q.review_status AS status, q.text, q.reference_answer,"
            " coalesce(r.revision, 0) AS revision, r.decided_by, r.decided_at, r.reason, r.note"
            " FROM questions q LEFT JOIN question_reviews r ON r.question_id = q.id"
            " WHERE q.id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(question_ids)),),
        )
        return {row["id"]: row for row in rows}

    def _reviewable_state(self, question_id: str, expected_revision: int | None) -> dict:
        """The review state of a generated question about to change, refusing a stale page
        (another reviewer decided since ``expected_revision``) and a question with no review."""
        state = self.state(question_id)
        self._check_revision(state, expected_revision)
        if state["origin"] != "generated":
            msg = f"question {question_id} is not a generated question: there is no review"
            raise LabelerError(msg, field="question_id")
        return state

    def _check_revision(self, state: dict, expected: int | None) -> None:
        if expected is None or state["revision"] == expected:
            return
        last = self.query(
            "SELECT reviewer, action, at FROM review_events WHERE question_id = ?"
            " AND action IN ('accept', 'reject', 'edit', 'undo') ORDER BY id DESC LIMIT 1",
            (state["id"],),
        )
        who = (
            f"{last[0]['reviewer']} ({last[0]['action']}, {last[0]['at'][:16]} UTC)" if last else ""
        )
        msg = (
            f"question {state['id']} changed since you opened it: {who or 'someone'} decided"
            " or edited it first; nothing was saved. It now shows their version."
        )
        raise ConflictError(msg, field="question_id")

    def _bump(self, question_id: str, assignments: Mapping[str, object]) -> int:
        """Create or update the question's review record, one revision further."""
        columns = ", ".join(assignments)
        marks = ", ".join("?" for _ in assignments)
        updates = "".join(f", {c} = excluded.{c}" for c in assignments)
        self.conn.execute(
            f"INSERT INTO question_reviews (question_id, revision{', ' if columns else ''}"
            f"{columns}) VALUES (?, 1{', ' if marks else ''}{marks})"
            f" ON CONFLICT (question_id) DO UPDATE SET revision = revision + 1{updates}",
            (question_id, *assignments.values()),
        )
        return int(
            self.scalar(
                "SELECT revision FROM question_reviews WHERE question_id = ?", (question_id,)
            )
        )

    def _append(self, question_id: str, reviewer: str, action: str, at: str, **values) -> int:
        columns = ["question_id", "reviewer", "action", "at", *values]
        cursor = self.conn.execute(
            f"INSERT INTO review_events ({', '.join(columns)})"
            f" VALUES ({', '.join('?' for _ in columns)})",
            (question_id, reviewer, action, at, *values.values()),
        )
        return int(cursor.lastrowid)

    def record_decision(
        self,
        question_id: str,
        reviewer: str,
        status: str,
        *,
        expected_revision: int | None = None,
        reason: str | None = None,
        note: str | None = None,
        sources: Sequence[str] = (),
        batch: str | None = None,
        seconds: float | None = None,
        at: str | None = None,
    ) -> int:
        """Set a generated question's review status, as ``reviewer``; returns the new revision.

        Raises ConflictError when ``expected_revision`` is given and is not the current one.
        Deciding what is already decided the same way (same reason and note) changes nothing.
        """
        if status not in ("accepted", "rejected"):
            msg = f"expected accepted or rejected, got {status!r}"
            raise LabelerError(msg, field="status")
        stamp = at or now()
        with self.write():
            state = self._reviewable_state(question_id, expected_revision)
            if (state["status"], state["reason"], state["note"]) == (status, reason, note) and not (
                sources
            ):
                return state["revision"]
            self.conn.execute(
                "UPDATE questions SET review_status = ?, updated_at = ? WHERE id = ?",
                (status, stamp, question_id),
            )
            revision = self._bump(
                question_id,
                {"decided_by": reviewer, "decided_at": stamp, "reason": reason, "note": note},
            )
            self._append(
                question_id,
                reviewer,
                "accept" if status == "accepted" else "reject",
                stamp,
                old_status=state["status"],
                new_status=status,
                reason=reason,
                note=note,
                sources=json.dumps(list(sources)) if sources else None,
                batch=batch,
                seconds=seconds,
            )
        return revision

    def record_edit(
        self,
        question_id: str,
        reviewer: str,
        *,
        text: str,
        reference: str | None,
        expected_revision: int | None = None,
        seconds: float | None = None,
    ) -> int:
        """Replace a generated question's text and reference answer, keeping the original (the
        first version) in its review record and the change in the history."""
        stamp = now()
        with self.write():
            state = self._reviewable_state(question_id, expected_revision)
            if (state["text"], state["reference_answer"]) == (text, reference):
                return state["revision"]
            self.conn.execute(
                "UPDATE questions SET text = ?, reference_answer = ?, updated_at = ? WHERE id = ?",
                (text, reference, stamp, question_id),
            )
            revision = self._bump(question_id, {"edited_by": reviewer, "edited_at": stamp})
            self.conn.execute(
                "UPDATE question_reviews SET original_text = coalesce(original_text, ?),"
                " original_reference = CASE WHEN original_text IS NULL THEN ?"
                " ELSE original_reference END WHERE question_id = ?",
                (state["text"], state["reference_answer"], question_id),
            )
            self._append(
                question_id,
                reviewer,
                "edit",
                stamp,
                old_status=state["status"],
                new_status=state["status"],
                old_text=state["text"],
                new_text=text,
                old_reference=state["reference_answer"],
                new_reference=reference,
                seconds=seconds,
            )
        return revision

    def record_skip(self, question_id: str, reviewer: str, *, seconds: float | None) -> None:
        """A skip changes nothing but the history (and the time it took to decide to skip)."""
        with self.write():
            state = self.state(question_id)
            self._append(
                question_id,
                reviewer,
                "skip",
                now(),
                old_status=state["status"],
                new_status=state["status"],
                seconds=seconds,
            )

    # history and undo -------------------------------------------------------------------------

    def history(self, question_id: str) -> list[dict]:
        """Every decision, edit, undo and skip on the question, oldest first."""
        rows = self.query(
            f"SELECT {', '.join(EVENT_COLUMNS)} FROM review_events WHERE question_id = ?"
            " ORDER BY id",
            (question_id,),
        )
        return [_event(r) for r in rows]

    def last_undoable(self, reviewer: str) -> list[dict]:
        """The reviewer's last decision or edit that is not undone yet: one event, or every
        event of its batch."""
        rows = self.query(
            f"SELECT {', '.join(EVENT_COLUMNS)} FROM review_events e"
            " WHERE reviewer = ? AND action IN ('accept', 'reject', 'edit')"
            " AND NOT EXISTS (SELECT 1 FROM review_events u WHERE u.undoes = e.id)"
            " ORDER BY id DESC LIMIT 1",
            (reviewer,),
        )
        if not rows or rows[0]["batch"] is None:
            return [_event(r) for r in rows]
        batch = self.query(
            f"SELECT {', '.join(EVENT_COLUMNS)} FROM review_events e"
            " WHERE batch = ? AND reviewer = ?"
            " AND NOT EXISTS (SELECT 1 FROM review_events u WHERE u.undoes = e.id) ORDER BY id",
            (rows[0]["batch"], reviewer),
        )
        return [_event(r) for r in batch]

    def revert_event(self, event: dict, reviewer: str, chunking: str) -> dict:
        """Undo one decision or edit: put back what it changed, withdraw the grades it gave,
        and append an ``undo`` event. Raises ConflictError when the question changed after it
        (someone else's decision or edit came later); returns the new review state."""
        stamp = now()
        question_id = event["question_id"]
        with self.write():
            later = self.query(
                "SELECT reviewer, action, at FROM review_events WHERE question_id = ? AND id > ?"
                " AND action IN ('accept', 'reject', 'edit', 'undo') ORDER BY id LIMIT 1",
                (question_id, event["id"]),
            )
            if later:
                msg = (
                    f"cannot undo on question {question_id}: {later[0]['reviewer']} changed it"
                    f" since ({later[0]['action']}, {later[0]['at'][:16].replace('T', ' ')} UTC)"
                )
                raise ConflictError(msg, field="question_id")
            state = self.state(question_id)
            if event["action"] == "edit":
                self.conn.execute(
                    "UPDATE questions SET text = ?, reference_answer = ?, updated_at = ?"
                    " WHERE id = ?",
                    (event["old_text"], event["old_reference"], stamp, question_id),
                )
                edits = self.scalar(
                    "SELECT count(*) FROM review_events e WHERE question_id = ?"
                    " AND action = 'edit' AND id != ?"
                    " AND NOT EXISTS (SELECT 1 FROM review_events u WHERE u.undoes = e.id)",
                    (question_id, event["id"]),
                )
                self._bump(question_id, {})
                if not edits:
                    self.conn.execute(
                        "UPDATE question_reviews SET original_text = NULL,"
                        " original_reference = NULL, edited_by = NULL, edited_at = NULL"
                        " WHERE question_id = ?",
                        (question_id,),
                    )
            else:
                previous = self._previous_decision(question_id, event["id"])
                self.conn.execute(
                    "UPDATE questions SET review_status = ?, updated_at = ? WHERE id = ?",
                    (event["old_status"], stamp, question_id),
                )
                self._bump(
                    question_id,
                    {
                        "decided_by": previous.get("reviewer"),
                        "decided_at": previous.get("at"),
                        "reason": previous.get("reason"),
                        "note": previous.get("note"),
                    },
                )
                self._withdraw_source_grades(question_id, chunking, event, reviewer, stamp)
            self._append(
                question_id,
                reviewer,
                "undo",
                stamp,
                old_status=state["status"],
                new_status=event["old_status"],
                old_text=state["text"] if event["action"] == "edit" else None,
                new_text=event["old_text"] if event["action"] == "edit" else None,
                undoes=event["id"],
            )
        return self.state(question_id)

    def _previous_decision(self, question_id: str, before: int) -> dict:
        rows = self.query(
            "SELECT reviewer, at, reason, note FROM review_events e WHERE question_id = ?"
            " AND id < ? AND action IN ('accept', 'reject')"
            " AND NOT EXISTS (SELECT 1 FROM review_events u WHERE u.undoes = e.id)"
            " ORDER BY id DESC LIMIT 1",
            (question_id, before),
        )
        return rows[0] if rows else {}

    def _withdraw_source_grades(
        self, question_id: str, chunking: str, event: dict, reviewer: str, stamp: str
    ) -> None:
        """The grades an accept gave to the question's sources, withdrawn with a history row,
        when they are still exactly as that accept left them."""
        for chunk_id in event["sources"]:
            last = self.conn.execute(
                "SELECT action, new_grade FROM label_events WHERE question_id = ?"
                " AND chunking = ? AND chunk_id = ? AND reviewer = ? ORDER BY id DESC LIMIT 1",
                (question_id, chunking, chunk_id, event["reviewer"]),
            ).fetchone()
            if last is None or tuple(last) != (SOURCE_LABEL_ACTION, 2):
                continue
            self.conn.execute(
                f"DELETE FROM labels WHERE {LABEL_KEY}",
                (question_id, chunking, chunk_id, event["reviewer"]),
            )
            append_event(
                self.conn,
                question_id,
                chunking,
                chunk_id,
                event["reviewer"],
                "review:undo",
                at=stamp,
                old_grade=2,
                new_grade=None,
                note=f"withdrawn by {reviewer}'s undo of the accept",
            )

    # stats ------------------------------------------------------------------------------------

    def counts(self, by: str) -> list[dict]:
        """Generated questions per status, grouped by ``generator``, ``synthesizer`` or
        ``persona``: [{"value", "pending", "accepted", "rejected"}]."""
        column = {
            "generator": "q.generator",
            "synthesizer": "g.synthesizer",
            "persona": "g.persona",
        }[by]
        return self.query(
            f"SELECT {column} AS value,"
            " sum(q.review_status = 'pending') AS pending,"
            " sum(q.review_status = 'accepted') AS accepted,"
            " sum(q.review_status = 'rejected') AS rejected"
            " FROM questions q LEFT JOIN question_generation g ON g.question_id = q.id"
            f" WHERE q.origin = 'generated' GROUP BY {column} ORDER BY count(*) DESC, value"
        )

    def status_counts(self) -> dict[str, int]:
        """Generated questions per review status (from the queue's copy: an index count)."""
        return self.pairs("SELECT status, count(*) FROM review_queue GROUP BY status")

    def reject_reasons(self) -> dict[str, int]:
        """Rejected generated questions per reason of their current decision."""
        return self.pairs(
            "SELECT coalesce(r.reason, 'unknown'), count(*) FROM questions q"
            " LEFT JOIN question_reviews r ON r.question_id = q.id"
            " WHERE q.origin = 'generated' AND q.review_status = 'rejected'"
            " GROUP BY 1 ORDER BY 2 DESC, 1"
        )

    def decision_seconds(self) -> list[float]:
        """How long each decision made on the review page took, from showing the question."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT seconds FROM review_events WHERE action IN ('accept', 'reject')"
                " AND seconds IS NOT NULL AND batch IS NULL ORDER BY seconds"
            )
        ]

    def decisions_by_reviewer(self) -> dict[str, int]:
        return self.pairs(
            "SELECT reviewer, count(*) FROM review_events e WHERE action IN"
            " ('accept', 'reject')"
            " AND NOT EXISTS (SELECT 1 FROM review_events u WHERE u.undoes = e.id)"
            " GROUP BY reviewer ORDER BY 2 DESC, 1"
        )


__all__ = ["DECISIONS", "SOURCE_LABEL_ACTION", "STATUSES", "Reviews"]
