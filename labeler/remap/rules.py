"""The rules that never guess: from the evidence, which labels carry, which go to review, which
are lost. A pure function of the old labels and the evidence, so it can be tested by hand and
fed perfect evidence by the benchmark.

Per question and reviewer (an adjudication is judged with the question's other adjudications),
for each new chunk the reviewer's old passages reach:

- **identical**: a new chunk with exactly an old passage's text carries that label's grade (two
  identical passages graded differently are a conflict).
- A label is *present* in a chunk that holds at least ``FLOOR_COVERAGE`` of its passage or is at
  least ``FLOOR_CONTAINMENT`` made of it. **Labels of different grades present in one chunk**:
  nothing is applied; a proposal (the highest of their grades) goes to review.
- **A positive grade (1 or 2)** carries to a chunk that holds the whole passage: coverage at
  least ``min_coverage``. A chunk that holds the whole answer still answers.
- **Grade 0** carries to a chunk made almost entirely of text the reviewer graded 0 for the
  question: the passages graded 0 that it holds cover at least ``min_coverage`` of it (one
  passage, or several side by side, as when a coarser chunking merges them), and no passage
  graded 1 or 2 reaches into it at all. A chunk that adds text nobody graded may be relevant.
- An adjudication is judged as its question's labels are, and carries only to a chunk whose
  labelled text is all adjudicated: it settles the chunk for everyone.
- A label that carries nowhere (for a 0: each piece of it that carries nowhere) goes to review
  with a proposal for every such chunk it is present in (its own grade): **split** (the pieces
  together hold the passage), **edited** (the text changed), **partial** (only part of it is
  in the chunk), **unseen** (a 0 whose chunk adds ungraded text) or **mixed** (a 0 whose chunk
  also holds text graded relevant). A label whose text is present only in chunks that carry
  its own grade anyway is applied there (**consistent**). A label present nowhere is **lost**.
- **Where the answer went**: when a passage graded 1 or 2 is queued in several pieces (split,
  partial or edited), the pieces holding the largest share of the question's and its
  reference answer's words (``pointers``, worked out from the texts by the caller) are
  proposed with the old grade; the others are proposed 0 (**elsewhere**): the first demo
  proposal offered "2 · answers it" for a piece that held only the heading (issue #23). When
  no piece holds any of those words, or all hold the same share, every piece keeps the old
  grade: nothing says where the answer is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from collections.abc import Mapping as MappingOf
from dataclasses import dataclass, replace

from labeler.remap.evidence import Evidence

DEFAULT_MIN_COVERAGE = 0.95
FLOOR_COVERAGE = 0.10
FLOOR_CONTAINMENT = 0.50
EPSILON = 1e-9

REASONS = {
    "identical": "the new chunk has exactly the passage's text",
    "contains": "the new chunk holds the whole passage",
    "made of": "the new chunk is made of passages graded 0",
    "consistent": "its text is only in chunks that carry its grade from another label",
    "conflict": "labels of different grades land in this chunk",
    "split": "the passage is split across new chunks",
    "edited": "the passage's text was edited",
    "partial": "only part of the passage is in this chunk",
    "unseen": "the new chunk adds text nobody graded",
    "mixed": "the new chunk also holds text graded relevant",
    "lost": "the passage is found nowhere in the new chunking",
    "elsewhere": "another piece of the passage holds more of the question's and answer's words",
}
# The pieces of a passage the pointer rule looks at, by their reason to be queued.
PIECES = frozenset(("split", "partial", "edited"))

# Share of a question's (and its reference answer's) words a new chunk holds.
Pointers = Callable[[str, str], float]


@dataclass(frozen=True, slots=True)
class OldLabel:
    """A label (or an adjudication) of the old chunking, and the passage it was given for."""

    kind: str
    question_id: str
    reviewer: str
    chunk_id: str
    grade: int
    note: str | None
    passage: tuple


@dataclass(frozen=True, slots=True)
class Mapping:
    """One decision: an old label and a new chunk (None when lost). ``grade`` is what is
    carried (applied) or proposed (queued); the figures are the evidence behind it."""

    kind: str
    question_id: str
    reviewer: str
    old_chunk: str
    new_chunk: str | None
    old_grade: int
    grade: int
    note: str | None
    method: str | None
    coverage: float
    containment: float
    similarity: float
    decision: str
    reason: str

    @property
    def key(self) -> tuple:
        return (self.kind, self.question_id, self.reviewer, self.old_chunk, self.new_chunk or "")


def union_length(spans: Iterable[tuple[int, int]]) -> int:
    total, reach = 0, None
    for start, end in sorted(spans):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def present(evidence: Evidence) -> bool:
    return (
        evidence.method == "identical"
        or evidence.coverage >= FLOOR_COVERAGE
        or evidence.containment >= FLOOR_CONTAINMENT
    )


def decide(
    labels: Iterable[OldLabel],
    evidence: MappingOf[tuple, tuple[Evidence, ...]],
    *,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    pointers: Pointers | None = None,
) -> list[Mapping]:
    """Every mapping of every label: applied, queued or lost, by the rules above.
    ``pointers(question, new chunk)`` is the share of the question's and its answer's words in
    the chunk (None: the pieces of a split passage all keep its grade)."""
    groups: dict[tuple, list[OldLabel]] = defaultdict(list)
    for label in labels:
        reviewer = label.reviewer if label.kind == "label" else ""
        groups[label.kind, label.question_id, reviewer].append(label)
    decided: list[Mapping] = []
    for key in sorted(groups):
        members = sorted(groups[key], key=lambda lb: (lb.chunk_id, lb.reviewer))
        decided += _decide_group(members, evidence, min_coverage - EPSILON)
    decided = _adjudications_with_their_labels(decided)
    return decided if pointers is None else point_to_the_answer(decided, pointers)


def point_to_the_answer(decided: list[Mapping], pointers: Pointers) -> list[Mapping]:
    """The rule "where the answer went": of the queued pieces of one positive label, those
    holding less of the question's and answer's words than the best piece are proposed 0."""
    pieces: dict[tuple, list[int]] = defaultdict(list)
    for index, m in enumerate(decided):
        if m.decision == "queued" and m.reason in PIECES and m.old_grade > 0:
            pieces[m.kind, m.question_id, m.reviewer, m.old_chunk].append(index)
    result = list(decided)
    for indexes in pieces.values():
        if len(indexes) < 2:
            continue
        shares = {i: pointers(decided[i].question_id, decided[i].new_chunk or "") for i in indexes}
        best = max(shares.values())
        if best <= 0 or min(shares.values()) == best:
            continue
        for i in indexes:
            if shares[i] < best:
                result[i] = replace(decided[i], grade=0, reason="elsewhere")
    return result


def _adjudications_with_their_labels(decided: list[Mapping]) -> list[Mapping]:
    """An adjudication settles a chunk for every reviewer, so it carries only to a chunk whose
    labelled text (any reviewer's) is all adjudicated passages: a chunk that also holds another
    labelled passage is not settled by it."""
    present: dict[tuple, set[str]] = defaultdict(set)
    settled: dict[tuple, set[str]] = defaultdict(set)
    for m in decided:
        if m.new_chunk is None:
            continue
        if m.kind == "label":
            present[m.question_id, m.new_chunk].add(m.old_chunk)
        elif m.decision == "applied":
            settled[m.question_id, m.new_chunk].add(m.old_chunk)
    return [
        replace(m, decision="queued", reason="mixed")
        if m.kind == "adjudication"
        and m.decision == "applied"
        and present[m.question_id, m.new_chunk] - settled[m.question_id, m.new_chunk]
        else m
        for m in decided
    ]


def _decide_group(
    labels: list[OldLabel], evidence: MappingOf[tuple, tuple[Evidence, ...]], least: float
) -> list[Mapping]:
    found = [evidence.get(label.passage, ()) for label in labels]
    on_chunk: dict[str, list[tuple[int, Evidence]]] = defaultdict(list)
    for index, items in enumerate(found):
        for item in items:
            on_chunk[item.chunk_id].append((index, item))

    settled: dict[str, tuple[int, set[int]]] = {}
    conflicts: dict[str, tuple[int, set[int]]] = {}
    touched_by_positive: set[str] = set()
    for chunk_id, entries in on_chunk.items():
        if any(labels[i].grade > 0 for i, _ in entries):
            touched_by_positive.add(chunk_id)
        same = [(i, e) for i, e in entries if e.method == "identical"]
        if same:
            grades = {labels[i].grade for i, _ in same}
            target = settled if len(grades) == 1 else conflicts
            target[chunk_id] = (max(grades), {i for i, _ in same})
            continue
        here = [(i, e) for i, e in entries if present(e)]
        grades = {labels[i].grade for i, _ in here}
        if len(grades) > 1:
            conflicts[chunk_id] = (max(grades), {i for i, _ in here})
        elif grades == {0}:
            if chunk_id in touched_by_positive:
                continue
            zero = [e for i, e in entries if labels[i].grade == 0]
            length = max(e.length for e in zero)
            made_of = union_length(s for e in zero for s in e.spans)
            if length and made_of / length >= least:
                settled[chunk_id] = (0, {i for i, _ in entries})
        elif grades:
            landing = {i for i, e in here if e.coverage >= least}
            if landing:
                settled[chunk_id] = (grades.pop(), landing)

    decided: list[Mapping] = []
    for index, label in enumerate(labels):
        items = {e.chunk_id: e for e in found[index]}
        landed = [c for c, (_, who) in settled.items() if index in who]
        conflicted = [c for c, (_, who) in conflicts.items() if index in who]
        for chunk_id in landed:
            e = items[chunk_id]
            reason = (
                "identical"
                if e.method == "identical"
                else "contains"
                if label.grade > 0
                else "made of"
            )
            decided.append(_mapping(label, e, label.grade, "applied", reason))
        for chunk_id in conflicted:
            decided.append(
                _mapping(label, items[chunk_id], conflicts[chunk_id][0], "queued", "conflict")
            )
        if landed and label.grade > 0:
            continue  # the whole passage is in a chunk: the answer is carried
        here = [e for e in found[index] if present(e)]
        open_ = sorted(
            (e for e in here if e.chunk_id not in settled and e.chunk_id not in conflicts),
            key=lambda e: e.order,
        )
        same = [e for e in here if e.chunk_id in settled and settled[e.chunk_id][0] == label.grade]
        if open_:
            # A 0 carried to some pieces still has its other pieces reviewed: each piece of
            # irrelevant text settles only the chunk it is in.
            reason = _reason(label, open_, found[index], touched_by_positive, least)
            decided += [_mapping(label, e, label.grade, "queued", reason) for e in open_]
        elif landed:
            pass
        elif same and not conflicted:
            decided += [_mapping(label, e, label.grade, "applied", "consistent") for e in same]
        elif not conflicted:
            decided.append(_lost(label))
    return decided


def _reason(
    label: OldLabel,
    candidates: list[Evidence],
    everything: tuple[Evidence, ...],
    touched_by_positive: set[str],
    least: float,
) -> str:
    if label.grade == 0:
        return "mixed" if any(e.chunk_id in touched_by_positive for e in candidates) else "unseen"
    total = sum(e.coverage for e in everything)
    if len(everything) > 1 and total >= least:
        return "split"
    if any(e.method == "fuzzy" for e in candidates) and total < least:
        return "edited"
    return "partial"


def _mapping(label: OldLabel, e: Evidence, grade: int, decision: str, reason: str) -> Mapping:
    return Mapping(
        kind=label.kind,
        question_id=label.question_id,
        reviewer=label.reviewer,
        old_chunk=label.chunk_id,
        new_chunk=e.chunk_id,
        old_grade=label.grade,
        grade=grade,
        note=label.note,
        method=e.method,
        coverage=round(e.coverage, 4),
        containment=round(e.containment, 4),
        similarity=round(e.similarity, 2),
        decision=decision,
        reason=reason,
    )


def _lost(label: OldLabel) -> Mapping:
    return Mapping(
        kind=label.kind,
        question_id=label.question_id,
        reviewer=label.reviewer,
        old_chunk=label.chunk_id,
        new_chunk=None,
        old_grade=label.grade,
        grade=label.grade,
        note=label.note,
        method=None,
        coverage=0.0,
        containment=0.0,
        similarity=0.0,
        decision="lost",
        reason="lost",
    )


__all__ = [
    "DEFAULT_MIN_COVERAGE",
    "FLOOR_CONTAINMENT",
    "FLOOR_COVERAGE",
    "PIECES",
    "REASONS",
    "Mapping",
    "OldLabel",
    "Pointers",
    "decide",
    "point_to_the_answer",
    "present",
    "union_length",
]
