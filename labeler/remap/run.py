"""A remap from one chunking to another: check the input, plan it, then apply the plan.

``plan_remap`` reads (the old labels with their passages, the new chunking) and decides every
mapping by the rules; it writes nothing. ``apply_remap`` writes the plan in one transaction:
the mappings (so the review queue and the provenance of every carried label can be read back),
the labels the rules carry (under the original reviewer, history row ``remap``), the
adjudications they carry, and the unanswerable marks of the old chunking.

What makes it safe to run again:

- old labels are only read, so a remap can be redone, for example after a threshold change;
- a label already in the new chunking is never overwritten (a reviewer's own grade wins);
- a label the remap wrote and nobody changed since is withdrawn (history row ``unremap``) when a
  redone remap no longer carries it, and follows its old label when that was regraded since
  (history row ``remap``); the decision of a reviewer in the queue is kept;
- the same remap twice writes nothing the second time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from labeler.atomic import check_target, write_atomically
from labeler.errors import LabelerError, NotFoundError
from labeler.remap.align import DEFAULT_ALIGNER
from labeler.remap.evidence import METHODS, EvidenceFinder, Passage
from labeler.remap.rules import DEFAULT_MIN_COVERAGE, Mapping, OldLabel, decide
from labeler.spreadsheet import Figure, csv_text
from labeler.store import Store
from labeler.store.base import now
from labeler.store.remap import MappingRow

MIN_COVERAGE_RANGE = (0.5, 1.0)
CSV_COLUMNS = (
    "question",
    "reviewer",
    "old_chunk",
    "new_chunk",
    "grade",
    "method",
    "coverage",
    "containment",
    "similarity",
    "decision",
    "reason",
    "kind",
    "old_grade",
)


@dataclass(frozen=True, slots=True)
class RemapPlan:
    """Every mapping a remap decides, before anything is written."""

    from_chunking: str
    to_chunking: str
    min_coverage: float
    mappings: tuple[Mapping, ...] = field(repr=False)
    marks: tuple[tuple[str, str], ...]
    labels: int
    adjudications: int
    passages: int
    searches: int

    def label_mappings(self) -> list[Mapping]:
        return [m for m in self.mappings if m.kind == "label"]

    def counts(self) -> dict:
        """applied / queued / lost (label mappings), by method (applied ones), and the rest."""
        labels = self.label_mappings()
        decisions = Counter(m.decision for m in labels)
        methods = Counter(m.method for m in labels if m.decision == "applied")
        adjudications = Counter(m.decision for m in self.mappings if m.kind == "adjudication")
        return {
            "applied": decisions["applied"],
            "queued": decisions["queued"],
            "lost": decisions["lost"],
            "by_method": {method: methods[method] for method in METHODS},
            "labels": self.labels,
            "adjudications": {
                "total": self.adjudications,
                "applied": adjudications["applied"],
                "not_carried": self.adjudications
                - len(
                    {
                        (m.question_id, m.old_chunk)
                        for m in self.mappings
                        if m.kind == "adjudication" and m.decision == "applied"
                    }
                ),
            },
        }

    def per_question(self) -> list[dict]:
        """Per question: labels, and mappings applied, queued and lost; by question id."""
        rows: dict[str, dict] = {}
        for m in self.label_mappings():
            row = rows.setdefault(
                m.question_id,
                {"question": m.question_id, "labels": set(), "applied": 0, "queued": 0, "lost": 0},
            )
            row["labels"].add((m.reviewer, m.old_chunk))
            row[m.decision] += 1
        return [{**row, "labels": len(row["labels"])} for _, row in sorted(rows.items())]


@dataclass(frozen=True, slots=True)
class RemapResult:
    """What a remap did (or, with ``dry_run``, would do)."""

    plan: RemapPlan
    dry_run: bool
    labels_added: int = 0
    labels_present: int = 0
    labels_kept: int = 0
    labels_withdrawn: int = 0
    labels_regraded: int = 0
    adjudications_added: int = 0
    adjudications_withdrawn: int = 0
    marks_carried: int = 0
    reviewed: int = 0

    @property
    def changed(self) -> bool:
        return bool(
            self.labels_added
            or self.labels_withdrawn
            or self.labels_regraded
            or self.adjudications_added
            or self.adjudications_withdrawn
            or self.marks_carried
        )

    def as_json(self) -> dict:
        """The shape of ``labeler remap --format json``: counts of label mappings, applied ones
        by method, and every label mapping."""
        counts = self.plan.counts()
        return {
            "applied": counts["applied"],
            "queued": counts["queued"],
            "lost": counts["lost"],
            "by_method": counts["by_method"],
            "mappings": [
                {
                    "question": m.question_id,
                    "reviewer": m.reviewer,
                    "old_chunk": m.old_chunk,
                    "new_chunk": m.new_chunk,
                    "grade": m.grade,
                    "method": m.method,
                    "coverage": m.coverage,
                    "containment": m.containment,
                    "similarity": m.similarity,
                    "decision": m.decision,
                }
                for m in self.plan.label_mappings()
            ],
        }


# checks -----------------------------------------------------------------------------------


def check_request(store: Store, from_chunking: str, to_chunking: str, min_coverage: float) -> None:
    """Bad input is refused before anything is read or written."""
    low, high = MIN_COVERAGE_RANGE
    if not low <= min_coverage <= high:
        msg = f"expected a share between {low} and {high}, got {min_coverage!r}"
        raise LabelerError(msg, field="min-coverage")
    known = [c["name"] for c in store.corpus.chunkings()]
    for name, option in ((from_chunking, "from"), (to_chunking, "to")):
        if name not in known:
            msg = f"no chunking named {name!r}; known: {', '.join(map(repr, known)) or 'none'}"
            raise NotFoundError(msg, field=option)
    if from_chunking == to_chunking:
        msg = f"--from and --to are the same chunking ({from_chunking!r}): nothing to remap"
        raise LabelerError(msg, field="to")
    if store.corpus.count_chunks(to_chunking) == 0:
        msg = f"chunking {to_chunking!r} holds no chunks; import them first"
        raise LabelerError(msg, field="to")
    if store.corpus.count_documents():
        unknown = store.remaps.first_chunk_with_unknown_document(to_chunking)
        if unknown is not None:
            msg = (
                f"chunk {unknown[0]!r} of {to_chunking!r} names document {unknown[1]!r}, which"
                " is not in the database; import the new chunking's documents first"
                " (labeler import documents)"
            )
            raise LabelerError(msg, field="doc_id")


# planning ---------------------------------------------------------------------------------


def plan_remap(
    store: Store,
    from_chunking: str,
    to_chunking: str,
    *,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    methods: Sequence[str] = METHODS,
    aligner: str = DEFAULT_ALIGNER,
) -> RemapPlan:
    """Decide every mapping of ``from_chunking``'s labels onto ``to_chunking``; writes nothing."""
    check_request(store, from_chunking, to_chunking, min_coverage)
    finder = EvidenceFinder(store, to_chunking, methods=methods, aligner=aligner)
    labels: list[OldLabel] = []
    seen: set[tuple] = set()

    def label_passages():
        """The labels' passages, each once, as the store streams them (by document): the
        evidence is found a batch of documents at a time, and the texts let go."""
        for row in store.remaps.remap_labels(from_chunking):
            question_id, chunk_id, reviewer, grade, note, text, doc_id, start, end = row
            if text is None:
                continue
            passage = Passage.of(chunk_id, text, doc_id, start, end)
            labels.append(
                OldLabel("label", question_id, reviewer, chunk_id, grade, note, passage.key)
            )
            if passage.key not in seen:
                seen.add(passage.key)
                yield passage

    with store.snapshot():
        evidence = finder.find_sorted(label_passages())
        count = len(labels)
        others = []
        for row in store.remaps.remap_adjudications(from_chunking):
            question_id, chunk_id, grade, reviewer, note, text, doc_id, start, end = row
            passage = Passage.of(chunk_id, text, doc_id, start, end)
            labels.append(
                OldLabel("adjudication", question_id, reviewer, chunk_id, grade, note, passage.key)
            )
            if passage.key not in seen:
                seen.add(passage.key)
                others.append(passage)
        evidence.update(finder.find(others))
        adjudications = len(labels) - count
        marked, _ = store.remaps.unanswerable_state(from_chunking)
        target_marked, withdrawn = store.remaps.unanswerable_state(to_chunking)
    mappings = decide(labels, evidence, min_coverage=min_coverage)
    return RemapPlan(
        from_chunking=from_chunking,
        to_chunking=to_chunking,
        min_coverage=min_coverage,
        mappings=tuple(mappings),
        marks=tuple(sorted(marked - target_marked - withdrawn)),
        labels=len(labels) - adjudications,
        adjudications=adjudications,
        passages=len(seen),
        searches=finder.searches,
    )


