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

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from labeler.conversations import TurnRegister, check_history, read_messages, turn_id
from labeler.errors import LabelerError, shown
from labeler.importers.batching import (
    Counted,
    batched,
    read_ahead,
    refuse_question_text_changes,
)
from labeler.importers.staging import keyed, lines_named
from labeler.models import ImportReport, Message, Turn
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
from labeler.store.base import text_hash
from labeler.store.corpus import StagedChunks, stage_chunks

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


class History:
    """The previous line's messages: a line repeats the conversation up to its turn, so a
    line that continues the previous one has only its new messages read (linear, not
    quadratic, in a conversation's length; the repeated messages are the same objects)."""

    __slots__ = ("messages", "raw")

    def __init__(self) -> None:
        self.raw: list | None = None
        self.messages: tuple[Message, ...] = ()

    def read(self, raw: Any, *, path: Path, line: int) -> tuple[Message, ...]:
        known = self.raw
        if (
            isinstance(raw, list)
            and known is not None
            and len(raw) > len(known)
            and raw[: len(known)] == known
        ):
            more = read_messages(
                raw[len(known) :], path=path, line=line, field="input", start=len(known)
            )
            messages = self.messages + more
        else:
            messages = read_messages(raw, path=path, line=line, field="input")
        self.raw, self.messages = raw, messages
        return messages


def read_task(
    record: dict,
    feedback: dict[str, int | None],
    prefix: str,
    *,
    path: Path,
    line: int,
    history: History | None = None,
) -> Task:
    """One line of a task file (see the module docstring)."""
    where = {"path": path, "line": line}
    conversation = as_id(record.get("conversation_id"), **where, field="conversation_id")
    number = as_int(record.get("turn"), **where, field="turn", minimum=1)
    if number is None:
        raise LabelerError("missing", **where, field="turn")
    raw = record.get("input")
    messages = (history or History()).read(raw, **where)
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
    history = History()
    for line, record in iter_jsonl(path, progress, nan_as_missing=True):
        task = read_task(record, feedback, prefix, path=path, line=line, history=history)
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


BATCH = 4_000  # turns read, then written, at a time (20,000 passages: as the chunk import)


@dataclass(frozen=True, slots=True)
class _Batch:
    """A batch of turns as the reading thread hands it over: the passages new in the file
    (chunk id -> (passage, line)) already checked and staged as chunks."""

    tasks: list[Task]
    fresh: dict[str, tuple[Context, int]]
    staged: StagedChunks


class _Passages:
    """The passages of each batch that the file has not given before, checked and staged as
    chunks in the reading thread (no database here): the passages' hashing and staging then
    overlap the writing of the batch before. It keeps what the file said so far, for the
    check that spans batches: a passage given another text than on an earlier line."""

    def __init__(self, path: Path, chunking: str) -> None:
        self.path, self.chunking = path, chunking
        self.seen: dict[str, tuple[str, int]] = {}  # chunk id -> (text hash, line)

    def batch(self, tasks: list[Task]) -> _Batch:
        fresh: dict[str, tuple[Context, int]] = {}
        for task in tasks:
            for context in task.contexts:
                digest = text_hash(context.text)
                first = self.seen.setdefault(context.chunk_id, (digest, task.line))
                if first[0] != digest:
                    msg = (
                        f"passage {shown(context.chunk_id)} has another text than on line"
                        f" {first[1]}"
                    )
                    raise LabelerError(msg, path=self.path, line=task.line, field="contexts")
                if first[1] == task.line:
                    fresh.setdefault(context.chunk_id, (context, task.line))
        rows = ({"id": c.chunk_id, "text": c.text, "title": c.title} for c, _ in fresh.values())
        return _Batch(tasks, fresh, stage_chunks(self.chunking, rows))


