"""Import MTRAG task files: IBM's multi-turn RAG benchmark (github.com/IBM/mt-rag-benchmark),
one JSON object per line, one line per turn of a conversation.

Each line becomes a question that is a turn (``labeler.conversations``):

- ``conversation_id`` and ``turn`` (a number, or its digits as text) place it; its id is
  ``task_id`` (``<conversation>::<turn>``, or MTRAG-UN's ``<conversation><::><turn>``), else
  ``<conversation>::<turn>``;
- ``input`` holds the messages up to and including the turn (``speaker`` ``user`` or
  ``agent``, ``text``): the last, a user's, is the question, the others its history;
- ``targets`` (the agent's answer) is the reference answer;
- the tags are the turn's own: ``answerability``, ``Question Type``, ``Multi-Turn``,
  ``Standalone Type``, ``Validity``, ``Ambiguity Type`` and ``Collection``, from the line (or,
  where the line has none, the last input message's ``enrichments``), one tag per value,
  named ``<field>:<value>`` with the field lower-cased and its spaces made dashes
  (``question-type:Factoid``, ``multi-turn:Follow-up``). MTRAG writes a missing one as a bare
  ``NaN``, which is not JSON: this importer, and no other reader, takes it for missing
  (``labeler.readers.jsonfiles``); anywhere else on the line it is still an error;
- ``contexts`` (``document_id``, ``text``, ``title``) are passages: each becomes a chunk of the
  chunking named (``--chunking``, default the current one), or is matched by id to the chunk
  already there (one with another text is a conflict, not an overwrite);
- ``feedback.relevant.<annotator>.value`` becomes that annotator's label of the passage:
  ``yes`` 2 and ``no`` 0 (MTRAG's labels are binary), or as ``--feedback`` maps them
  (``yes:1,no:0``; ``skip`` leaves a value out). A passage without feedback joins the turn's
  candidates, to be graded.

MTRAG ships its standalone rewrites in its retrieval tasks (``<domain>_rewrite.jsonl``:
``{"_id": "<conversation><::><turn>", "text": "|user|: ..."}``): ``--rewrites FILE`` gives each
turn its rewrite (ids matched with either separator, the ``|user|:`` prefix dropped; rows for
turns not in the task file are counted and left).

One transaction: a bad line anywhere writes nothing. As with ``labeler import testset``, the
turns' grading progress is not recomputed here (a full-text search per turn); the grading
page does it when a turn is opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from labeler.conversations import TurnRegister, check_history, read_messages, turn_id
from labeler.errors import LabelerError, shown
from labeler.importers.staging import keyed, lines_named
from labeler.models import ImportReport, Turn
from labeler.readers import (
    MISSING,
    Progress,
    as_id,
    as_int,
    as_name,
    as_tags,
    as_text,
    check_file,
    empty_file,
    iter_jsonl,
)
from labeler.store import Store, check_reviewer

TAG_FIELDS = (
    "answerability",
    "Question Type",
    "Multi-Turn",
    "Standalone Type",
    "Validity",
    "Ambiguity Type",
    "Collection",
)
DEFAULT_FEEDBACK = "yes:2,no:0"
REWRITE_PREFIX = "|user|:"
MTRAG_SEPARATOR = "<::>"
CHUNK_BATCH = 20_000
QUESTION_BATCH = 5_000


@dataclass(frozen=True, slots=True)
class Context:
    chunk_id: str
    text: str
    title: str | None
    # (annotator, grade) for each annotator who judged it (a value mapped to skip left out).
    grades: tuple[tuple[str, int], ...]
    judged: bool


@dataclass(frozen=True, slots=True)
class Task:
    line: int
    id: str
    text: str
    reference: str | None
    tags: tuple[str, ...]
    turn: Turn
    contexts: tuple[Context, ...]


def tag_name(field: str) -> str:
    """``Question Type`` -> ``question-type``: the tag's name for one of MTRAG's fields."""
    return "-".join(field.lower().split())


def parse_feedback(text: str | None) -> dict[str, int | None]:
    """``"yes:2,no:0"`` -> {"yes": 2, "no": 0}; ``skip`` leaves a value out."""
    mapping: dict[str, int | None] = {}
    for part in (text or DEFAULT_FEEDBACK).split(","):
        value, _, grade = part.partition(":")
        value, grade = value.strip().lower(), grade.strip().lower()
        if not value or grade not in ("0", "1", "2", "skip"):
            msg = (
                f"expected VALUE:GRADE pairs like yes:2,no:0 (grade 0, 1, 2 or skip); got {part!r}"
            )
            raise LabelerError(msg, field="feedback")
        mapping[value] = None if grade == "skip" else int(grade)
    return mapping


def _tags(record: dict, enrichments: Any, *, path: Path, line: int) -> list[str]:
    """The turn's tags (see the module docstring); MTRAG's bare NaN is a missing tag."""
    found: dict[str, None] = {}
    enrichments = enrichments if isinstance(enrichments, dict) else {}
    for field in TAG_FIELDS:
        key = next((k for k in (field, field.lower()) if k in record), None)
        value = record[key] if key is not None else enrichments.get(field)
        if value is None or value is MISSING:
            continue
        values = as_tags(
            value if isinstance(value, list) else [value], path=path, line=line, field=key or field
        )
        found.update(dict.fromkeys(f"{tag_name(field)}:{v}" for v in values))
    return list(found)


def _contexts(
    value: Any, feedback: dict[str, int | None], prefix: str, *, path: Path, line: int
) -> tuple[Context, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise LabelerError("expected a list of passages", path=path, line=line, field="contexts")
    found: dict[str, Context] = {}
    for index, item in enumerate(value):
        at = f"contexts[{index}]"
        where = {"path": path, "line": line}
        if not isinstance(item, dict):
            raise LabelerError("expected a passage object", **where, field=at)
        chunk_id = as_id(item.get("document_id"), **where, field=f"{at}.document_id")
        text = as_text(item.get("text"), **where, field=f"{at}.text")
        title = as_text(item.get("title"), **where, field=f"{at}.title", optional=True)
        relevant = (
            (item.get("feedback") or {}).get("relevant")
            if isinstance(item.get("feedback"), dict)
            else None
        )
        grades: list[tuple[str, int]] = []
        judged = False
        for annotator, verdict in (relevant or {}).items():
            field = f"{at}.feedback.relevant.{annotator}.value"
            raw = verdict.get("value") if isinstance(verdict, dict) else None
            answer = as_text(raw, **where, field=field).strip().lower()
            if answer not in feedback:
                msg = f"expected one of {', '.join(feedback)} (see --feedback), got {shown(raw)}"
                raise LabelerError(msg, **where, field=field)
            judged = True
            if feedback[answer] is not None:
                grades.append((check_reviewer(prefix + annotator), feedback[answer]))
        context = Context(chunk_id, text, title, tuple(grades), judged)
        first = found.get(chunk_id)
        if first is not None and (first.text, dict(first.grades)) != (text, dict(grades)):
            msg = f"passage {shown(chunk_id)} is listed twice, with another text or feedback"
            raise LabelerError(msg, **where, field=f"{at}.document_id")
        found[chunk_id] = context
    return tuple(found.values())


def read_task(
    record: dict, feedback: dict[str, int | None], prefix: str, *, path: Path, line: int
) -> Task:
    """One line of a task file (see the module docstring)."""
    where = {"path": path, "line": line}
    conversation = as_id(record.get("conversation_id"), **where, field="conversation_id")
    number = as_int(record.get("turn"), **where, field="turn", minimum=1)
    if number is None:
        raise LabelerError("missing", **where, field="turn")
    messages = read_messages(record.get("input"), **where, field="input")
    if not messages or messages[-1].role != "user":
        msg = "expected the messages up to the turn, the last one the user's"
        raise LabelerError(msg, **where, field="input")
    history, last = messages[:-1], messages[-1]
    check_history(history, number, **where, field="turn")
    text = as_text(last.text, **where, field=f"input[{len(messages) - 1}].text").strip()
    task_id = record.get("task_id")
    question_id = (
        as_id(task_id, **where, field="task_id")
        if task_id not in (None, "")
        else turn_id(conversation, number)
    )
    targets = read_messages(record.get("targets"), **where, field="targets")
    answers = [m.text.strip() for m in targets if m.role == "assistant" and m.text.strip()]
    enrichments = (record.get("input") or [{}])[-1].get("enrichments")
    return Task(
        line=line,
        id=question_id,
        text=text,
        reference="\n\n".join(answers) or None,
        tags=tuple(_tags(record, enrichments, **where)),
        turn=Turn(conversation=conversation, number=number, history=history),
        contexts=_contexts(record.get("contexts"), feedback, prefix, **where),
    )


def read_tasks(
    path: Path, feedback: dict[str, int | None], prefix: str, progress: Progress | None = None
) -> Iterator[Task]:
    register = TurnRegister(path)
    seen: dict[str, int] = {}
    for line, record in iter_jsonl(path, progress, nan_as_missing=True):
        task = read_task(record, feedback, prefix, path=path, line=line)
        if task.id in seen:
            msg = f"task {shown(task.id)} is also on line {seen[task.id]}"
            raise LabelerError(msg, path=path, line=line, field="task_id")
        seen[task.id] = line
        register.add(line, task.id, task.turn)
        yield task


def normal_id(value: str) -> str:
    """A task id with MTRAG's BEIR separator ``<::>`` written ``::``."""
    return value.replace(MTRAG_SEPARATOR, "::")


