"""Conversations: the rules a question that is a turn of a conversation follows, in one place.

A turn is a question (``labeler.models.Question``) whose ``turn`` says which conversation it
belongs to, its number among the user's turns (1 for the first), the messages said before it and,
when known, a standalone rewrite. Everything else a question does (grading, pools, review,
remap, export, eval, label next, the judge audit) a turn does by its question id.

- **Ids.** A turn's id is ``<conversation>::<turn>`` (MTRAG's convention, ``turn_id``) unless
  the file gives one.
- **Roles.** A message is said by the ``user``, the ``assistant`` or a ``tool``; the names other
  tools give them (MTRAG's ``agent``, Ragas' ``human`` and ``ai``) are read as these.
- **In files.** Wherever we write a turn (a version's ``questions.jsonl``, BEIR's queries) it
  is one object under ``conversation``: ``{"id", "turn", "history": [{"role", "text"}],
  "rewrite"}`` (``turn_record``), read back by ``read_turn``.
- **The pool's search.** A follow-up such as "and in the sandbox?" finds nothing on its own, so
  the full-text search of a turn's pool is asked one of the ``SEARCH_CHOICES``: its rewrite
  when it has one, else the turn with the previous user turn (``default_search``); a reviewer
  may choose another for a turn, kept as ``Turn.search``.
- **Order.** A conversation's turns stay together, in turn order (``order_key``): the grading
  queue, the exports and the breakdowns follow it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from labeler.errors import LabelerError, shown
from labeler.models import Message, Question, Turn
from labeler.readers import as_id, as_int, as_text

ROLES = ("user", "assistant", "tool")
# The names files give the speakers, as our roles: MTRAG (user, agent), Ragas (human, ai, tool),
# DeepEval (user, assistant).
ROLE_NAMES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "agent": "assistant",
    "ai": "assistant",
    "tool": "tool",
}
SEPARATOR = "::"
# The tags (``<name>:<value>``) that say what kind of turn a turn is, by which an evaluation of
# conversations is broken down (``labeler.metrics.breakdown``); ``labeler import mtrag`` names
# MTRAG's answerability, Question Type and Multi-Turn so.
BREAKDOWN_TAGS = ("answerability", "question-type", "multi-turn")


def turn_id(conversation: str, number: int) -> str:
    """The id of a conversation's turn when the file gives none: ``<conversation>::<turn>``."""
    return f"{conversation}{SEPARATOR}{number}"


def as_role(value: Any, *, path: str | Path | None, line: int | None, field: str) -> str:
    """A speaker's name, as one of ``ROLES``."""
    if isinstance(value, str) and value.strip().lower() in ROLE_NAMES:
        return ROLE_NAMES[value.strip().lower()]
    msg = f"expected one of {', '.join(ROLE_NAMES)}, got {shown(str(value))}"
    raise LabelerError(msg, path=path, line=line, field=field)


def user_texts(question: Question) -> list[str]:
    """What the user said up to and including this turn, oldest first (the question's text
    alone for a question that stands alone)."""
    if question.turn is None:
        return [question.text]
    return [m.text for m in question.turn.history if m.role == "user"] + [question.text]


def is_first_turn(question: Question) -> bool:
    return question.turn is not None and question.turn.number == 1


# the pool's search ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SearchChoice:
    """One way to ask the full-text search for a turn's pool: ``text(question)`` is the query,
    or None when the turn has nothing for it (no rewrite)."""

    name: str
    title: str
    text: Callable[[Question], str | None]


def _rewrite(question: Question) -> str | None:
    return question.turn.rewrite if question.turn is not None else None


def _with_previous(question: Question) -> str:
    return "\n".join(user_texts(question)[-2:])


SEARCH_CHOICES: dict[str, SearchChoice] = {
    choice.name: choice
    for choice in (
        SearchChoice("rewrite", "its standalone rewrite", _rewrite),
        SearchChoice("previous", "the turn with the previous user turn", _with_previous),
        SearchChoice("turn", "the turn alone", lambda q: q.text),
        SearchChoice("conversation", "every user turn so far", lambda q: "\n".join(user_texts(q))),
    )
}


