"""Deciding on generated questions: accept, edit, reject with a reason, skip, undo, in bulk.

Every write goes through the store's review mixin, which refuses it (``ConflictError``) when
the question changed since the revision the reviewer saw, and appends to the history with who
and when. Source chunks are graded only when the reviewer asks (``confirm_sources``), never on
their own.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from labeler.accounts.roles import Right, require
from labeler.errors import ConflictError, LabelerError, NotFoundError
from labeler.grading.labeling import refresh_progress
from labeler.store import QueueFilter, Store, check_reviewer
from labeler.store.review import SOURCE_LABEL_ACTION

# The fixed list of reasons to reject a generated question: the name the CLI takes, and the
# label the page shows. "other" needs a note.
REJECT_REASONS = {
    "not-answerable": "Not answerable from its source",
    "ambiguous": "Ambiguous",
    "duplicate": "Duplicate",
    "leaks-answer": "Leaks its answer",
    "unrealistic": "Unrealistic for our users",
    "wrong-reference": "Wrong reference answer",
    "other": "Other (say why in a note)",
}


def check_reason(reason: str | None, note: str | None) -> tuple[str, str | None]:
    """A known reason (and the note "other" needs); raises LabelerError otherwise."""
    note = (note or "").strip() or None
    if not reason:
        msg = "a rejection needs a reason: one of " + ", ".join(REJECT_REASONS)
        raise LabelerError(msg, field="reason")
    if reason not in REJECT_REASONS:
        msg = f"unknown reason {reason!r}; expected one of: " + ", ".join(REJECT_REASONS)
        raise LabelerError(msg, field="reason")
    if reason == "other" and note is None:
        raise LabelerError("the reason 'other' needs a note saying why", field="note")
    return reason, note


@dataclass(frozen=True, slots=True)
class Decision:
    """What one decision did: the question's new status and revision, the chunks it graded."""

    question_id: str
    status: str
    revision: int
    graded_sources: tuple[str, ...] = ()
    reason: str | None = None
    edited: bool = False

    def sentence(self) -> str:
        """What the reviewer is told: "Accepted, and 2 source chunks graded 2. ..."."""
        if self.status == "rejected":
            return f"Rejected: {REJECT_REASONS.get(self.reason or '', 'no reason').lower()}."
        if self.status != "accepted":
            return "Edit saved; the original is kept."
        if self.edited:
            return "Edited and accepted; the original is kept."
        graded = len(self.graded_sources)
        sources = f", and {graded} source chunk{'s' * (graded != 1)} graded 2" if graded else ""
        return f"Accepted{sources}. It is in the grading queue now."


@dataclass(frozen=True, slots=True)
class BatchResult:
    done: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    graded_sources: int = 0
    batch: str | None = None

    def summary(self, verb: str) -> str:
        parts = [f"{len(self.done)} {verb}"]
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} already so")
        if self.conflicts:
            parts.append(f"{len(self.conflicts)} left alone: someone else decided them meanwhile")
        if self.graded_sources:
            parts.append(f"{self.graded_sources} source chunks graded 2")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class UndoResult:
    question_ids: tuple[str, ...]
    action: str
    conflicts: tuple[str, ...] = field(default=())

    def sentence(self) -> str:
        """ "Undid your acceptance of 3 questions. 1 left alone: ..." """
        what = {"accept": "acceptance", "reject": "rejection", "edit": "edit"}[self.action]
        count = len(self.question_ids)
        text = f"Undid your {what}" + (f" of {count} questions" if count > 1 else "") + "."
        if self.conflicts:
            text += f" {len(self.conflicts)} left alone: someone else changed them since."
        return text


def _generated(store: Store, question_id: str) -> dict:
    state = store.reviews.state(question_id)
    if state["origin"] != "generated":
        msg = f"question {question_id} is not a generated question: there is no review"
        raise LabelerError(msg, field="question_id")
    return state


def source_chunks(store: Store, question_id: str, chunking: str) -> list[str]:
    """The question's source chunks that the chunking holds, in their order."""
    question = store.questions.get(question_id)
    if question is None:
        msg = f"unknown question {question_id!r}"
        raise NotFoundError(msg, field="question_id")
    known = store.corpus.get_chunks(chunking, list(question.source_chunk_ids))
    return [c for c in question.source_chunk_ids if c in known]


