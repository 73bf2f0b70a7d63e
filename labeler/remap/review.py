"""The review queue of a remap: what the rules could not decide, one new chunk at a time.

A proposal is one (question, new chunk) pair: the old labels that land there (usually one;
several for a conflict, or when reviewers labelled the same old chunk), the grade the rule
suggests, and the evidence. A reviewer accepts it, changes the grade, or rejects it. Accepting
or changing writes the reviewer's own label on the new chunk (history row ``remap-review``):
the remap only proposed, the reviewer judged. The mappings keep who decided what and when,
so the label's provenance (the old label, its reviewer, the evidence) can always be read back.
Deciding again replaces the decision; a label the queue wrote and nobody changed since goes
when its proposal is rejected afterwards.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labeler.accounts.roles import Right, require
from labeler.errors import LabelerError, NotFoundError
from labeler.grading.labeling import refresh_progress
from labeler.remap.rules import REASONS
from labeler.store import Store, check_reviewer
from labeler.store.base import now

ACTIONS = ("accept", "change", "reject")
REASON_ORDER = ("conflict", "split", "elsewhere", "edited", "partial", "mixed", "unseen")
_TOKEN = re.compile(r"\S+\s*")
MIN_SHOWN_RUN = 3


@dataclass(frozen=True, slots=True)
class Source:
    """One old label behind a proposal, with the evidence for this new chunk."""

    reviewer: str
    old_chunk: str
    old_grade: int
    old_text: str
    note: str | None
    method: str | None
    coverage: float
    containment: float
    similarity: float
    reason: str
    key: tuple
    elsewhere: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Proposal:
    """A new chunk to review for a question, with the labels that land there."""

    from_chunking: str
    to_chunking: str
    question_id: str
    question: str
    new_chunk: str
    new_text: str
    new_title: str | None
    grade: int
    reason: str
    sources: tuple[Source, ...]
    review: str | None = None
    review_grade: int | None = None
    reviewed_by: str | None = None
    reviewed_at: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.question_id, self.new_chunk)

    @property
    def decided(self) -> bool:
        return self.review is not None

    @property
    def explanation(self) -> str:
        return REASONS.get(self.reason, self.reason)


@dataclass(frozen=True, slots=True)
class RemapSummary:
    """A remap as the queue page lists it."""

    from_chunking: str
    to_chunking: str
    min_coverage: float
    counts: dict
    proposals: int
    decided: int
    updated_at: str

    @property
    def label(self) -> str:
        return f"{self.from_chunking} → {self.to_chunking}"


def remaps(store: Store) -> list[RemapSummary]:
    """Every remap recorded in the database, latest first, with its queue's progress."""
    return [
        RemapSummary(
            from_chunking=row["from_chunking"],
            to_chunking=row["to_chunking"],
            min_coverage=row["min_coverage"],
            counts=row["counts"],
            proposals=row["proposals"],
            decided=row["decided"],
            updated_at=row["updated_at"],
        )
        for row in store.remaps.all()
    ]


@dataclass(frozen=True, slots=True)
class ProposalKey:
    """A proposal as the queue lists it: which, the grade proposed, and whether decided."""

    question_id: str
    new_chunk: str
    grade: int
    decided: bool

    @property
    def key(self) -> tuple[str, str]:
        return (self.question_id, self.new_chunk)


def keys(
    store: Store, from_chunking: str, to_chunking: str, *, reviewer: str | None = None
) -> list[ProposalKey]:
    """The proposals of a remap, in queue order (by question, then grade proposed, highest
    first, then the new chunk's place in its document), without their texts: cheap enough to
    list a queue of a hundred thousand. ``reviewer`` keeps those from that reviewer's labels."""
    return [
        ProposalKey(q, c, g, bool(d))
        for q, c, g, d in store.remaps.remap_proposal_keys(
            from_chunking, to_chunking, reviewer=reviewer
        )
    ]


def proposal(
    store: Store,
    from_chunking: str,
    to_chunking: str,
    question_id: str,
    new_chunk: str,
    *,
    reviewer: str | None = None,
) -> Proposal | None:
    """One proposal with everything the review shows (None when the remap has no such one)."""
    rows = store.remaps.remap_queue_rows(
        from_chunking, to_chunking, question_id=question_id, new_chunk_id=new_chunk
    )
    found = _proposals(from_chunking, to_chunking, rows, reviewer)
    return found[0] if found else None


