"""A turn of a conversation as the grading page shows it: the conversation before it, turn by
turn, with the chunks graded 2 for each earlier turn; and how its pool's search is asked.

The earlier turns come from the turn's own history (the messages said before it, as its file
gave them); an earlier turn the project holds as a question of its own is linked to it, with
the chunks any reviewer graded 2 for it (current labels). A follow-up is often answered by a
passage an earlier turn found, so the page also marks those chunks among the turn's
candidates (``answered``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from labeler.conversations import check_search, search_choices
from labeler.errors import LabelerError, NotFoundError
from labeler.models import Chunk, Grade, Message, Question, Turn
from labeler.store import Store


@dataclass(frozen=True, slots=True)
class EarlierTurn:
    """One turn before the one being graded: what the user said (``number`` 0 for messages
    before the user's first, a greeting say), the replies after it, and, when the project
    holds that turn as a question, its id and the chunks graded 2 for it."""

    number: int
    text: str | None
    replies: tuple[Message, ...]
    question_id: str | None = None
    answers: tuple[Chunk, ...] = ()


@dataclass(frozen=True, slots=True)
class ConversationView:
    question: Question
    earlier: tuple[EarlierTurn, ...]
    # Chunk id -> the earlier turns it was graded 2 for.
    answered: dict[str, tuple[int, ...]]

    @property
    def messages(self) -> int:
        return len(self.question.turn.history) if self.question.turn else 0


def earlier_turns(turn: Turn) -> list[EarlierTurn]:
    """A turn's history cut into the turns before it: each user message with the messages
    after it (messages before the user's first under turn 0), numbered back from the turn (a
    history cut short starts after a later turn). Nothing of what the project holds."""
    number = turn.number - sum(1 for m in turn.history if m.role == "user") - 1
    found: list[tuple[int, str | None, list[Message]]] = []
    for message in turn.history:
        if message.role == "user":
            number += 1
            found.append((number, message.text, []))
        elif found:
            found[-1][2].append(message)
        else:
            found.append((0, None, [message]))
    return [EarlierTurn(n, text, tuple(replies)) for n, text, replies in found]


def conversation_view(store: Store, question: Question, chunking: str) -> ConversationView:
    """The conversation before ``question`` (a turn), turn by turn, with what was graded 2
    for each earlier turn the project holds."""
    if question.turn is None:
        return ConversationView(question, (), {})
    siblings = dict(store.conversations.turns(question.turn.conversation))
    earlier: list[EarlierTurn] = []
    answered: dict[str, list[int]] = {}
    for before in earlier_turns(question.turn):
        question_id = siblings.get(before.number) if before.number else None
        if question_id is None or question_id == question.id:
            earlier.append(before)
            continue
        ids = sorted(
            {
                row["chunk_id"]
                for row in store.labels.question_labels(question_id, chunking)
                if row["state"] == "current" and row["grade"] == Grade.ANSWERS
            }
        )
        found = store.corpus.get_chunks(chunking, ids)
        answers = tuple(found[c] for c in ids if c in found)
        for chunk in answers:
            answered.setdefault(chunk.id, []).append(before.number)
        earlier.append(replace(before, question_id=question_id, answers=answers))
    return ConversationView(question, tuple(earlier), {c: tuple(n) for c, n in answered.items()})


def set_search(store: Store, question_id: str, choice: str | None) -> bool:
    """Choose how a turn's pool is searched (None: the default); True if it changed. The
    pool's search is redone when the question is next opened (its key holds the query)."""
    question = store.questions.get(question_id)
    if question is None:
        raise NotFoundError(f"unknown question {question_id!r}", field="question_id")
    if question.turn is None:
        msg = f"question {question_id!r} is not a turn of a conversation: its search is its text"
        raise LabelerError(msg, field="search")
    if choice is not None and check_search(choice) not in search_choices(question):
        msg = f"turn {question_id!r} has no {choice!r} to search with (it has no rewrite)"
        raise LabelerError(msg, field="search")
    return store.conversations.set_search(question_id, choice)


__all__ = [
    "ConversationView",
    "EarlierTurn",
    "conversation_view",
    "earlier_turns",
    "set_search",
]
