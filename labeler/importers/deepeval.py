"""Import DeepEval goldens: JSON (a list, as ``save_as("json")`` writes it), JSONL, or CSV
with list columns joined by ``|`` (as ``save_as("csv")`` writes them).

Read: ``input`` (the question), ``expected_output`` (the reference answer), ``context`` (the
ground-truth contexts the golden was generated from; ``retrieval_context`` is what some system
retrieved, so it is not used), ``additional_metadata`` (``evolutions`` become the
synthesizer; a ``question_id`` and ``chunk_ids``, as our own DeepEval export writes them, give
the question's id and match contexts by id). camelCase names (``expectedOutput``,
``additionalMetadata``) are accepted too.

Questions come in as generated and awaiting review, with generator ``deepeval``, the
evolutions the synthesizer recorded as their synthesizer (``Reasoning+Multi-context``), and
``additional_metadata`` kept for the review; their contexts are matched to chunks (see
``labeler.importers.contexts``).

A conversational golden (``ConversationalGolden``: ``scenario`` and ``turns``, each turn with
``role`` user or assistant, ``content``, ``retrieval_context`` and ``metadata``) is a
conversation: each user turn becomes a question said after the turns before it
(``labeler.conversations``). ``turns`` is read in every shape DeepEval writes it: a list of turn
objects (4.x JSON and JSONL), the same list as JSON text (4.x CSV), or DeepEval 3's
``user: text [retrieval_context: a≠b]|assistant: text`` (split as DeepEval 3 split it). A user
turn's contexts are its own ``retrieval_context``, else that of the assistant turn answering
it, else the golden's ``context`` (what the conversation was generated from); its reference
answer is the assistant turn answering it. The conversation's id is the golden's
``additional_metadata.conversation_id``, else derived from its scenario and turns (a ``name``
is a label, "Name 1", not an id); a
turn's metadata may hold what our own export writes there (``question_id``, ``turn``,
``rewrite``, ``reference_answer``, ``chunk_ids``, ``tags``, and ``role: tool`` for a tool's
message), which is read back. A golden without a user turn (a scenario to simulate) is
skipped and counted.
"""

from __future__ import annotations

import json
import re
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
    loads,
    require,
)
from labeler.store import Store

ID_PREFIX = "deepeval"
CONVERSATION_PREFIX = "deepeval-conversation"
GENERATOR = "deepeval"
CSV_SEPARATOR = "|"
# DeepEval 4 writes a retrieved context that names its source as this marker.
SOURCED = re.compile(r"^deepeval_source=(?P<source>.*?),deepeval_context=(?P<context>.*)$", re.S)


def _synthesizer(metadata: dict) -> str | None:
    """The evolutions DeepEval's synthesizer applied, "Reasoning+Multi-context"."""
    evolutions = metadata.get("evolutions")
    if isinstance(evolutions, str):
        evolutions = [evolutions]
    if isinstance(evolutions, list) and evolutions:
        return "+".join(str(e) for e in evolutions)
    return None


def read_deepeval(path: Path, skipped: list[int] | None = None) -> Iterator[GeneratedQuestion]:
    """The questions of a DeepEval file, one per user turn of a conversational golden; a
    conversational golden without a user turn is counted in ``skipped[0]``."""
    skipped = [0] if skipped is None else skipped
    separator = CSV_SEPARATOR if path.suffix.lower() == ".csv" else None
    keys = ("goldens", "test_cases", "conversational_goldens", "conversationalGoldens")
    for line, record in iter_items(path, list_keys=keys):
        if "turns" in record or ("scenario" in record and "input" not in record):
            turns = list(_conversation(record, path=path, line=line, separator=separator))
            skipped[0] += not turns
            yield from turns
            continue
        text = as_text(
            require(record, "input", path=path, line=line), path=path, line=line, field="input"
        ).strip()
        field, expected = first_of(record, ("expected_output", "expectedOutput"))
        reference = as_text(expected, path=path, line=line, field=field).strip() if field else None
        contexts = as_texts(
            record.get("context"), path=path, line=line, field="context", separator=separator
        )
        meta_field, raw_metadata = first_of(record, ("additional_metadata", "additionalMetadata"))
        metadata = as_object(raw_metadata, path=path, line=line, field=meta_field)
        chunk_ids = metadata.get("chunk_ids")
        if chunk_ids is not None and not isinstance(chunk_ids, list):
            msg = "expected a list of chunk ids"
            raise LabelerError(msg, path=path, line=line, field=f"{meta_field}.chunk_ids")
        ids = as_ids(chunk_ids, path=path, line=line, field=f"{meta_field}.chunk_ids")
        id_field, given = (
            (f"{meta_field}.question_id", metadata["question_id"])
            if metadata.get("question_id") not in (None, "")
            else first_of(record, ("id",))
        )
        question_id = (
            as_id(given, path=path, line=line, field=id_field)
            if id_field is not None
            else stable_id(ID_PREFIX, text)
        )
        yield GeneratedQuestion(
            line=line,
            id=question_id,
            text=text,
            reference=reference or None,
            generator=GENERATOR,
            contexts=tuple(contexts),
            context_ids=tuple(ids),
            synthesizer=_synthesizer(metadata),
            persona=str(metadata["persona"]) if metadata.get("persona") else None,
            metadata=metadata,
        )