class _Writer:
    """Writes an import batch by batch: the passages and turns of each batch as it comes
    (while the next one is read), and at the end what needs every chunk and turn in place
    (each annotator's labels, the passages to grade)."""

    def __init__(
        self,
        store: Store,
        path: Path,
        chunking: str,
        tags: tuple[str, ...],
        rewrites: dict,
        *,
        replace_text: bool = False,
    ) -> None:
        self.store, self.path, self.chunking = store, path, chunking
        self.tags, self.rewrites, self.replace_text = tags, rewrites, replace_text
        self.counts = Counter()
        self.conversations: set[str] = set()
        self.labels: dict[str, list[tuple[int, str, str, int]]] = {}
        self.unjudged: list[tuple[str, list[str]]] = []

    def write(self, batch: _Batch) -> None:
        tasks = [self._rewritten(t) for t in batch.tasks]
        self._passages(batch)
        self._turns(tasks)
        for task in tasks:
            self.conversations.add(task.turn.conversation)
            for context in task.contexts:
                for annotator, grade in context.grades:
                    self.labels.setdefault(annotator, []).append(
                        (task.line, task.id, context.chunk_id, grade)
                    )
            unjudged = [c.chunk_id for c in task.contexts if not c.judged]
            if unjudged:
                self.unjudged.append((task.id, unjudged))

    def _rewritten(self, task: Task) -> Task:
        rewrite = self.rewrites.get(normal_id(task.id))
        if not rewrite:
            return task
        self.counts["rewrites"] += 1
        return replace(task, turn=replace(task.turn, rewrite=rewrite))

    def _passages(self, batch: _Batch) -> None:
        """The batch's new passages as chunks, or matched by id to the chunks already there."""
        fresh = batch.fresh
        stored = self.store.corpus.get_chunks(self.chunking, list(fresh))
        for chunk_id, chunk in stored.items():
            context, line = fresh[chunk_id]
            if chunk.text != context.text:
                msg = (
                    f"passage {shown(chunk_id)} is already chunk {shown(chunk_id)} of chunking"
                    f" {shown(self.chunking)}, with another text; import into another chunking"
                    " with --chunking NAME"
                )
                raise LabelerError(msg, path=self.path, line=line, field="contexts")
        staged = batch.staged.without(stored) if stored else batch.staged
        self.counts["passages added"] += self.store.corpus.upsert_chunks(self.chunking, staged)[0]
        self.counts["passages there"] += len(stored)

    def _turns(self, tasks: list[Task]) -> None:
        rows = [
            {
                "id": t.id,
                "text": t.text,
                "reference_answer": t.reference,
                "tags": sorted({*t.tags, *self.tags}),
                "turn": t.turn,
                "line": t.line,
            }
            for t in tasks
        ]
        try:
            added, updated = self.store.questions.upsert(rows, replace_text=self.replace_text)
        except LabelerError as error:
            if error.path is not None:
                raise
            raise LabelerError(error.message, path=self.path, field=error.field) from None
        # A turn already graded keeps the text its labels were given for (as in every import),
        # unless --replace-text: then its labels become stale.
        changes = self.store.questions.take_text_changes()
        refuse_question_text_changes([c for c in changes if not c[3]], path=self.path)
        self.counts["turns replaced"] += len(changes)
        self.counts["labels made stale"] += sum(c[2] for c in changes)
        self.counts["turns added"] += added
        self.counts["turns updated"] += updated
        self.counts["turns"] += len(rows)

    def finish(self, rewrites: str | None) -> list[ImportReport]:
        path = str(self.path)
        there = self.counts["passages there"]
        reports = [
            ImportReport(
                "passages",
                path,
                added=self.counts["passages added"],
                unchanged=there,
                detail=f"chunking {self.chunking!r}"
                + (f", {there} already there" if there else ""),
            )
        ]
        conversations = len(self.conversations)
        detail = f"{conversations} conversation{'' if conversations == 1 else 's'}"
        if rewrites:
            matched = self.counts["rewrites"]
            left = len(self.rewrites) - matched
            detail += f"; {matched} with a rewrite from {Path(rewrites).name}"
            detail += f", whose {left} other rows name turns not in this file" if left else ""
        if self.counts["turns replaced"]:
            stale, replaced = self.counts["labels made stale"], self.counts["turns replaced"]
            detail += (
                f"; {replaced} graded turn{'' if replaced == 1 else 's'} got a new text:"
                f" {stale} label{'' if stale == 1 else 's'} now stale"
            )
        added, updated = self.counts["turns added"], self.counts["turns updated"]
        reports.append(
            ImportReport(
                "turns",
                path,
                added=added,
                updated=updated,
                unchanged=self.counts["turns"] - added - updated,
                detail=detail,
            )
        )
        reports += self._labels()
        unjudged = self._candidates()
        return reports + ([unjudged] if unjudged is not None else [])

    def _labels(self) -> list[ImportReport]:
        """Each annotator's feedback as their labels, through the staged checks of every label
        import (without the per-question progress, see the module docstring)."""
        reports = []
        for annotator, lines in sorted(self.labels.items()):
            self.store.labels.stage_labels(keyed(lines))
            with lines_named():
                self.store.labels.check_staged_labels(self.chunking, str(self.path))
            added, updated, unchanged = self.store.labels.merge_staged_labels(
                self.chunking, annotator
            )
            reports.append(
                ImportReport(
                    "feedback",
                    str(self.path),
                    added=added,
                    updated=updated,
                    unchanged=unchanged,
                    detail=f"reviewer {annotator!r}",
                )
            )
        return reports

    def _candidates(self) -> ImportReport | None:
        """Passages nobody judged join their turn's candidates, to be graded."""
        added = total = 0
        for question_id, chunk_ids in self.unjudged:
            total += len(chunk_ids)
            added += self.store.pools.add(
                question_id, self.chunking, chunk_ids, source="suggested", added_by="import:mtrag"
            )
        if not total:
            return None
        return ImportReport(
            "candidates",
            str(self.path),
            added=added,
            unchanged=total - added,
            detail="passages without feedback",
        )


def import_mtrag(
    store: Store,
    path: str | Path,
    *,
    chunking: str | None = None,
    feedback: str | None = None,
    rewrites: str | None = None,
    annotator_prefix: str | None = None,
    tags: tuple[str, ...] = (),
    replace_text: bool = False,
    progress: Progress | None = None,
) -> list[ImportReport]:
    """An MTRAG task file (see the module docstring), in one transaction. A new text for a
    turn that carries labels is refused, unless ``replace_text``: then its labels become stale
    (left out of exports until a reviewer confirms or changes them), as for questions. The file
    is read a batch of turns ahead in a thread (``labeler.importers.batching.read_ahead``:
    SQLite works outside Python's lock, so reading and writing overlap on two cores)."""
    path = check_file(path)
    mapping = parse_feedback(feedback)
    prefix = annotator_prefix or ""
    found = read_rewrites(rewrites) if rewrites else {}
    chunking = as_name(chunking or store.corpus.current_chunking(), what="chunking")
    writer = _Writer(store, path, chunking, tags, found, replace_text=replace_text)
    turns = batched(lambda counted: read_tasks(path, mapping, prefix, counted), BATCH)
    passages = _Passages(path, chunking)

    def batches(counted: Counted) -> Iterator[_Batch]:
        return (passages.batch(tasks) for tasks in turns(counted))

    with store.write():
        store.corpus.ensure_chunking(chunking, source=str(path))
        for batch in read_ahead(batches, progress):
            writer.write(batch)
        if not writer.counts["turns"]:
            raise empty_file(path, "tasks")
        return writer.finish(rewrites)


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