def accept(
    store: Store,
    question_id: str,
    reviewer: str,
    *,
    expected_revision: int | None = None,
    confirm_sources: bool = False,
    seconds: float | None = None,
    chunking: str | None = None,
    batch: str | None = None,
) -> Decision:
    """Accept a generated question (it joins the grading queue, its source chunks already in
    its pool). With ``confirm_sources``, also grade each source chunk 2 under the reviewer's
    name, in the same transaction."""
    reviewer = check_reviewer(reviewer)
    require(store, reviewer, Right.REVIEW)
    chunking = chunking or store.corpus.current_chunking()
    with store.write():
        _generated(store, question_id)
        graded: list[str] = []
        if confirm_sources:
            # Grade 2 for each source chunk, recorded as confirmed on review; keep those whose
            # grade changed (the others already were 2).
            graded = [
                chunk_id
                for chunk_id in source_chunks(store, question_id, chunking)
                if store.labels.set_grade(
                    question_id, chunking, chunk_id, reviewer, 2, action=SOURCE_LABEL_ACTION
                )
                != 2
            ]
        revision = store.reviews.record_decision(
            question_id,
            reviewer,
            "accepted",
            expected_revision=expected_revision,
            sources=graded,
            batch=batch,
            seconds=seconds,
        )
        if graded:
            refresh_progress(store, question_id, chunking)
    return Decision(question_id, "accepted", revision, tuple(graded))


def reject(
    store: Store,
    question_id: str,
    reviewer: str,
    reason: str,
    *,
    note: str | None = None,
    expected_revision: int | None = None,
    seconds: float | None = None,
    batch: str | None = None,
) -> Decision:
    """Reject a generated question with a reason from ``REJECT_REASONS``."""
    reviewer = check_reviewer(reviewer)
    require(store, reviewer, Right.REVIEW)
    reason, note = check_reason(reason, note)
    with store.write():
        _generated(store, question_id)
        revision = store.reviews.record_decision(
            question_id,
            reviewer,
            "rejected",
            expected_revision=expected_revision,
            reason=reason,
            note=note,
            batch=batch,
            seconds=seconds,
        )
    return Decision(question_id, "rejected", revision, reason=reason)


def edit(
    store: Store,
    question_id: str,
    reviewer: str,
    *,
    text: str,
    reference: str | None,
    expected_revision: int | None = None,
    seconds: float | None = None,
) -> int:
    """Change a generated question's text and reference answer; the first version is kept.
    Returns the new revision (the same one when nothing changed)."""
    reviewer = check_reviewer(reviewer)
    require(store, reviewer, Right.REVIEW)
    text = (text or "").strip()
    if not text:
        raise LabelerError("the question cannot be empty", field="text")
    reference = (reference or "").strip() or None
    with store.write():
        _generated(store, question_id)
        return store.reviews.record_edit(
            question_id,
            reviewer,
            text=text,
            reference=reference,
            expected_revision=expected_revision,
            seconds=seconds,
        )


def edit_and_accept(
    store: Store,
    question_id: str,
    reviewer: str,
    *,
    text: str,
    reference: str | None,
    expected_revision: int | None = None,
    seconds: float | None = None,
    chunking: str | None = None,
) -> Decision:
    """``edit``, then ``accept`` the edited question, in one transaction: a reviewer who fixes a
    question and means it is never left with the edit saved and the decision lost."""
    with store.write():
        revision = edit(
            store,
            question_id,
            reviewer,
            text=text,
            reference=reference,
            expected_revision=expected_revision,
            seconds=seconds,
        )
        decided = accept(
            store, question_id, reviewer, expected_revision=revision, chunking=chunking
        )
    return replace(decided, edited=True)


def skip(store: Store, question_id: str, reviewer: str, *, seconds: float | None = None) -> None:
    """Leave the question for later; only the history notes it."""
    reviewer = check_reviewer(reviewer)
    require(store, reviewer, Right.REVIEW)
    with store.write():
        _generated(store, question_id)
        store.reviews.record_skip(question_id, reviewer, seconds=seconds)


@dataclass(frozen=True, slots=True)
class BatchPlan:
    """One decision for every question of a queue, as the reviewer is asked to confirm it:
    the questions with the revision each had (a question decided by someone else meanwhile is
    left alone when it is applied)."""

    decision: str
    revisions: Mapping[str, int]
    reason: str | None = None
    note: str | None = None
    confirm_sources: bool = False

    def describe(self) -> str:
        count = len(self.revisions)
        questions = f"{count} question{'s' * (count != 1)}"
        if self.decision == "accept":
            sources = ", grading their source chunks 2" if self.confirm_sources else ""
            return f"Accept {questions}{sources}"
        return f"Reject {questions} as “{REJECT_REASONS[self.reason or 'other']}”"

    def apply(self, store: Store, reviewer: str, *, chunking: str | None = None) -> BatchResult:
        return decide_many(
            store,
            list(self.revisions),
            reviewer,
            self.decision,
            reason=self.reason,
            note=self.note,
            confirm_sources=self.confirm_sources,
            revisions=self.revisions,
            chunking=chunking,
        )