# applying ---------------------------------------------------------------------------------


def _row(plan: RemapPlan, m: Mapping, stored: MappingRow | None, applied_at: str | None):
    return MappingRow(
        plan.from_chunking,
        plan.to_chunking,
        m.kind,
        m.question_id,
        m.reviewer,
        m.old_chunk,
        m.new_chunk or "",
        m.old_grade,
        m.grade,
        m.note,
        m.method,
        m.coverage,
        m.containment,
        m.similarity,
        m.decision,
        m.reason,
        applied_at,
        *(stored[17:] if stored is not None else (None, None, None, None)),
    )


def provenance(plan: RemapPlan, contributing: Sequence[Mapping]) -> str:
    """The history note of a carried label: where it came from, and the evidence."""
    first = contributing[0]
    text = (
        f"remap {plan.from_chunking} -> {plan.to_chunking}: from {first.old_chunk}"
        f" ({first.method}; coverage {first.coverage:.2f}, containment {first.containment:.2f},"
        f" similarity {first.similarity:.0f})"
    )
    if len(contributing) > 1:
        text += f" and {len(contributing) - 1} more"
    return text


def apply_remap(
    store: Store,
    plan: RemapPlan,
    *,
    dry_run: bool = False,
    report: str | Path | None = None,
) -> RemapResult:
    """Write the plan (see the module docstring); with ``dry_run``, count what would change
    and write nothing to the database.

    ``report``: a file for the mapping CSV (``write_report``), written once the remap is
    committed (or, with ``dry_run``, planned), never before: a remap killed half-way leaves no
    report saying what the database does not hold. Its folder is checked first, so a report
    that cannot be written stops the remap before it starts.
    """
    if report is not None:
        check_target(report)
        if store.conn.in_transaction:
            msg = "a remap's report is written after its commit: apply it outside a transaction"
            raise RuntimeError(msg)
    stamp = now()
    with store.snapshot():
        stored = {
            r[2:7]: r for r in store.remaps.remap_mappings(plan.from_chunking, plan.to_chunking)
        }
        labels = store.remaps.label_grades(plan.to_chunking)
        adjudicated = store.remaps.adjudication_grades(plan.to_chunking)

    def current(target: tuple) -> tuple[int, str] | None:
        kind, question_id, chunk_id, reviewer = target
        if kind == "label":
            return labels.get((question_id, chunk_id, reviewer))
        return adjudicated.get((question_id, chunk_id))

    # Labels an earlier run of this remap wrote and nobody changed since: {target: stamp}.
    ours: dict[tuple, str] = {}
    for old in stored.values():
        if old.decision == "applied" and old.applied_at is not None:
            target = _target_of_row(old)
            if current(target) == (old.grade, old.applied_at):
                ours[target] = old.applied_at

    targets: dict[tuple, list[Mapping]] = {}
    for m in plan.mappings:
        if m.decision == "applied":
            targets.setdefault(_target(m), []).append(m)
    inserts = {t: ms for t, ms in targets.items() if t not in ours and current(t) is None}
    # An old label regraded since the last run: the label that run wrote, untouched, follows.
    regrades = {t: ms for t, ms in targets.items() if t in ours and current(t)[0] != ms[0].grade}
    already = [
        (current(t)[0], ms[0].grade)
        for t, ms in targets.items()
        if t not in inserts and t not in regrades
    ]
    present = sum(1 for there, carried in already if there == carried)
    kept = len(already) - present

    rows = []
    for m in plan.mappings:
        applied_at = None
        if m.decision == "applied":
            target = _target(m)
            applied_at = stamp if target in inserts or target in regrades else ours.get(target)
        row = _row(plan, m, stored.get(m.key), applied_at)
        if stored.get(m.key) != row:
            rows.append(row)
    planned = {m.key for m in plan.mappings}
    deleted = [
        (plan.from_chunking, plan.to_chunking, *key)
        for key, old in stored.items()
        if key not in planned and old.review is None
    ]
    withdrawals = {t: at for t, at in ours.items() if t not in targets}
    by_target = {_target_of_row(r): r for r in stored.values() if r.applied_at is not None}
    label_rows = [
        (t[1], t[2], t[3], ms[0].grade, ms[0].note, provenance(plan, ms))
        for t, ms in sorted(inserts.items())
        if t[0] == "label"
    ]
    adjudication_rows = [
        (t[1], t[2], ms[0].grade, ms[0].reviewer, ms[0].note, provenance(plan, ms))
        for t, ms in sorted(inserts.items())
        if t[0] == "adjudication"
    ]
    label_regrades = [
        (t[1], t[2], t[3], current(t)[0], ours[t], ms[0].grade, provenance(plan, ms))
        for t, ms in sorted(regrades.items())
        if t[0] == "label"
    ]
    adjudication_regrades = [
        (t[1], t[2], ms[0].reviewer, current(t)[0], ours[t], ms[0].grade, provenance(plan, ms))
        for t, ms in sorted(regrades.items())
        if t[0] == "adjudication"
    ]
    label_withdrawals = [
        (t[1], t[2], t[3], by_target[t].grade, at)
        for t, at in sorted(withdrawals.items())
        if t[0] == "label"
    ]
    adjudication_withdrawals = [
        (t[1], t[2], by_target[t].grade, by_target[t].reviewer, at)
        for t, at in sorted(withdrawals.items())
        if t[0] == "adjudication"
    ]
    reviewed = sum(
        1
        for m in plan.label_mappings()
        if m.decision == "queued" and m.key in stored and stored[m.key].review
    )
    result = RemapResult(
        plan=plan,
        dry_run=dry_run,
        labels_added=len(label_rows),
        labels_present=present,
        labels_kept=kept,
        labels_withdrawn=len(label_withdrawals),
        labels_regraded=len(label_regrades),
        adjudications_added=len(adjudication_rows),
        adjudications_withdrawn=len(adjudication_withdrawals),
        marks_carried=len(plan.marks),
        reviewed=reviewed,
    )
    if dry_run:
        if report is not None:
            write_report(plan, report)
        return result
    note = f"remap {plan.from_chunking} -> {plan.to_chunking}: unanswerable"
    with store.write():
        store.remaps.save_mappings(rows, deleted)
        store.remaps.withdraw_remapped_labels(plan.to_chunking, label_withdrawals, at=stamp)
        store.remaps.withdraw_remapped_adjudications(
            plan.to_chunking, adjudication_withdrawals, at=stamp
        )
        store.remaps.add_remapped_labels(plan.to_chunking, label_rows, at=stamp)
        store.remaps.regrade_remapped(plan.to_chunking, label_regrades, at=stamp, table="labels")
        store.remaps.regrade_remapped(
            plan.to_chunking, adjudication_regrades, at=stamp, table="adjudications"
        )
        store.remaps.add_remapped_adjudications(plan.to_chunking, adjudication_rows, at=stamp)
        store.remaps.carry_unanswerable(plan.to_chunking, plan.marks, at=stamp, note=note)
        store.remaps.record(
            plan.from_chunking,
            plan.to_chunking,
            min_coverage=plan.min_coverage,
            counts=plan.counts(),
            at=stamp,
        )
    if report is not None:  # committed: the report says what the database now holds
        write_report(plan, report)
    return result


