"""``labeler export``: turn the labels into an immutable, self-describing, versioned test set.

``plan_export`` reads the database once (one read transaction) and works out everything: which
questions, their consensus grades (``labeler.grading.consensus``), how completely each is graded
(``labeler.grading.completeness``, from the grading loop's own pools), the files' bytes, the
manifest and its hash, the version it would be and what changed since the parent.
``export_testset`` writes it through ``labeler.versions.writing``, signed: whole or not at all.
The same content is never exported twice: the version that already holds it is reported
instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from labeler import __version__
from labeler.accounts.roles import Right, require
from labeler.errors import LabelerError, NotFoundError
from labeler.grading.candidates import stored_sources
from labeler.grading.completeness import Completeness, Requirement, completeness
from labeler.grading.consensus import (
    Consensus,
    Disagreement,
    DisagreementError,
    consensus,
    get_policy,
)
from labeler.models import Question
from labeler.store import Store
from labeler.store.base import now
from labeler.versions.diff import VersionDiff, changes_record, diff_contents
from labeler.versions.format import (
    COMPLETENESS,
    CONTENT_FILES,
    FORMAT,
    FORMAT_V1,
    ChunkEntry,
    Content,
    check_name,
    check_trec_ids,
    content_hash_v1,
    content_key,
    manifest_content_key,
    seal,
    serialise,
    serialise_lines,
    sha256_hex,
)
from labeler.versions.history import check_intact, list_versions, version_trust
from labeler.versions.reading import read_version
from labeler.versions.writing import write_version

DEFAULT_OUT = "exports"


@dataclass(frozen=True, slots=True)
class Selection:
    """Which questions go into a version, and how disagreements are settled.

    ``min_grade`` does not filter anything: it is recorded for consumers (the grade from which
    a chunk counts as relevant). ``require`` says how completely a question must be graded, and
    what to do with those that fall short (``labeler.grading.completeness.Requirement``).
    """

    tags: tuple[str, ...] = ()
    min_reviewers: int = 1
    include_pending: bool = False
    min_grade: int = 1
    policy: str | None = None
    require: Requirement = field(default_factory=Requirement)

    def statuses(self) -> tuple[str, ...]:
        return ("accepted", "pending") if self.include_pending else ("accepted",)

    def check(self) -> None:
        get_policy(self.policy)
        if self.min_grade not in (1, 2):
            msg = f"expected 1 or 2, got {self.min_grade!r}"
            raise LabelerError(msg, field="min-grade")
        if self.min_reviewers < 1:
            msg = f"expected 1 or more, got {self.min_reviewers!r}"
            raise LabelerError(msg, field="min-reviewers")
        self.require.check()

    def as_dict(self) -> dict:
        return {
            "tags": sorted(set(self.tags)),
            "min_reviewers": self.min_reviewers,
            "review_status": list(self.statuses()),
            "min_grade": self.min_grade,
            "policy": self.policy,
            "require_depth": self.require.depth,
            "runs": list(self.require.runs),
            "partial": self.require.action,
        }


@dataclass(frozen=True, slots=True)
class ExportPlan:
    """Everything an export would write, worked out without writing anything: the files and
    the manifest (its creation time fixed when the plan is made)."""

    name: str
    out: Path
    chunking: str
    selection: Selection
    version: int
    parent: int | None
    content: Content = field(repr=False)
    files: Mapping[str, bytes] = field(repr=False)
    manifest: Mapping[str, object] = field(repr=False)
    content_key: str
    counts: Mapping[str, object]
    reviewers: tuple[str, ...]
    diff: VersionDiff | None
    existing: int | None
    disagreements: tuple[Disagreement, ...]
    missing_chunks: int = 0
    # Labels left out because their chunk's text changed since they were given (see labeling).
    stale_labels: int = 0
    # How completely each exported question is graded; the runs a depth was required of; the
    # questions that fell short of the requirement, left out or (include) exported anyway.
    completeness: Mapping[str, Completeness] = field(default_factory=dict, repr=False)
    required_runs: tuple[str, ...] = ()
    left_out: tuple[Completeness, ...] = ()
    incomplete: tuple[Completeness, ...] = ()
    existing_hash: str | None = None

    @property
    def content_hash(self) -> str:
        return str(self.manifest["content_hash"])

    @property
    def partial(self) -> list[Completeness]:
        """The exported questions with an ungraded candidate, by id."""
        return [c for _, c in sorted(self.completeness.items()) if c.partial]

    def completeness_summary(self) -> dict:
        """What ``labeler export`` and the Export page say of completeness."""
        require = self.selection.require
        return {
            "rule": require.describe(self.required_runs),
            **require.as_dict(self.required_runs),
            "partial_questions": len(self.partial),
            "incomplete": [c.question_id for c in self.incomplete],
            "left_out": [c.question_id for c in self.left_out],
        }


def partial_rows(completeness: list[Completeness]) -> list[dict]:
    """One row per partial question, for a table: its ungraded candidates and each run's
    complete-to depth."""
    return [
        {
            "question": c.question_id,
            "ungraded": c.ungraded,
            "candidates": c.candidates,
            "complete to (run depth/pool depth)": c.depths(),
        }
        for c in completeness
    ]


@dataclass(frozen=True, slots=True)
class ExportResult:
    """``status``: "created" (written at ``path``), "unchanged" (version ``version`` already
    holds this content) or "dry-run" (nothing written; ``version`` is what it would be)."""

    plan: ExportPlan
    status: str
    version: int
    path: Path

    def as_dict(self) -> dict:
        plan = self.plan
        unchanged = self.status == "unchanged"
        return {
            "status": self.status,
            "name": plan.name,
            "version": self.version,
            "path": str(self.path),
            "parent": plan.parent,
            "chunking": plan.chunking,
            "content_hash": plan.existing_hash if unchanged else plan.content_hash,
            "counts": dict(plan.counts),
            "selection": plan.selection.as_dict(),
            "changes": None if plan.diff is None else plan.diff.summary(),
            "missing_chunks": plan.missing_chunks,
            "stale_labels": plan.stale_labels,
            "completeness": plan.completeness_summary(),
            "partial": [c.record() for c in plan.partial],
        }


def _selected(
    questions: list[dict], labels: list[tuple], marks: list[tuple], selection: Selection
) -> set[str]:
    """Ids of the judged questions that pass the tag and reviewer-count filters."""
    wanted = set(selection.tags)
    ids = {q["id"] for q in questions if not wanted or wanted & set(q["tags"])}
    if selection.min_reviewers > 1:
        judges: dict[str, set[str]] = {}
        for question_id, _, reviewer, _ in labels:
            judges.setdefault(question_id, set()).add(reviewer)
        for question_id, reviewer in marks:
            judges.setdefault(question_id, set()).add(reviewer)
        ids = {q for q in ids if len(judges.get(q, ())) >= selection.min_reviewers}
    return ids


def _content(
    store: Store, chunking: str, questions: list[dict], agreed: Consensus
) -> tuple[Content, int]:
    """The content to write, and how many consensus grades named a chunk the chunking lacks.
    A turn of a conversation goes with its turn (without the reviewers' search choice, a
    grading setting)."""
    chosen = [q for q in questions if q["id"] in agreed.reviewers]
    turns = store.conversations.of(q["id"] for q in chosen)
    entries = {
        q["id"]: Question(
            id=q["id"],
            text=q["text"],
            reference_answer=q["reference_answer"],
            tags=tuple(sorted(set(q["tags"]))),
            unanswerable=q["id"] in agreed.unanswerable,
            turn=replace(turns[q["id"]], search=None) if q["id"] in turns else None,
        )
        for q in chosen
    }
    wanted = {
        c for q, grades in agreed.grades.items() if q not in agreed.unanswerable for c in grades
    }
    chunks = {
        row["id"]: ChunkEntry(
            id=row["id"], text=row["text"], doc_id=row["doc_id"], title=row["title"]
        )
        for row in store.corpus.chunk_texts(chunking, wanted)
    }
    qrels: dict[str, dict[str, int]] = {}
    missing = 0
    for question_id in entries:
        if question_id in agreed.unanswerable:
            continue
        judged = {}
        for chunk_id, grade in agreed.grades.get(question_id, {}).items():
            if chunk_id in chunks:
                judged[chunk_id] = grade
            else:
                missing += 1
        if judged:
            qrels[question_id] = judged
    used = {c for judged in qrels.values() for c in judged}
    check_trec_ids(qrels, "question")
    check_trec_ids(used, "chunk")
    content = Content(questions=entries, qrels=qrels, chunks={c: chunks[c] for c in sorted(used)})
    return content, missing


def _counts(
    content: Content,
    agreed: Consensus,
    min_grade: int,
    found: Mapping[str, Completeness],
    left_out: int,
) -> dict[str, object]:
    """The figures of a version. ``unanswerable`` counts the questions reviewers marked so;
    ``no_relevant_label`` the others whose labels are all below ``min_grade`` (the metric
    engine leaves both out of its averages, and names them apart the same way); ``partial``
    the questions with an ungraded candidate, ``ungraded`` those candidates, ``left_out`` the
    questions left out for falling short of what the export required."""
    per_grade = Counter(g for judged in content.qrels.values() for g in judged.values())
    unanswerable = sum(1 for q in content.questions.values() if q.unanswerable)
    with_relevant = sum(
        1 for judged in content.qrels.values() if any(g >= min_grade for g in judged.values())
    )
    return {
        "questions": len(content.questions),
        "answerable": len(content.questions) - unanswerable,
        "unanswerable": unanswerable,
        "no_relevant_label": len(content.questions) - unanswerable - with_relevant,
        "qrels": content.qrels_count,
        "labels_per_grade": {str(g): per_grade.get(g, 0) for g in (0, 1, 2)},
        "relevant": sum(n for g, n in per_grade.items() if g >= min_grade),
        "chunks": len(content.chunks),
        "reviewers": len({r for q in content.questions for r in agreed.reviewers.get(q, ())}),
        "adjudicated": agreed.adjudicated,
        "settled_by_policy": agreed.settled,
        "partial": sum(1 for q in content.questions if found[q].partial),
        "ungraded": sum(found[q].ungraded for q in content.questions if found[q].partial),
        "left_out": left_out,
    }


def _as_question(row: dict) -> Question:
    return Question(
        id=row["id"],
        text=row["text"],
        generator=row["generator"],
        source_chunk_ids=tuple(row["source_chunk_ids"]),
    )


def _completeness(
    store: Store,
    chunking: str,
    questions: list[dict],
    agreed: Consensus,
    content: Content,
    depths: Mapping[str, int],
) -> dict[str, Completeness]:
    """How completely each question of ``content`` is graded, from its stored pool: graded
    means a grade in the version (a consensus grade on a chunk the chunking holds)."""
    wanted = [_as_question(q) for q in questions if q["id"] in content.questions]
    sources = stored_sources(store, wanted, chunking)
    return {
        q.id: completeness(
            q.id,
            sources[q.id],
            content.qrels.get(q.id) or agreed.grades.get(q.id, {}),
            depths,
            unanswerable=q.id in agreed.unanswerable,
        )
        for q in wanted
    }


def plan_export(
    store: Store,
    name: str,
    *,
    out: str | Path = DEFAULT_OUT,
    selection: Selection = Selection(),
    chunking: str | None = None,
    created: str | None = None,
) -> ExportPlan:
    """Work out the version ``export_testset`` would write, without writing anything.

    Raises when a stored version of ``name`` was changed after export (or is gone).
    """
    name = check_name(name)
    selection.check()
    out = Path(out)
    chunking = chunking or store.corpus.current_chunking()
    if not store.corpus.chunking_exists(chunking):
        msg = f"no chunking named {chunking!r}"
        raise NotFoundError(msg, field="chunking")
    infos = list_versions(out, name, store=store)
    check_intact(infos)
    require = selection.require

    with store.snapshot():
        questions = store.labels.judged_questions(chunking, selection.statuses())
        judged = {q["id"] for q in questions}
        labels = [row for row in store.labels.chunking_labels(chunking) if row[0] in judged]
        marks = [row for row in store.labels.unanswerable_marks(chunking) if row[0] in judged]
        adjudications = store.adjudications.current(chunking)
        depths = store.pools.run_depths(chunking)
        runs = require.resolve(depths, chunking)
        ids = _selected(questions, labels, marks, selection)
        policy = get_policy(selection.policy)
        agreed = consensus(labels, marks, adjudications, policy=policy, questions=ids)
        content, missing = _content(store, chunking, questions, agreed)
        found = _completeness(store, chunking, questions, agreed, content, depths)
        short = tuple(c for _, c in sorted(found.items()) if not require.met(c, runs, depths))
        left_out = short if require.action == "leave-out" else ()
        if left_out:
            ids -= {c.question_id for c in left_out}
            agreed = consensus(labels, marks, adjudications, policy=policy, questions=ids)
            content, missing = _content(store, chunking, questions, agreed)
        wanted = set(selection.tags)
        stale = sum(
            1
            for row in store.labels.stale_labels(chunking, selection.statuses())
            if not wanted or wanted & set(row["tags"])
        )

    files = {
        **serialise(content),
        COMPLETENESS: serialise_lines(found[q].record() for q in sorted(content.questions)),
    }
    key = content_key(
        name, chunking, selection.min_grade, {n: sha256_hex(files[n]) for n in CONTENT_FILES}
    )
    existing = next(
        (i for i in infos if i.manifest and _same(i.manifest, key, files, chunking, selection)),
        None,
    )
    parent = infos[-1].number if infos else None
    diff = None
    if parent is not None:
        trust = version_trust(store, store.versions.recorded(name).get(parent), infos[-1].path)
        diff = diff_contents(read_version(infos[-1].path, trust=trust).content, content)
    reviewers = sorted({r for q in content.questions for r in agreed.reviewers.get(q, ())})
    exported = {q: found[q] for q in content.questions}
    counts = _counts(content, agreed, selection.min_grade, exported, len(left_out))
    plan = ExportPlan(
        name=name,
        out=out,
        chunking=chunking,
        selection=selection,
        version=(parent or 0) + 1,
        parent=parent,
        content=content,
        files=files,
        manifest={},
        content_key=key,
        counts=counts,
        reviewers=tuple(reviewers),
        diff=diff,
        existing=None if existing is None else existing.number,
        disagreements=agreed.disagreements,
        missing_chunks=missing,
        stale_labels=stale,
        completeness=exported,
        required_runs=runs,
        left_out=left_out,
        incomplete=tuple(c for c in short if c.question_id in content.questions),
        existing_hash=None if existing is None else existing.manifest.get("content_hash"),
    )
    return replace(plan, manifest=_manifest(plan, created or now()))


def _manifest(plan: ExportPlan, created: str) -> dict:
    """The version's manifest, sealed: every field and every file under its content hash."""
    summary = plan.completeness_summary()
    fields = {
        "format": FORMAT,
        "name": plan.name,
        "version": plan.version,
        "parent": plan.parent,
        "created": created,
        "tool": {"name": "labeler", "version": __version__},
        "chunking": plan.chunking,
        "selection": plan.selection.as_dict(),
        "min_grade": plan.selection.min_grade,
        "policy": plan.selection.policy,
        "counts": dict(plan.counts),
        "reviewers": list(plan.reviewers),
        "completeness": {k: summary[k] for k in ("rule", "require_depth", "runs", "partial")}
        | {"left_out": summary["left_out"], "incomplete": summary["incomplete"]},
        "changes": None
        if plan.diff is None or plan.parent is None
        else changes_record(plan.diff, plan.parent),
    }
    return seal(fields, plan.files)