def read_rewrites(path: str | Path) -> dict[str, str]:
    """{turn id (``::``): rewrite} of an MTRAG rewrite file (BEIR queries)."""
    path = check_file(path)
    found: dict[str, str] = {}
    for line, record in iter_jsonl(path):
        key = "_id" if "_id" in record else "id"
        rewrite = as_text(record.get("text"), path=path, line=line, field="text").strip()
        if rewrite.startswith(REWRITE_PREFIX):
            rewrite = rewrite[len(REWRITE_PREFIX) :].strip()
        found[normal_id(as_id(record.get(key), path=path, line=line, field=key))] = rewrite
    return found


def _write_chunks(store: Store, path: Path, tasks: list[Task], chunking: str) -> ImportReport:
    """Every passage as a chunk, or matched by id to the chunk already there."""
    passages: dict[str, tuple[Context, int]] = {}
    for task in tasks:
        for context in task.contexts:
            first = passages.setdefault(context.chunk_id, (context, task.line))
            if first[0].text != context.text:
                msg = f"passage {shown(context.chunk_id)} has another text than on line {first[1]}"
                raise LabelerError(msg, path=path, line=task.line, field="contexts")
    ids = list(passages)
    stored: dict[str, Any] = {}
    for start in range(0, len(ids), CHUNK_BATCH):
        stored.update(store.corpus.get_chunks(chunking, ids[start : start + CHUNK_BATCH]))
    for chunk_id, chunk in stored.items():
        context, line = passages[chunk_id]
        if chunk.text != context.text:
            msg = (
                f"passage {shown(chunk_id)} is already chunk {shown(chunk_id)} of chunking"
                f" {shown(chunking)}, with another text; import into another chunking with"
                " --chunking NAME"
            )
            raise LabelerError(msg, path=path, line=line, field="contexts")
    new = [
        {"id": c.chunk_id, "text": c.text, "title": c.title}
        for chunk_id, (c, _) in passages.items()
        if chunk_id not in stored
    ]
    added = 0
    for start in range(0, len(new), CHUNK_BATCH):
        added += store.corpus.upsert_chunks(chunking, new[start : start + CHUNK_BATCH])[0]
    return ImportReport(
        "passages",
        str(path),
        added=added,
        unchanged=len(stored),
        detail=f"chunking {chunking!r}" + (f", {len(stored)} already there" if stored else ""),
    )