def _target_of_row(row: MappingRow) -> tuple:
    return (
        row.kind,
        row.question_id,
        row.new_chunk_id,
        row.reviewer if row.kind == "label" else "",
    )


def _target(m: Mapping) -> tuple:
    """Where an applied mapping writes: (kind, question, new chunk, reviewer or '')."""
    return (m.kind, m.question_id, m.new_chunk, m.reviewer if m.kind == "label" else "")


def remap(
    store: Store,
    from_chunking: str,
    to_chunking: str,
    *,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    dry_run: bool = False,
    report: str | Path | None = None,
) -> RemapResult:
    """Plan and apply a remap (see ``plan_remap`` and ``apply_remap``)."""
    plan = plan_remap(store, from_chunking, to_chunking, min_coverage=min_coverage)
    return apply_remap(store, plan, dry_run=dry_run, report=report)


# the mapping report -----------------------------------------------------------------------


def mapping_csv(plan: RemapPlan) -> str:
    """Every mapping (labels, then adjudications), one row each, as CSV text; ids, reviewers
    and reasons neutralised against spreadsheet formulas (``labeler.spreadsheet``)."""
    ordered = sorted(plan.mappings, key=lambda m: (m.kind != "label", m.question_id, m.reviewer))
    rows = (
        (
            m.question_id,
            m.reviewer,
            m.old_chunk,
            m.new_chunk,
            m.grade,
            m.method,
            Figure(f"{m.coverage:.4f}"),
            Figure(f"{m.containment:.4f}"),
            Figure(f"{m.similarity:.2f}"),
            m.decision,
            m.reason,
            m.kind,
            m.old_grade,
        )
        for m in ordered
    )
    return csv_text([CSV_COLUMNS, *rows])


def write_report(plan: RemapPlan, path: str | Path) -> Path:
    """Write the mapping CSV atomically, with ordinary permissions (``labeler.atomic``)."""
    return write_atomically(path, mapping_csv(plan).encode("utf-8"))


__all__ = [
    "CSV_COLUMNS",
    "MIN_COVERAGE_RANGE",
    "RemapPlan",
    "RemapResult",
    "apply_remap",
    "check_request",
    "mapping_csv",
    "plan_remap",
    "provenance",
    "remap",
    "write_report",
]