def _pipe_turns(text: str) -> list[dict]:
    """DeepEval 3's ``role: content [retrieval_context: a≠b]|role: content``, split as its
    ``parse_turns`` split it (a part without ``": "`` is dropped, as it dropped it)."""
    turns = []
    for part in text.split("|"):
        role_content = part.split(": ", 1)
        if len(role_content) != 2:
            continue
        role, content = role_content
        contexts = None
        if "[" in content and " [" in content:
            content, listed = content.split(" [", 1)
            listed = listed.strip("[]").replace("retrieval_context: ", "")
            contexts = [c.strip() for c in listed.split("\u2260")]
        turns.append({"role": role, "content": content, "retrieval_context": contexts})
    return turns


def _turns(value: Any, *, path: Path, line: int) -> list[dict]:
    """The ``turns`` of a conversational golden, in any of DeepEval's shapes."""
    if value in (None, ""):
        return []
    if isinstance(value, str):
        value = (
            loads(value, path=path, line=line)
            if value.lstrip().startswith("[")
            else (_pipe_turns(value))
        )
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise LabelerError("expected a list of turns", path=path, line=line, field="turns")
    return value


def _contexts(value: Any, *, path: Path, line: int, field: str) -> list[str]:
    """A turn's retrieval context, DeepEval 4's source markers reduced to their text."""
    texts = as_texts(value, path=path, line=line, field=field)
    return [m.group("context") if (m := SOURCED.match(t)) else t for t in texts]


def _conversation(
    record: dict, *, path: Path, line: int, separator: str | None
) -> Iterator[GeneratedQuestion]:
    """One question per user turn of a conversational golden (see the module docstring)."""
    where = {"path": path, "line": line}
    turns = _turns(record.get("turns"), **where)
    meta_field, raw = first_of(record, ("additional_metadata", "additionalMetadata"))
    golden_metadata = as_object(raw, **where, field=meta_field)
    messages: list[tuple[Message, dict, list[str]]] = []
    for index, item in enumerate(turns):
        at = f"turns[{index}]"
        metadata = as_object(item.get("metadata"), **where, field=f"{at}.metadata")
        role = as_role(metadata.get("role") or item.get("role"), **where, field=f"{at}.role")
        content = as_text(item.get("content"), **where, field=f"{at}.content", blank=role != "user")
        key = "retrieval_context" if "retrieval_context" in item else "retrievalContext"
        contexts = _contexts(item.get(key), **where, field=f"{at}.{key}")
        messages.append((Message(role, content), metadata, contexts))
    users = [i for i, (m, _, _) in enumerate(messages) if m.role == "user"]
    if not users:
        return
    given = golden_metadata.get("conversation_id")
    conversation = (
        as_id(given, **where, field=f"{meta_field}.conversation_id")
        if given not in (None, "")
        else stable_id(
            CONVERSATION_PREFIX,
            json.dumps(
                [str(record.get("scenario"))] + [[m.role, m.text] for m, _, _ in messages],
                ensure_ascii=False,
            ),
        )
    )
    shared = as_texts(record.get("context"), **where, field="context", separator=separator)
    for count, index in enumerate(users, start=1):
        message, metadata, contexts = messages[index]
        if "question_id" in metadata and metadata["question_id"] is None:
            continue  # our export's context: a user turn that is not a question of it
        at = f"turns[{index}].metadata"
        answer = messages[index + 1] if index + 1 < len(messages) else None
        answer = answer if answer is not None and answer[0].role == "assistant" else None
        if not contexts and answer is not None:
            contexts = answer[2]
        number = as_int(metadata.get("turn", count), **where, field=f"{at}.turn", minimum=1)
        history = tuple(m for m, _, _ in messages[:index])
        check_history(history, number, **where, field=f"{at}.turn")
        if "reference_answer" in metadata:
            reference = as_text(
                metadata["reference_answer"], **where, field=f"{at}.reference_answer", optional=True
            )
        else:
            reference = answer[0].text if answer is not None else None
        given_id = metadata.get("question_id")
        rewrite = as_text(metadata.get("rewrite"), **where, field=f"{at}.rewrite", optional=True)
        ids = as_ids(metadata.get("chunk_ids"), **where, field=f"{at}.chunk_ids")
        yield GeneratedQuestion(
            line=line,
            id=as_id(given_id, **where, field=f"{at}.question_id")
            if given_id not in (None, "")
            else turn_id(conversation, number),
            text=message.text.strip(),
            reference=reference.strip() if reference and reference.strip() else None,
            generator=GENERATOR,
            contexts=tuple(contexts or shared),
            context_ids=tuple(ids),
            synthesizer=_synthesizer(golden_metadata),
            persona=None,
            metadata={
                k: v
                for k, v in (
                    ("conversation", conversation),
                    ("scenario", record.get("scenario")),
                    ("expected_outcome", record.get("expected_outcome")),
                )
                if v not in (None, "")
            },
            tags=tuple(as_tags(metadata.get("tags"), **where, field=f"{at}.tags")),
            turn=Turn(
                conversation=conversation,
                number=number,
                history=history,
                rewrite=rewrite.strip() if rewrite else None,
            ),
        )


def import_deepeval(
    store: Store,
    path: str | Path,
    *,
    chunking: str | None = None,
    tags: tuple[str, ...] = (),
) -> GeneratedImport:
    """DeepEval goldens as generated questions awaiting review, contexts matched to chunks."""
    path = check_file(path)
    skipped = [0]
    questions = list(read_deepeval(path, skipped))
    return write_generated(
        store, path, questions, kind="deepeval", chunking=chunking, tags=tags, multi_turn=skipped[0]
    )


__all__ = ["import_deepeval", "read_deepeval"]