def _write_questions(
    store: Store, path: Path, tasks: list[Task], tags: tuple[str, ...]
) -> ImportReport:
    rows = [
        {
            "id": t.id,
            "text": t.text,
            "reference_answer": t.reference,
            "tags": sorted({*t.tags, *tags}),
            "turn": t.turn,
        }
        for t in tasks
    ]
    added = updated = 0
    try:
        for start in range(0, len(rows), QUESTION_BATCH):
            a, u = store.questions.upsert(rows[start : start + QUESTION_BATCH])
            added, updated = added + a, updated + u
    except LabelerError as error:
        if error.path is not None:
            raise
        raise LabelerError(error.message, path=path, field=error.field) from None
    conversations = len({t.turn.conversation for t in tasks})
    return ImportReport(
        "turns",
        str(path),
        added=added,
        updated=updated,
        unchanged=len(rows) - added - updated,
        detail=f"{conversations} conversation{'' if conversations == 1 else 's'}",
    )


def _write_labels(store: Store, path: Path, tasks: list[Task], chunking: str) -> list[ImportReport]:
    """Each annotator's feedback as their labels, through the staged checks of every label
    import (without the per-question progress, see the module docstring)."""
    by_annotator: dict[str, list[tuple[int, str, str, int]]] = {}
    for task in tasks:
        for context in task.contexts:
            for annotator, grade in context.grades:
                by_annotator.setdefault(annotator, []).append(
                    (task.line, task.id, context.chunk_id, grade)
                )
    reports = []
    for annotator, lines in sorted(by_annotator.items()):
        store.labels.stage_labels(keyed(lines))
        with lines_named():
            store.labels.check_staged_labels(chunking, str(path))
        added, updated, unchanged = store.labels.merge_staged_labels(chunking, annotator)
        reports.append(
            ImportReport(
                "feedback",
                str(path),
                added=added,
                updated=updated,
                unchanged=unchanged,
                detail=f"reviewer {annotator!r}",
            )
        )
    return reports


