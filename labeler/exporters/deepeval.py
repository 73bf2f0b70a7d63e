"""DeepEval: ``goldens.json``, a JSON list of goldens, one per question.

Each golden holds ``input`` (the question), ``expected_output`` (the reference answer or null),
``context`` (the texts of the chunks graded ``min_grade`` or more, best grade first, then by
chunk id) and ``additional_metadata``: ``question_id``, ``chunk_ids`` and ``grades`` (in the
order of ``context``), ``tags``, ``unanswerable`` and ``testset`` (``<name>@v<N>``).

Load with ``EvaluationDataset(goldens=[Golden(**g) for g in json.load(f)])`` or
``dataset.add_goldens_from_json_file(path, input_key_name="input", ...)``.

A version holding conversations also gets ``conversational_goldens.json`` (a DeepEval dataset
holds one kind of golden): one ``ConversationalGolden`` per conversation (``scenario``: its first
user message; ``name`` and ``additional_metadata.conversation_id``: its id), whose ``turns`` are
the conversation up to its last turn in the version, ``role`` user or assistant (a tool's
message as an assistant turn with ``metadata.role`` ``tool``). A user turn that is a question of
the version has its relevant chunks' texts as ``retrieval_context`` (best grade first) and in
its ``metadata`` the ``question_id``, ``turn``, ``rewrite``, ``reference_answer``,
``chunk_ids``, ``grades``, ``tags`` and ``unanswerable``; another user turn says
``question_id: null``. When the turns of a conversation were said after different histories
(imported from different files), each such turn gets a golden of its own. Load with
``EvaluationDataset(goldens=[ConversationalGolden(**g) for g in json.load(f)])``;
``labeler import deepeval`` reads it back.
"""

from __future__ import annotations

import json
from pathlib import Path

from labeler.conversations import by_conversation
from labeler.exporters.writing import relevant_chunks, write_text
from labeler.models import Message, Question
from labeler.versions.format import Version

FILE = "goldens.json"
CONVERSATIONS = "conversational_goldens.json"


def goldens(version: Version, min_grade: int) -> list[dict]:
    content = version.content
    rows = []
    for question_id in sorted(content.questions):
        question = content.questions[question_id]
        if question.turn is not None:
            continue
        relevant = relevant_chunks(version, question_id, min_grade)
        rows.append(
            {
                "input": question.text,
                "expected_output": question.reference_answer,
                "context": [content.chunks[c].text for c, _ in relevant],
                "additional_metadata": {
                    "question_id": question.id,
                    "chunk_ids": [c for c, _ in relevant],
                    "grades": [g for _, g in relevant],
                    "tags": list(question.tags),
                    "unanswerable": question.unanswerable,
                    "testset": f"{version.name}@v{version.number}",
                },
            }
        )
    return rows


def _spoken(question: Question) -> tuple[Message, ...]:
    return (*question.turn.history, Message("user", question.text))


def _chains(turns: list[Question]) -> list[list[Question]]:
    """A conversation's turns (in turn order) cut where one was not said after the messages of
    the one before: each chain is one golden."""
    chains: list[list[Question]] = []
    for question in turns:
        if chains:
            last = _spoken(chains[-1][-1])
            if _spoken(question)[: len(last)] == last:
                chains[-1].append(question)
                continue
        chains.append([question])
    return chains


def _turn(message: Message) -> dict:
    if message.role == "tool":
        return {"role": "assistant", "content": message.text, "metadata": {"role": "tool"}}
    turn = {"role": message.role, "content": message.text}
    return turn | ({"metadata": {"question_id": None}} if message.role == "user" else {})


def conversational_goldens(version: Version, min_grade: int) -> list[dict]:
    """One conversational golden per conversation (see the module docstring)."""
    content = version.content
    rows = []
    for conversation, turns in by_conversation(content.questions.values()).items():
        for chain in _chains(turns):
            spoken = _spoken(chain[-1])
            messages = [_turn(m) for m in spoken]
            ends = {len(_spoken(q)) - 1: q for q in chain}
            for at, question in ends.items():
                relevant = relevant_chunks(version, question.id, min_grade)
                messages[at] = {
                    "role": "user",
                    "content": question.text,
                    "retrieval_context": [content.chunks[c].text for c, _ in relevant],
                    "metadata": {
                        "question_id": question.id,
                        "turn": question.turn.number,
                        "rewrite": question.turn.rewrite,
                        "reference_answer": question.reference_answer,
                        "chunk_ids": [c for c, _ in relevant],
                        "grades": [g for _, g in relevant],
                        "tags": list(question.tags),
                        "unanswerable": question.unanswerable,
                    },
                }
            first = next(m.text for m in spoken if m.role == "user")
            rows.append(
                {
                    "scenario": first,
                    "name": conversation,
                    "turns": messages,
                    "additional_metadata": {
                        "conversation_id": conversation,
                        "testset": f"{version.name}@v{version.number}",
                    },
                }
            )
    return rows


def _json_list(rows: list[dict]) -> str:
    # One golden per line: readable in a diff, and encoded by json's fast (C) encoder, which
    # indent= would replace by the pure-Python one.
    lines = [json.dumps(g, ensure_ascii=False) for g in rows]
    return "[\n" + ",\n".join(lines) + "\n]\n" if lines else "[]\n"


def write(version: Version, out: Path, min_grade: int) -> list[Path]:
    written = [write_text(out / FILE, _json_list(goldens(version, min_grade)))]
    conversations = conversational_goldens(version, min_grade)
    if conversations:
        written.append(write_text(out / CONVERSATIONS, _json_list(conversations)))
    return written


__all__ = ["CONVERSATIONS", "FILE", "conversational_goldens", "goldens", "write"]