def search_choices(question: Question) -> list[str]:
    """The choices a turn offers (the rewrite only when it has one); none for a question that
    stands alone, whose search is its text."""
    if question.turn is None:
        return []
    return [name for name, choice in SEARCH_CHOICES.items() if choice.text(question)]


def default_search(question: Question) -> str:
    return "rewrite" if _rewrite(question) else "previous"


def search_choice(question: Question) -> str | None:
    """How the turn's pool is searched: the choice made for it if it still applies, else the
    default. None for a question that stands alone."""
    if question.turn is None:
        return None
    chosen = question.turn.search
    return chosen if chosen in search_choices(question) else default_search(question)


def search_text(question: Question) -> str:
    """The query of the question's full-text search: its text, or for a turn the text of its
    search choice."""
    choice = search_choice(question)
    if choice is None:
        return question.text
    return SEARCH_CHOICES[choice].text(question) or question.text


def standalone_text(question: Question) -> str:
    """What the question asks, read alone: its text, or for a turn its rewrite, else the turn
    with the previous user turn (the default search). What near-duplicates are found among:
    "How long do I wait then?" in two conversations asks two things."""
    if question.turn is None:
        return question.text
    return SEARCH_CHOICES[default_search(question)].text(question) or question.text


def prompt_text(question: Question) -> str:
    """The question as a judge reads it: its text, or for a turn the conversation before it,
    the turn and its rewrite, as the grading page shows them. A judge given "And in the
    sandbox?" alone cannot know what is asked; and the text, which keys the judge's cache, then
    tells apart the same words said in two conversations."""
    turn = question.turn
    if turn is None or not (turn.history or turn.rewrite):
        return question.text  # a first turn without a rewrite asks what it says
    lines = []
    if turn.history:
        lines.append(f"Conversation before the question (turn {turn.number}):")
        lines += [f"{message.role}: {message.text}" for message in turn.history]
        lines.append("")
    lines.append(f"Question: {question.text}")
    if turn.rewrite:
        lines.append(f"Standalone rewrite of the question: {turn.rewrite}")
    return "\n".join(lines)


def check_search(name: str) -> str:
    if name not in SEARCH_CHOICES:
        msg = f"unknown search {name!r}; choose one of: {', '.join(SEARCH_CHOICES)}"
        raise LabelerError(msg, field="search")
    return name


# in files ----------------------------------------------------------------------------------


def turn_record(turn: Turn) -> dict:
    """A turn as our files hold it (under a question's ``conversation``)."""
    return {
        "id": turn.conversation,
        "turn": turn.number,
        "history": [{"role": m.role, "text": m.text} for m in turn.history],
        "rewrite": turn.rewrite,
    }


def check_history(
    history: tuple[Message, ...],
    number: int,
    *,
    path: str | Path | None,
    line: int | None,
    field: str,
) -> None:
    """A turn's history holds at most the ``number - 1`` user turns before it (fewer when a
    file keeps only the last messages)."""
    users = sum(1 for m in history if m.role == "user")
    if users > number - 1:
        msg = f"turn {number} comes after {users} user messages: expected at most {number - 1}"
        raise LabelerError(msg, path=path, line=line, field=field)


def read_messages(
    value: Any, *, path: str | Path | None, line: int | None, field: str, start: int = 0
) -> tuple[Message, ...]:
    """A list of ``{"role", "text"}`` objects (``speaker``/``type`` and ``content`` accepted
    as the other tools name them); ``start``: the list's place in a longer one, for the
    field an error names."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise LabelerError("expected a list of messages", path=path, line=line, field=field)
    messages = []
    for index, item in enumerate(value, start=start):
        where = f"{field}[{index}]"
        if not isinstance(item, dict):
            raise LabelerError("expected a message object", path=path, line=line, field=where)
        role_key = next((k for k in ("role", "speaker", "type") if k in item), "role")
        text_key = next((k for k in ("text", "content") if k in item), "text")
        role = as_role(item.get(role_key), path=path, line=line, field=f"{where}.{role_key}")
        text = as_text(
            item.get(text_key), path=path, line=line, field=f"{where}.{text_key}", blank=True
        )
        messages.append(Message(role, text))
    return tuple(messages)


def read_turn(
    value: Any, *, path: str | Path | None, line: int | None, field: str = "conversation"
) -> Turn | None:
    """A turn as ``turn_record`` writes it; None when the field is missing or null."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise LabelerError(
            "expected an object: id, turn, history, rewrite", path=path, line=line, field=field
        )
    where = {"path": path, "line": line}
    number = as_int(value.get("turn"), **where, field=f"{field}.turn", minimum=1)
    if number is None:
        raise LabelerError("missing", **where, field=f"{field}.turn")
    history = read_messages(value.get("history"), **where, field=f"{field}.history")
    check_history(history, number, **where, field=f"{field}.turn")
    rewrite = as_text(value.get("rewrite"), **where, field=f"{field}.rewrite", optional=True)
    return Turn(
        conversation=as_id(value.get("id"), **where, field=f"{field}.id"),
        number=number,
        history=history,
        rewrite=rewrite.strip() if rewrite else None,
    )