def _same(
    manifest: dict, key: str, files: Mapping[str, bytes], chunking: str, selection: Selection
) -> bool:
    """Whether an existing version holds this content (``content_key``; for an old, v1
    version: the same files, chunking and min_grade, since its hash covered the files only)."""
    if manifest.get("format", FORMAT_V1) != FORMAT_V1:
        return manifest_content_key(manifest) == key
    return (
        manifest["content_hash"] == content_hash_v1(files)
        and manifest.get("chunking") == chunking
        and manifest.get("min_grade", 1) == selection.min_grade
    )


SHOWN_INCOMPLETE = 20


class IncompleteError(LabelerError):
    """``--partial error``: questions fall short of the completeness required."""

    def __init__(self, plan: ExportPlan) -> None:
        short = plan.incomplete
        listed = ", ".join(
            f"{c.question_id} ({c.ungraded} ungraded; {c.depths()})"
            for c in short[:SHOWN_INCOMPLETE]
        )
        more = f" and {len(short) - SHOWN_INCOMPLETE} more" if len(short) > SHOWN_INCOMPLETE else ""
        rule = plan.completeness_summary()["rule"]
        msg = (
            f"{len(short)} question{'' if len(short) == 1 else 's'} not graded as required"
            f" ({rule}): {listed}{more}; grade them, or export with --partial leave-out to"
            " leave them out"
        )
        super().__init__(msg, field="partial")
        self.plan = plan