def plan_batch(
    store: Store,
    where: QueueFilter,
    decision: str,
    *,
    reason: str | None = None,
    note: str | None = None,
    confirm_sources: bool = False,
) -> BatchPlan | None:
    """The batch of ``decision`` over the queue ``where`` selects now (None: it is empty); a
    rejection's reason is checked here, before the reviewer is asked to confirm."""
    if decision == "reject":
        reason, note = check_reason(reason, note)
    revisions = store.flags.queue_revisions(where)
    if not revisions:
        return None
    return BatchPlan(decision, revisions, reason, note, confirm_sources)


def decide_many(
    store: Store,
    question_ids: Sequence[str],
    reviewer: str,
    decision: str,
    *,
    reason: str | None = None,
    note: str | None = None,
    confirm_sources: bool = False,
    revisions: Mapping[str, int] | None = None,
    chunking: str | None = None,
) -> BatchResult:
    """Accept or reject many questions as one batch (one undo reverts it all).

    Every id is checked first: an unknown or human question raises and nothing changes. With
    ``revisions`` (what the reviewer confirmed on), a question decided by someone else since is
    left alone and reported, never overwritten.
    """
    if decision not in ("accept", "reject"):
        msg = f"expected accept or reject, got {decision!r}"
        raise LabelerError(msg, field="decision")
    reviewer = check_reviewer(reviewer)
    require(store, reviewer, Right.BATCH_REVIEW)
    if decision == "reject":
        reason, note = check_reason(reason, note)
    ids = list(dict.fromkeys(question_ids))
    if not ids:
        raise LabelerError("no question ids given", field="question_id")
    states = store.reviews.states(ids)
    unknown = [q for q in ids if q not in states]
    if unknown:
        msg = f"unknown question {unknown[0]!r}" + (
            f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        )
        raise NotFoundError(msg, field="question_id")
    human = [q for q in ids if states[q]["origin"] != "generated"]
    if human:
        msg = f"question {human[0]} is not a generated question: there is no review"
        raise LabelerError(msg, field="question_id")
    batch = uuid.uuid4().hex[:12] if len(ids) > 1 else None
    status = "accepted" if decision == "accept" else "rejected"
    done, unchanged, conflicts, graded = [], [], [], 0
    with store.write():
        for question_id in ids:
            expected = None if revisions is None else revisions.get(question_id)
            before = states[question_id]
            if (
                before["status"] == status
                and (decision == "accept" or (before["reason"], before["note"]) == (reason, note))
                and not confirm_sources
            ):
                unchanged.append(question_id)
                continue
            try:
                if decision == "accept":
                    result = accept(
                        store,
                        question_id,
                        reviewer,
                        expected_revision=expected,
                        confirm_sources=confirm_sources,
                        chunking=chunking,
                        batch=batch,
                    )
                    graded += len(result.graded_sources)
                else:
                    reject(
                        store,
                        question_id,
                        reviewer,
                        reason,
                        note=note,
                        expected_revision=expected,
                        batch=batch,
                    )
            except ConflictError:
                conflicts.append(question_id)
                continue
            done.append(question_id)
    return BatchResult(tuple(done), tuple(unchanged), tuple(conflicts), graded, batch)


def undo(store: Store, reviewer: str, *, chunking: str | None = None) -> UndoResult:
    """Undo the reviewer's last decision or edit (all of it, for a batch): the status or text
    goes back, grades its accept gave the sources are withdrawn, and the history says so. A
    question someone else changed since is left alone and reported."""
    reviewer = check_reviewer(reviewer)
    require(store, reviewer, Right.REVIEW)
    chunking = chunking or store.corpus.current_chunking()
    events = store.reviews.last_undoable(reviewer)
    if not events:
        raise LabelerError("nothing to undo: you have no decision or edit left to undo")
    undone, conflicts = [], []
    with store.write():
        for event in events:
            try:
                store.reviews.revert_event(event, reviewer, chunking)
            except ConflictError as error:
                conflicts.append(str(error))
                continue
            undone.append(event["question_id"])
            if event["sources"]:
                refresh_progress(store, event["question_id"], chunking)
    if not undone:
        raise ConflictError(conflicts[0], field="question_id")
    return UndoResult(tuple(undone), events[0]["action"], tuple(conflicts))


__all__ = [
    "REJECT_REASONS",
    "BatchPlan",
    "BatchResult",
    "Decision",
    "UndoResult",
    "accept",
    "check_reason",
    "decide_many",
    "edit",
    "plan_batch",
    "reject",
    "skip",
    "source_chunks",
    "undo",
]