def queue(
    store: Store, from_chunking: str, to_chunking: str, *, reviewer: str | None = None
) -> list[Proposal]:
    """Every proposal of a remap with its texts, in queue order (see ``keys``)."""
    found = {
        p.key: p
        for p in _proposals(
            from_chunking,
            to_chunking,
            store.remaps.remap_queue_rows(from_chunking, to_chunking),
            reviewer,
        )
    }
    return [found[k.key] for k in keys(store, from_chunking, to_chunking, reviewer=reviewer)]


def _proposals(
    from_chunking: str, to_chunking: str, rows: list[dict], reviewer: str | None
) -> list[Proposal]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        if reviewer is not None and row["reviewer"] != reviewer:
            continue
        groups.setdefault((row["question_id"], row["new_chunk_id"]), []).append(row)
    proposals = []
    for (question_id, new_chunk), members in groups.items():
        first = members[0]
        reasons = {r["reason"] for r in members}
        reason = next((r for r in REASON_ORDER if r in reasons), first["reason"])
        sources = tuple(
            Source(
                reviewer=r["reviewer"],
                old_chunk=r["old_chunk_id"],
                old_grade=r["old_grade"],
                old_text=r["old_text"] or "",
                note=r["note"],
                method=r["method"],
                coverage=r["coverage"],
                containment=r["containment"],
                similarity=r["similarity"],
                reason=r["reason"],
                key=(
                    from_chunking,
                    to_chunking,
                    "label",
                    question_id,
                    r["reviewer"],
                    r["old_chunk_id"],
                    new_chunk,
                ),
                elsewhere=tuple(
                    sorted((r["elsewhere"] or "").split("\n")) if r["elsewhere"] else ()
                ),
            )
            for r in members
        )
        decided = [r for r in members if r["review"] is not None]
        latest = max(decided, key=lambda r: r["reviewed_at"]) if decided else None
        proposals.append(
            Proposal(
                from_chunking=from_chunking,
                to_chunking=to_chunking,
                question_id=question_id,
                question=first["question"] or "",
                new_chunk=new_chunk,
                new_text=first["new_text"] or "",
                new_title=first["new_title"],
                grade=max(r["grade"] for r in members),
                reason=reason,
                sources=sources,
                review=latest["review"] if latest else None,
                review_grade=latest["review_grade"] if latest else None,
                reviewed_by=latest["reviewed_by"] if latest else None,
                reviewed_at=latest["reviewed_at"] if latest else None,
            )
        )
    return proposals


def decide(
    store: Store,
    proposal: Proposal,
    reviewer: str,
    action: str,
    *,
    grade: int | None = None,
) -> int | None:
    """Record ``reviewer``'s decision on a proposal; returns the grade written (None: rejected).

    ``accept`` writes the proposed grade, ``change`` the given one (``accept`` with another
    grade is a change), ``reject`` writes no label.
    """
    reviewer = check_reviewer(reviewer)
    require(store, reviewer, Right.REMAP)
    if action not in ACTIONS:
        msg = f"expected one of {', '.join(ACTIONS)}, got {action!r}"
        raise LabelerError(msg, field="action")
    if action == "change" and grade not in (0, 1, 2):
        msg = f"expected 0, 1 or 2, got {grade!r}"
        raise LabelerError(msg, field="grade")
    written = None if action == "reject" else (proposal.grade if grade is None else grade)
    if action == "accept" and written != proposal.grade:
        action = "change"
    keys = [s.key for s in proposal.sources]
    with store.write():
        current = {
            r.key: r
            for r in store.remaps.proposal_mappings(
                proposal.from_chunking,
                proposal.to_chunking,
                proposal.question_id,
                proposal.new_chunk,
            )
        }
        if not current:
            msg = (
                f"no proposal of chunk {proposal.new_chunk!r} for question"
                f" {proposal.question_id!r} in remap {proposal.from_chunking!r} ->"
                f" {proposal.to_chunking!r}; run the remap again"
            )
            raise NotFoundError(msg, field="proposal")
        stamp = now()
        if written is None:
            removed = _withdraw_earlier(store, proposal, reviewer, current.values(), stamp)
            if not removed:
                store.remaps.record_event(
                    proposal.question_id,
                    proposal.to_chunking,
                    proposal.new_chunk,
                    reviewer,
                    "remap-reject",
                    at=stamp,
                    note=_provenance(proposal),
                )
        else:
            note = next((s.note for s in proposal.sources if s.note), None)
            store.labels.set_grade(
                proposal.question_id,
                proposal.to_chunking,
                proposal.new_chunk,
                reviewer,
                written,
                note=note,
                action="remap-review",
            )
            stamp = store.remaps.label_grades_of(
                proposal.question_id, proposal.to_chunking, proposal.new_chunk, reviewer
            )[1]
        review = {"accept": "accepted", "change": "changed", "reject": "rejected"}[action]
        store.remaps.set_mapping_review(
            [k for k in keys if k in current],
            review=review,
            grade=written,
            reviewer=reviewer,
            at=stamp,
        )
        refresh_progress(store, proposal.question_id, proposal.to_chunking)
    return written