def export_testset(
    store: Store,
    name: str,
    *,
    out: str | Path = DEFAULT_OUT,
    selection: Selection = Selection(),
    chunking: str | None = None,
    dry_run: bool = False,
    created: str | None = None,
    actor: str | None = None,
) -> ExportResult:
    """Export the labels as the next version of test set ``name`` (see the module docstring).

    Raises DisagreementError when reviewers disagree and no policy settles it, and
    LabelerError when no question qualifies, or when questions fall short of the completeness
    required and ``--partial error`` was asked. ``actor``: the person exporting, whose right to
    is checked and whose name the database records beside the version (the app always names its
    logged-in account, the CLI its ``--as`` name or the operating-system user; a script holding
    the file may name nobody).
    """
    if actor is not None and not dry_run:
        require(store, actor, Right.EXPORT)
    plan = plan_export(
        store, name, out=out, selection=selection, chunking=chunking, created=created
    )
    if plan.disagreements:
        raise DisagreementError(plan.disagreements)
    if plan.incomplete and selection.require.action == "error":
        raise IncompleteError(plan)
    if not plan.content.questions:
        msg = (
            f"nothing to export: no {' or '.join(selection.statuses())} question in chunking"
            f" {plan.chunking!r} has a label or an unanswerable mark that passes the selection"
        )
        raise LabelerError(msg)
    folder = plan.out / plan.name
    if plan.existing is not None:
        return ExportResult(plan, "unchanged", plan.existing, folder / f"v{plan.existing}")
    if dry_run:
        return ExportResult(plan, "dry-run", plan.version, folder / f"v{plan.version}")
    path = write_version(
        store,
        folder,
        plan.version,
        plan.files,
        dict(plan.manifest),
        record={
            "name": plan.name,
            "content_hash": plan.content_hash,
            "chunking": plan.chunking,
            "parent": plan.parent,
            "counts": dict(plan.counts),
            "selection": plan.selection.as_dict(),
            "created_at": str(plan.manifest["created"]),
            "exported_by": actor,
        },
    )
    return ExportResult(plan, "created", plan.version, path)


__all__ = [
    "DEFAULT_OUT",
    "ExportPlan",
    "ExportResult",
    "IncompleteError",
    "Selection",
    "export_testset",
    "partial_rows",
    "plan_export",
]