# order ---------------------------------------------------------------------------------------


def order_key(question_id: str, turn: Turn | None) -> tuple[str, int, str]:
    """Questions in id order, a conversation's turns together in turn order where its first
    turn would sort (``conv::10`` after ``conv::9``, not after ``conv::1``)."""
    if turn is None:
        return (question_id, 0, question_id)
    return (turn.conversation, turn.number, question_id)


def by_conversation(questions: Iterable[Question]) -> dict[str, list[Question]]:
    """The turns among ``questions``, by conversation (in id order), each in turn order."""
    found: dict[str, list[Question]] = {}
    for question in questions:
        if question.turn is not None:
            found.setdefault(question.turn.conversation, []).append(question)
    return {
        conversation: sorted(turns, key=lambda q: q.turn.number)
        for conversation, turns in sorted(found.items())
    }


class TurnRegister:
    """The turns a file has named so far, to refuse a second question for one turn of a
    conversation (naming the line of the first)."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self._seen: dict[tuple[str, int], tuple[int, str]] = {}

    def add(self, line: int, question_id: str, turn: Turn) -> None:
        key = (turn.conversation, turn.number)
        first = self._seen.setdefault(key, (line, question_id))
        if first[1] != question_id:
            msg = (
                f"turn {turn.number} of conversation {shown(turn.conversation)} is also question"
                f" {shown(first[1])} (line {first[0]})"
            )
            raise LabelerError(msg, path=self.path, line=line, field="turn")


def check_unique_turns(rows: Iterable[tuple[int, str, Turn]], *, path: str | Path) -> None:
    """One question per turn of a conversation in a file: (line, question id, turn) rows."""
    register = TurnRegister(path)
    for line, question_id, turn in rows:
        register.add(line, question_id, turn)


def same_turn(a: Turn | None, b: Turn | None) -> bool:
    """Whether two turns are the same turn of the same conversation, said after the same
    messages, with the same rewrite (a reviewer's search choice aside)."""
    if a is None or b is None:
        return a is b
    return (a.conversation, a.number, a.history, a.rewrite) == (
        b.conversation,
        b.number,
        b.history,
        b.rewrite,
    )


def describe_turn(turn: Turn | None) -> str:
    """ "turn 3 of c1, after 4 messages, rewrite 'Which ...'" (or "none"), for one line of
    text."""
    if turn is None:
        return "none"
    text = f"turn {turn.number} of {turn.conversation}, after {len(turn.history)} messages"
    if turn.rewrite:
        text += f", rewrite {shown(turn.rewrite)}"
    return text


def turns_of(questions: Mapping[str, Question]) -> dict[str, int]:
    """{question id: turn number} of the questions that are turns."""
    return {q: question.turn.number for q, question in questions.items() if question.turn}


__all__ = [
    "BREAKDOWN_TAGS",
    "ROLES",
    "ROLE_NAMES",
    "SEARCH_CHOICES",
    "SEPARATOR",
    "SearchChoice",
    "TurnRegister",
    "as_role",
    "by_conversation",
    "check_history",
    "check_search",
    "check_unique_turns",
    "default_search",
    "describe_turn",
    "is_first_turn",
    "order_key",
    "prompt_text",
    "read_messages",
    "read_turn",
    "same_turn",
    "search_choice",
    "search_choices",
    "search_text",
    "standalone_text",
    "turn_id",
    "turn_record",
    "turns_of",
    "user_texts",
]
