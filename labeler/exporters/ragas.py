"""Ragas: ``ragas.jsonl`` and ``ragas.csv``, one sample per question; and, for a version holding
conversations, ``ragas_turns.jsonl``, one multi-turn sample per turn.

Each sample holds ``user_input`` (the question), ``reference`` (the reference answer, left out
when there is none, as Ragas does), ``reference_contexts`` (the texts of the chunks graded
``min_grade`` or more, best grade first, then by chunk id), ``reference_context_ids`` (their ids,
in the same order) and ``synthesizer_name`` (``labeler:<name>@v<N>``, which
``Testset.from_list`` requires and ``EvaluationDataset`` ignores).

Load with ``EvaluationDataset.from_jsonl("ragas.jsonl")`` or ``Testset.from_list(rows)``. In the
CSV, list columns hold JSON arrays (also valid Python literals, as Ragas' own CSVs have them);
text cells are neutralised against formulas as in every CSV we write (``labeler.spreadsheet``).

A turn of a conversation is a ``MultiTurnSample`` (Ragas' datasets hold one kind of sample, so
the turns have a file of their own, ``ragas_turns.jsonl``, for
``EvaluationDataset.from_jsonl``): ``user_input`` holds the conversation up to the turn, its
history's messages (``human``, ``ai``; a tool's message as an ``ai`` one with ``metadata.role``
``tool``, since Ragas wants a tool's message after the call, which we do not keep) then the
turn itself; ``reference`` is the turn's reference answer. A multi-turn sample has no context
fields, so the turn's message carries in its ``metadata`` what the single-turn sample holds
(``reference_contexts``, ``reference_context_ids``, their ``grades``) and where it stands
(``question_id``, ``conversation_id``, ``turn``, ``rewrite``, ``reference``, ``tags``,
``unanswerable``); the history's user messages say ``question_id: null`` (they are context,
not the sample's question). ``labeler import ragas`` reads all of it back.
"""

from __future__ import annotations

import json
from pathlib import Path

from labeler.conversations import by_conversation
from labeler.exporters.writing import csv_line, relevant_chunks, write_text
from labeler.models import Message, Question
from labeler.spreadsheet import text_cell
from labeler.versions.format import Version

JSONL = "ragas.jsonl"
CSV = "ragas.csv"
TURNS = "ragas_turns.jsonl"
MESSAGE_TYPES = {"user": "human", "assistant": "ai", "tool": "ai"}
COLUMNS = (
    "user_input",
    "reference",
    "reference_contexts",
    "reference_context_ids",
    "synthesizer_name",
)


def samples(version: Version, min_grade: int) -> list[dict]:
    """One single-turn sample per question that stands alone."""
    content = version.content
    rows = []
    for question_id in sorted(content.questions):
        question = content.questions[question_id]
        if question.turn is not None:
            continue
        relevant = relevant_chunks(version, question_id, min_grade)
        row = {"user_input": question.text}
        if question.reference_answer is not None:
            row["reference"] = question.reference_answer
        row["reference_contexts"] = [content.chunks[c].text for c, _ in relevant]
        row["reference_context_ids"] = [c for c, _ in relevant]
        row["synthesizer_name"] = f"labeler:{version.name}@v{version.number}"
        rows.append(row)
    return rows


def _message(message: Message, conversation: str) -> dict:
    if message.role == "user":
        metadata: dict = {"conversation_id": conversation, "question_id": None}
    else:
        metadata = {"role": "tool"} if message.role == "tool" else {}
    row = {"content": message.text, "type": MESSAGE_TYPES[message.role]}
    return row | ({"metadata": metadata} if metadata else {})


def turn_sample(version: Version, question: Question, min_grade: int) -> dict:
    """The multi-turn sample of one turn (see the module docstring)."""
    content = version.content
    turn = question.turn
    relevant = relevant_chunks(version, question.id, min_grade)
    metadata = {
        "question_id": question.id,
        "conversation_id": turn.conversation,
        "turn": turn.number,
        "rewrite": turn.rewrite,
        "reference": question.reference_answer,
        "reference_contexts": [content.chunks[c].text for c, _ in relevant],
        "reference_context_ids": [c for c, _ in relevant],
        "grades": [g for _, g in relevant],
        "tags": list(question.tags),
        "unanswerable": question.unanswerable,
    }
    messages = [_message(m, turn.conversation) for m in turn.history]
    messages.append({"content": question.text, "type": "human", "metadata": metadata})
    row: dict = {"user_input": messages}
    if question.reference_answer is not None:
        row["reference"] = question.reference_answer
    row["synthesizer_name"] = f"labeler:{version.name}@v{version.number}"
    return row


def turn_samples(version: Version, min_grade: int) -> list[dict]:
    """One multi-turn sample per turn, by conversation and turn."""
    questions = version.content.questions.values()
    return [
        turn_sample(version, q, min_grade)
        for turns in by_conversation(questions).values()
        for q in turns
    ]


def write(version: Version, out: Path, min_grade: int) -> list[Path]:
    jsonl, table = [], [csv_line(COLUMNS)]
    for row in samples(version, min_grade):
        jsonl.append(json.dumps(row, ensure_ascii=False) + "\n")
        cells = (
            row["user_input"],
            row.get("reference", ""),
            json.dumps(row["reference_contexts"], ensure_ascii=False),
            json.dumps(row["reference_context_ids"], ensure_ascii=False),
            row["synthesizer_name"],
        )
        table.append(csv_line(text_cell(c) for c in cells))
    written = [write_text(out / JSONL, "".join(jsonl)), write_text(out / CSV, "".join(table))]
    turns = turn_samples(version, min_grade)
    if turns:
        lines = [json.dumps(row, ensure_ascii=False) + "\n" for row in turns]
        written.append(write_text(out / TURNS, "".join(lines)))
    return written


__all__ = ["COLUMNS", "CSV", "JSONL", "TURNS", "samples", "turn_sample", "turn_samples", "write"]
