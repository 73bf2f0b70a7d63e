"""Questions that are turns of a conversation: which conversation, which turn, the messages
before it, its rewrite, and how its pool's search is asked (``labeler.conversations``).

A turn is written with its question (``store.questions.upsert`` hands it here, in the same
transaction) and read with it (``store.questions.get`` and the bulk readers below), so every
``Question`` that is a turn carries its ``Turn``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from labeler.errors import LabelerError, shown
from labeler.models import Message, Turn
from labeler.store.base import Facet


def _history_json(turn: Turn) -> str:
    return json.dumps([[m.role, m.text] for m in turn.history], ensure_ascii=False)


def _turn(row: Sequence) -> Turn:
    """A Turn from (conversation, turn, history, rewrite, search)."""
    conversation, number, history, rewrite, search = row
    return Turn(
        conversation=conversation,
        number=number,
        history=tuple(Message(role, text) for role, text in json.loads(history)),
        rewrite=rewrite,
        search=search,
    )


_COLUMNS = "conversation, turn, history, rewrite, search"


class Conversations(Facet):
    __slots__ = ()

    def changed(self, turns: Sequence[tuple[str, Turn]]) -> list[tuple[str, Turn]]:
        """Those of the (question id, turn) pairs that are new or differ from the stored turn
        (a reviewer's search choice aside)."""
        if not turns:
            return []
        stored = self.of([question_id for question_id, _ in turns])
        return [
            (question_id, turn)
            for question_id, turn in turns
            if question_id not in stored or _content(stored[question_id]) != _content(turn)
        ]

    def save(self, turns: Sequence[tuple[str, Turn]]) -> set[str]:
        """Write the turns of these (existing) questions, new or changed; returns the question
        ids whose turn changed (a reviewer's search choice is kept). A turn of a conversation
        that is already another question is an error naming both."""
        return self.write_turns(self.changed(turns))

    def write_turns(self, changed: Sequence[tuple[str, Turn]]) -> set[str]:
        """Write turns ``changed`` found new or changed (``save`` without the comparison)."""
        if not changed:
            return set()
        with self.write() as conn:
            wanted = json.dumps([[t.conversation, t.number] for _, t in changed])
            holders = {
                (conversation, number): question_id
                for conversation, number, question_id in conn.execute(
                    "SELECT t.conversation, t.turn, t.question_id FROM json_each(?) j"
                    " JOIN question_turns t ON t.conversation = json_extract(j.value, '$[0]')"
                    " AND t.turn = json_extract(j.value, '$[1]')",
                    (wanted,),
                )
            }
            for question_id, turn in changed:
                key = (turn.conversation, turn.number)
                holder = holders.setdefault(key, question_id)
                if holder is not None and holder != question_id:
                    msg = (
                        f"turn {turn.number} of conversation {shown(turn.conversation)} is"
                        f" already question {shown(holder)}, not {shown(question_id)}"
                    )
                    raise LabelerError(msg, field="turn")
            conn.executemany(
                "INSERT INTO question_turns (question_id, conversation, turn, history, rewrite)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (question_id) DO UPDATE SET"
                " conversation = excluded.conversation, turn = excluded.turn,"
                " history = excluded.history, rewrite = excluded.rewrite",
                [(q, t.conversation, t.number, _history_json(t), t.rewrite) for q, t in changed],
            )
        return {question_id for question_id, _ in changed}

    def get(self, question_id: str) -> Turn | None:
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM question_turns WHERE question_id = ?", (question_id,)
        ).fetchone()
        return None if row is None else _turn(row)

    def of(self, question_ids: Iterable[str]) -> dict[str, Turn]:
        """{question id: its turn} for those of the questions that are turns."""
        return {
            row[0]: _turn(row[1:])
            for row in self.conn.execute(
                f"SELECT question_id, {_COLUMNS} FROM question_turns"
                " WHERE question_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(question_ids)),),
            )
        }

    def all(self) -> dict[str, Turn]:
        """{question id: its turn} for every question that is a turn."""
        return {
            row[0]: _turn(row[1:])
            for row in self.conn.execute(f"SELECT question_id, {_COLUMNS} FROM question_turns")
        }

    def turns(self, conversation: str) -> list[tuple[int, str]]:
        """(turn number, question id) of a conversation's turns, in turn order."""
        return [
            (number, question_id)
            for number, question_id in self.conn.execute(
                "SELECT turn, question_id FROM question_turns WHERE conversation = ? ORDER BY turn",
                (conversation,),
            )
        ]

    def set_search(self, question_id: str, search: str | None) -> bool:
        """Keep how the turn's pool is searched (None: the default); True if it changed."""
        with self.write() as conn:
            return (
                conn.execute(
                    "UPDATE question_turns SET search = ? WHERE question_id = ?"
                    " AND search IS NOT ?",
                    (search, question_id, search),
                ).rowcount
                > 0
            )

    def counts(self) -> dict[str, int]:
        """How many conversations and turns the project holds."""
        row = self.conn.execute(
            "SELECT count(DISTINCT conversation), count(*) FROM question_turns"
        ).fetchone()
        return {"conversations": row[0], "turns": row[1]}


def _content(turn: Turn) -> tuple:
    return (turn.conversation, turn.number, turn.history, turn.rewrite)


__all__ = ["Conversations"]