def _withdraw_earlier(store: Store, proposal: Proposal, reviewer: str, rows, stamp: str) -> bool:
    """The label this reviewer's earlier decision on the proposal wrote goes, if nobody changed
    it since (another reviewer's label is their own judgement, and stays)."""
    for row in rows:
        if row.review not in ("accepted", "changed") or row.reviewed_by != reviewer:
            continue
        label = store.remaps.label_grades_of(
            proposal.question_id, proposal.to_chunking, proposal.new_chunk, reviewer
        )
        if label is not None and label == (row.review_grade, row.reviewed_at):
            store.remaps.remove_label(
                proposal.question_id,
                proposal.to_chunking,
                proposal.new_chunk,
                reviewer,
                action="remap-reject",
                at=stamp,
                note=_provenance(proposal),
            )
            return True
    return False


def _provenance(proposal: Proposal) -> str:
    parts = [f"{s.reviewer} {s.old_grade} on {s.old_chunk}" for s in proposal.sources]
    return (
        f"remap {proposal.from_chunking} -> {proposal.to_chunking} proposal"
        f" ({proposal.reason}): " + ", ".join(parts)
    )


# showing the differences -------------------------------------------------------------------


def diff(old: str, new: str) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """Both texts cut into (stretch, shared) pieces: ``shared`` is True where the stretch is in
    the other text too. Words are matched longest stretch first (difflib), so a repeated heading
    cannot steal the words of the sentence they belong to, and only runs of at least
    MIN_SHOWN_RUN words count, so a lone "the" is not shown as shared. Whitespace is kept."""
    old_tokens, new_tokens = _TOKEN.findall(old), _TOKEN.findall(new)
    old_shared, new_shared = _shared(old_tokens, new_tokens)
    return _pieces(old, old_tokens, old_shared), _pieces(new, new_tokens, new_shared)


def shared_in(new: str, olds: list[str]) -> list[tuple[str, bool]]:
    """The new text's pieces, shared where any of the old texts holds them."""
    tokens = _TOKEN.findall(new)
    shared = [False] * len(tokens)
    for old in olds:
        _, here = _shared(_TOKEN.findall(old), tokens)
        shared = [a or b for a, b in zip(shared, here, strict=True)]
    return _pieces(new, tokens, shared)


def _shared(a: list[str], b: list[str]) -> tuple[list[bool], list[bool]]:
    from difflib import SequenceMatcher

    in_a, in_b = [False] * len(a), [False] * len(b)
    least = min(MIN_SHOWN_RUN, len(a), len(b)) or 1
    matcher = SequenceMatcher(None, [t.strip() for t in a], [t.strip() for t in b], autojunk=False)
    for i, j, size in matcher.get_matching_blocks():
        if size >= least:
            in_a[i : i + size] = [True] * size
            in_b[j : j + size] = [True] * size
    return in_a, in_b


def _pieces(text: str, tokens: list[str], shared: list[bool]) -> list[tuple[str, bool]]:
    lead = text[: len(text) - len(text.lstrip())]
    pieces: list[tuple[str, bool]] = [(lead, True)] if lead else []
    for token, same in zip(tokens, shared, strict=True):
        if pieces and pieces[-1][1] == same:
            pieces[-1] = (pieces[-1][0] + token, same)
        else:
            pieces.append((token, same))
    return pieces


__all__ = [
    "ACTIONS",
    "Proposal",
    "ProposalKey",
    "RemapSummary",
    "Source",
    "decide",
    "diff",
    "keys",
    "proposal",
    "queue",
    "remaps",
    "shared_in",
]
