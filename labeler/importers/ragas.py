"""Import a Ragas test set: CSV, JSON or JSONL, as Ragas writes them.

Accepted columns: ``user_input`` (or the older ``question``), ``reference`` (or ``ground_truth``,
or the oldest ``ground_truths`` list), ``reference_contexts`` (or ``contexts``),
``reference_context_ids`` when present, ``synthesizer_name`` (or ``evolution_type``), and an
``id`` if the file has one. Lists may be JSON lists or, as in Ragas' CSVs, Python literals.
Rows of an annotated test set (``{"eval_sample": {...}, "synthesizer_name": ...}``) are read
too.

A multi-turn sample (``MultiTurnSample``: ``user_input`` a list of messages, each ``{"content",
"type": "human" | "ai" | "tool"}``) is a conversation: each human message becomes a question, a
turn said after the messages before it (``labeler.conversations``). Its conversation id is
derived from the sample's messages (so the same sample imported again is the same
conversation), its turns' ids ``<conversation>::<turn>``, and the sample's ``reference`` is the
reference answer of its last user turn. Ragas keeps no contexts on a multi-turn sample; a
message's ``metadata`` may hold what our own export writes there (``question_id``,
``conversation_id``, ``turn``, ``rewrite``, ``reference``, ``reference_contexts``,
``reference_context_ids``, ``tags``, and ``role: tool`` for a tool's message written as an AI
message), which is read back, so an exported version comes back with the same conversations.

Questions come in as generated and awaiting review, with generator ``ragas``, Ragas'
``synthesizer_name`` (spelling kept; the older ``evolution_type`` otherwise) as their
synthesizer, and ``persona_name``, ``query_style`` and ``query_length`` kept for the review;
their contexts are matched to chunks (see ``labeler.importers.contexts``).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from labeler.conversations import as_role, check_history, turn_id
from labeler.errors import LabelerError
from labeler.importers.generated import (
    GeneratedImport,
    GeneratedQuestion,
    stable_id,
    write_generated,
)
from labeler.models import Message, Turn
from labeler.readers import (
    as_id,
    as_ids,
    as_int,
    as_object,
    as_tags,
    as_text,
    as_texts,
    check_file,
    first_of,
    iter_items,
    parse_literal,
)
from labeler.store import Store

QUESTION_FIELDS = ("user_input", "question")
REFERENCE_FIELDS = ("reference", "ground_truth")
CONTEXT_FIELDS = ("reference_contexts", "contexts")
ID_PREFIX = "ragas"
CONVERSATION_PREFIX = "ragas-conversation"
GENERATOR = "ragas"
# Kept with the question for the review: how Ragas generated it (v0.3.9 on).
METADATA_FIELDS = ("query_style", "query_length")


def _is_multi_turn(value: object) -> bool:
    if isinstance(value, list):
        return True
    if isinstance(value, str) and value.lstrip().startswith("[{"):
        try:
            parsed = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return False
        return isinstance(parsed, list) and all(isinstance(m, dict) for m in parsed)
    return False


def _flatten(record: dict) -> dict:
    sample = record.get("eval_sample")
    if isinstance(sample, dict):
        return {**sample, **{k: v for k, v in record.items() if k != "eval_sample"}}
    return record


def read_ragas(path: Path, skipped: list[int]) -> Iterator[GeneratedQuestion]:
    """The questions of a Ragas file, one per user turn of a multi-turn sample; a sample
    without a user turn is counted in ``skipped[0]``."""
    for line, raw in iter_items(path, list_keys=("samples", "testset")):
        record = _flatten(raw)
        field, question = first_of(record, QUESTION_FIELDS)
        if field is None:
            msg = "no question (expected one of: " + ", ".join(QUESTION_FIELDS) + ")"
            raise LabelerError(msg, path=path, line=line, field="user_input")
        if _is_multi_turn(question):
            turns = list(_conversation(record, field, path=path, line=line))
            skipped[0] += not turns
            yield from turns
            continue
        text = as_text(question, path=path, line=line, field=field).strip()
        field, reference = first_of(record, REFERENCE_FIELDS)
        if field is not None:
            reference = as_text(reference, path=path, line=line, field=field).strip()
        elif record.get("ground_truths"):
            answers = as_texts(record["ground_truths"], path=path, line=line, field="ground_truths")
            reference = answers[0].strip() if answers else None
        field, contexts = first_of(record, CONTEXT_FIELDS)
        contexts = as_texts(contexts, path=path, line=line, field=field or CONTEXT_FIELDS[0])
        ids = as_ids(
            record.get("reference_context_ids"),
            path=path,
            line=line,
            field="reference_context_ids",
        )
        id_field, given_id = first_of(record, ("id", "question_id"))
        question_id = (
            as_id(given_id, path=path, line=line, field=id_field)
            if id_field is not None
            else stable_id(ID_PREFIX, text)
        )
        where = {"path": path, "line": line}
        synthesizer_field, synthesizer = first_of(record, ("synthesizer_name", "evolution_type"))
        synthesizer = as_text(synthesizer, **where, field=synthesizer_field, optional=True)
        _, persona = first_of(record, ("persona_name",))
        persona = as_text(persona, **where, field="persona_name", optional=True)
        yield GeneratedQuestion(
            line=line,
            id=question_id,
            text=text,
            reference=reference or None,
            generator=GENERATOR,
            contexts=tuple(contexts),
            context_ids=tuple(ids),
            synthesizer=synthesizer,
            persona=persona,
            metadata={k: record[k] for k in METADATA_FIELDS if record.get(k) not in (None, "")},
        )


def _messages(value: Any, *, path: Path, line: int, field: str) -> list[tuple[Message, dict]]:
    """A multi-turn sample's messages (a list, or its Python literal in a CSV cell), each with
    its metadata."""
    if isinstance(value, str):
        try:
            value = parse_literal(value.strip())
        except ValueError as error:
            msg = f"expected a list of messages and could not read it: {error}"
            raise LabelerError(msg, path=path, line=line, field=field) from None
    messages = []
    for index, item in enumerate(value):
        where = f"{field}[{index}]"
        if not isinstance(item, dict):
            raise LabelerError("expected a message object", path=path, line=line, field=where)
        metadata = as_object(item.get("metadata"), path=path, line=line, field=f"{where}.metadata")
        role = as_role(
            metadata.get("role") or item.get("type"), path=path, line=line, field=f"{where}.type"
        )
        content = item.get("content")
        if isinstance(content, dict):  # an AI message with tool calls, as Ragas' to_dict has it
            content = content.get("text")
        text = as_text(
            content, path=path, line=line, field=f"{where}.content", blank=role != "user"
        )
        messages.append((Message(role, text), metadata))
    return messages


def _conversation(
    record: dict, field: str, *, path: Path, line: int
) -> Iterator[GeneratedQuestion]:
    """One question per user message of a multi-turn sample (see the module docstring)."""
    where = {"path": path, "line": line}
    messages = _messages(record[field], **where, field=field)
    users = [i for i, (m, _) in enumerate(messages) if m.role == "user"]
    if not users:
        return
    given = next((md["conversation_id"] for _, md in messages if md.get("conversation_id")), None)
    conversation = (
        as_id(given, **where, field=f"{field}.metadata.conversation_id")
        if given is not None
        else stable_id(
            CONVERSATION_PREFIX,
            json.dumps([[m.role, m.text] for m, _ in messages], ensure_ascii=False),
        )
    )
    synthesizer = as_text(
        record.get("synthesizer_name"), **where, field="synthesizer_name", optional=True
    )
    persona = as_text(record.get("persona_name"), **where, field="persona_name", optional=True)
    sample_reference = as_text(record.get("reference"), **where, field="reference", optional=True)
    for count, index in enumerate(users, start=1):
        message, metadata = messages[index]
        if "question_id" in metadata and metadata["question_id"] is None:
            continue  # our export's history: context, not a question of the sample
        at = f"{field}[{index}].metadata"
        number = as_int(metadata.get("turn", count), **where, field=f"{at}.turn", minimum=1)
        question_id = metadata.get("question_id")
        question_id = (
            as_id(question_id, **where, field=f"{at}.question_id")
            if question_id not in (None, "")
            else turn_id(conversation, number)
        )
        if "reference" in metadata:
            reference = as_text(
                metadata["reference"], **where, field=f"{at}.reference", optional=True
            )
        else:
            reference = sample_reference if index == users[-1] else None
        rewrite = as_text(metadata.get("rewrite"), **where, field=f"{at}.rewrite", optional=True)
        contexts = as_texts(
            metadata.get("reference_contexts"), **where, field=f"{at}.reference_contexts"
        )
        ids = as_ids(
            metadata.get("reference_context_ids"), **where, field=f"{at}.reference_context_ids"
        )
        history = tuple(m for m, _ in messages[:index])
        check_history(history, number, **where, field=f"{at}.turn")
        yield GeneratedQuestion(
            line=line,
            id=question_id,
            text=message.text.strip(),
            reference=reference.strip() if reference else None,
            generator=GENERATOR,
            contexts=tuple(contexts),
            context_ids=tuple(ids),
            synthesizer=synthesizer,
            persona=persona,
            metadata={"conversation": conversation},
            tags=tuple(as_tags(metadata.get("tags"), **where, field=f"{at}.tags")),
            turn=Turn(
                conversation=conversation,
                number=number,
                history=history,
                rewrite=rewrite.strip() if rewrite else None,
            ),
        )


def import_ragas(
    store: Store,
    path: str | Path,
    *,
    chunking: str | None = None,
    tags: tuple[str, ...] = (),
) -> GeneratedImport:
    """A Ragas test set as generated questions awaiting review, contexts matched to chunks."""
    path = check_file(path)
    skipped = [0]
    questions = list(read_ragas(path, skipped))
    return write_generated(
        store, path, questions, kind="ragas", chunking=chunking, tags=tags, multi_turn=skipped[0]
    )


__all__ = ["import_ragas", "read_ragas"]