def _add_unjudged(
    store: Store, path: Path, tasks: list[Task], chunking: str
) -> ImportReport | None:
    """Passages nobody judged join their turn's candidates, to be graded."""
    added = total = 0
    for task in tasks:
        unjudged = [c.chunk_id for c in task.contexts if not c.judged]
        if unjudged:
            total += len(unjudged)
            added += store.pools.add(
                task.id, chunking, unjudged, source="suggested", added_by="import:mtrag"
            )
    if not total:
        return None
    return ImportReport(
        "candidates",
        str(path),
        added=added,
        unchanged=total - added,
        detail="passages without feedback",
    )


def _with_rewrites(tasks: list[Task], rewrites: dict[str, str]) -> tuple[list[Task], int]:
    """The tasks, each with its turn's rewrite when ``rewrites`` has one; and how many did."""
    matched = 0
    out = []
    for task in tasks:
        rewrite = rewrites.get(normal_id(task.id))
        if rewrite:
            matched += 1
            task = replace(task, turn=replace(task.turn, rewrite=rewrite))
        out.append(task)
    return out, matched


def import_mtrag(
    store: Store,
    path: str | Path,
    *,
    chunking: str | None = None,
    feedback: str | None = None,
    rewrites: str | None = None,
    annotator_prefix: str | None = None,
    tags: tuple[str, ...] = (),
    progress: Progress | None = None,
) -> list[ImportReport]:
    """An MTRAG task file (see the module docstring), in one transaction."""
    path = check_file(path)
    mapping = parse_feedback(feedback)
    prefix = annotator_prefix or ""
    tasks = list(read_tasks(path, mapping, prefix, progress))
    if not tasks:
        raise empty_file(path, "tasks")
    found = read_rewrites(rewrites) if rewrites else {}
    tasks, matched = _with_rewrites(tasks, found)
    chunking = as_name(chunking or store.corpus.current_chunking(), what="chunking")
    with store.write():
        store.corpus.ensure_chunking(chunking, source=str(path))
        reports = [_write_chunks(store, path, tasks, chunking)]
        turns = _write_questions(store, path, tasks, tags)
        if rewrites:
            left = len(found) - matched
            turns = replace(
                turns,
                detail=f"{turns.detail}; {matched} with a rewrite from {Path(rewrites).name}"
                + (f", whose {left} other rows name turns not in this file" if left else ""),
            )
        reports.append(turns)
        reports += _write_labels(store, path, tasks, chunking)
        unjudged = _add_unjudged(store, path, tasks, chunking)
        if unjudged is not None:
            reports.append(unjudged)
    return reports


__all__ = [
    "DEFAULT_FEEDBACK",
    "TAG_FIELDS",
    "Context",
    "Task",
    "import_mtrag",
    "parse_feedback",
    "read_rewrites",
    "read_task",
    "read_tasks",
    "tag_name",
]
