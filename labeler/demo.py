"""Load the bundled demo (``data/demo/``) into a database: the same importers a user runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from labeler.accounts.assignments import load_assignments
from labeler.dense.project import dense_config, embed_chunking, installed_key
from labeler.errors import LabelerError
from labeler.grading.candidates import pool
from labeler.grading.labeling import mark, set_note
from labeler.grading.worker import compute_pools
from labeler.importers import (
    import_chunks,
    import_documents,
    import_qrels,
    import_questions,
    import_run,
)
from labeler.importers.qrels import write_labels
from labeler.importers.ragas import import_ragas
from labeler.models import ImportReport
from labeler.readers import iter_columns, iter_jsonl
from labeler.store import Store

DEMO_DIR = Path(__file__).resolve().parents[1] / "data" / "demo"
DEMO_DB = "labeler-demo.db"
# The second chunking (data/demo_source/remap.py): the labels are remapped onto it, and what the
# rules cannot decide waits in the app's remap queue.
REMAP_CHUNKING = "sentences"


def load_demo(store: Store, folder: str | Path = DEMO_DIR) -> list[ImportReport]:
    """Documents, chunks, questions, support conversations (some turns graded), three runs,
    two reviewers' labels and the work assigned to them, a second chunking the labels are
    remapped onto, and generated questions to review, some already decided. Idempotent."""
    folder = Path(folder)
    if not (folder / "chunks.jsonl").is_file():
        msg = "no demo data here (expected chunks.jsonl); run python data/build_demo.py"
        raise LabelerError(msg, path=folder)
    with store.write():
        reports = [
            import_documents(store, folder / "documents.jsonl"),
            import_chunks(store, folder / "chunks.jsonl", chunking="default"),
            import_questions(store, folder / "questions.jsonl"),
        ]
        reports += _conversations(store, folder / "conversations")
        reports += [import_run(store, run) for run in sorted((folder / "runs").glob("*.trec"))]
        for qrels in sorted((folder / "labels").glob("*.qrels")):
            reports.append(import_qrels(store, qrels, reviewer=qrels.stem))
        marked = _unanswerable(folder)
        for question_id, reviewer in marked:
            mark(store, question_id, reviewer, unanswerable=True)
        assigned = folder / "labels" / "assignments.tsv"
        if assigned.is_file():
            rows = [(cols[0], cols[1]) for _, cols in iter_columns(assigned)]
            added = load_assignments(store, rows, batch="demo", actor="demo")
            reports.append(
                ImportReport("assignments", str(assigned), added=added, unchanged=len(rows) - added)
            )
        reports += _complete_all_pools(store, folder, set(marked))
        reports += load_judge_demo(store, folder / "judge")
        if (folder / "remap" / "chunks.jsonl").is_file():
            reports += _load_remap(store, folder / "remap")
        if (folder / "review").is_dir():
            reports += _review(store, folder / "review")
    reports += _results_versions(store)
    return reports


def _conversations(store: Store, folder: Path) -> list[ImportReport]:
    """The support conversations, as MTRAG's task file and rewrite queries (``labeler import
    mtrag``): their turns, and the reviewers' feedback on some of them as their labels. The
    passages are the demo's own chunks, matched by id, so their report is left out."""
    from labeler.importers.mtrag import import_mtrag

    tasks = folder / "tasks.jsonl"
    if not tasks.is_file():
        return []
    rewrites = folder / "rewrites.jsonl"
    found = import_mtrag(store, tasks, rewrites=str(rewrites) if rewrites.is_file() else None)
    return [r for r in found if r.kind != "passages"]


# The spot-check plans the demo opens on: (metric, judge, per stratum, seed, disagreements, name).
DEMO_PLANS = (
    ("relevance", "gpt-4o-mini", 8, 11, True, "relevance spot-check"),
    ("Faithfulness", "gpt-4o-mini", 3, 3, False, "faithfulness spot-check"),
)


def load_judge_demo(store: Store, folder: Path) -> list[ImportReport]:
    """The judge's decisions, people's verdicts on some, and the two spot-check plans."""
    from labeler.judge.importing import import_judgements
    from labeler.judge.sampling import sample_plan

    if not folder.is_dir():
        return []
    reports = []
    for name in ("relevance.jsonl", "faithfulness_deepeval.json", "faithfulness_reviews.jsonl"):
        result = import_judgements(store, folder / name)
        reports.append(
            ImportReport(
                f"judge ({result.format})",
                result.path,
                added=result.added,
                updated=result.updated,
                unchanged=result.unchanged,
            )
        )
    notes = folder / "notes.jsonl"
    if notes.is_file():
        changed = 0
        for _, row in iter_jsonl(notes):
            before = {
                (r["chunk_id"], r["reviewer"]): r["note"]
                for r in store.labels.question_labels(
                    row["question"], store.corpus.current_chunking()
                )
            }
            if before.get((row["chunk_id"], row["reviewer"])) != row["note"]:
                set_note(store, row["question"], row["chunk_id"], row["reviewer"], row["note"])
                changed += 1
        reports.append(ImportReport("reviewers' notes", str(notes), updated=changed))
    for metric, judge, per_stratum, seed, disagreements, name in DEMO_PLANS:
        plan = sample_plan(
            store,
            metric,
            judge=judge,
            per_stratum=per_stratum,
            seed=seed,
            disagreements=disagreements,
            name=name,
            created_by="demo",
        )
        count = len(plan.items)
        reports.append(
            ImportReport(
                "sample plan",
                name,
                added=count if plan.created else 0,
                unchanged=0 if plan.created else count,
            )
        )
    return reports


def _load_remap(store: Store, folder: Path) -> list[ImportReport]:
    """The revised documents and the second chunking, then the remap of every label onto it
    (the grading page keeps working on ``default``: the current chunking does not change)."""
    reports = [
        import_documents(store, folder / "documents.jsonl"),
        import_chunks(store, folder / "chunks.jsonl", chunking=REMAP_CHUNKING),
    ]
    return [*reports, _remap_labels(store, folder)]


def _remap_labels(store: Store, folder: Path) -> ImportReport:
    """The remap of every label of ``default`` onto the second chunking (again after labels
    were added: a second remap carries only the new ones)."""
    from labeler.remap import remap

    result = remap(store, "default", REMAP_CHUNKING)
    proposals = {
        (m.question_id, m.new_chunk) for m in result.plan.label_mappings() if m.decision == "queued"
    }
    return ImportReport(
        "remap",
        str(folder),
        added=result.labels_added,
        unchanged=result.labels_present,
        detail=f"default -> {REMAP_CHUNKING}: {len(proposals)} proposals in the remap queue",
    )


def _review(store: Store, folder: Path) -> list[ImportReport]:
    """Generated questions as a Ragas testset and as another generator's JSONL, and what the
    demo's reviewers already decided (only on questions nobody has decided yet)."""
    from labeler.review import accept, reject

    reports = [
        import_ragas(store, folder / "ragas_testset.jsonl", tags=("generated",)).report,
        import_questions(store, folder / "generated.jsonl").report,
    ]
    decided = 0
    for line, row in iter_jsonl(folder / "decisions.jsonl"):
        question_id = row["question_id"]
        if store.questions.get(question_id) is None:
            msg = f"no generated question {question_id!r} (rebuild with data/build_demo.py)"
            raise LabelerError(msg, path=folder / "decisions.jsonl", line=line)
        if store.reviews.history(question_id):
            continue
        if row["decision"] == "accept":
            accept(store, question_id, row["reviewer"], seconds=row.get("seconds"))
        else:
            reject(
                store,
                question_id,
                row["reviewer"],
                row["reason"],
                note=row.get("note"),
                seconds=row.get("seconds"),
            )
        decided += 1
    reports.append(ImportReport("review decisions", str(folder), added=decided))
    return reports


DEMO_TESTSET = "fernleaf-support"


def _results_versions(store: Store) -> list[ImportReport]:
    """Two versions of a test set, so the Results page can show a run on both side by side:
    v1 holds the questions both reviewers graded (the first, double-checked set), v2 every
    graded question; disagreements settled by majority. Written beside the demo database
    (where the app looks) the first time only: later loads, and a reviewer's own grading in
    the demo, never add versions."""
    from labeler.config import exports_dir
    from labeler.export import Selection, export_testset
    from labeler.versions.history import list_versions

    out = exports_dir(store.path)
    if list_versions(out, DEMO_TESTSET):
        return [ImportReport("test-set versions", str(out / DEMO_TESTSET), unchanged=2)]
    reports = []
    for selection in (Selection(min_reviewers=2, policy="majority"), Selection(policy="majority")):
        result = export_testset(store, DEMO_TESTSET, out=out, selection=selection)
        reports.append(
            ImportReport(
                "test-set version",
                str(result.path),
                added=int(result.status == "created"),
                unchanged=int(result.status != "created"),
                detail=f"{DEMO_TESTSET} v{result.version}",
            )
        )
    return reports


def _unanswerable(folder: Path) -> list[tuple[str, str]]:
    """(question, reviewer) of the demo's unanswerable marks, in the file's order."""
    unanswerable = folder / "labels" / "unanswerable.tsv"
    if not unanswerable.is_file():
        return []
    return [(cols[0], cols[1]) for _, cols in iter_columns(unanswerable)]


def _complete_all_pools(
    store: Store, folder: Path, marked: set[tuple[str, str]]
) -> list[ImportReport]:
    truth = folder / "ground_truth.qrels"
    if not truth.is_file():
        return []
    reports = []
    for reviewer in sorted(p.stem for p in (folder / "labels").glob("*.qrels")):
        report = _complete_pools(store, truth, reviewer, marked)
        if report is not None:
            reports.append(report)
    return reports


def embed_demo(
    store: Store,
    folder: str | Path = DEMO_DIR,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> list[ImportReport]:
    """Where the embed extra is installed: vectors for the demo's chunks (336, once: a second
    load embeds nothing), every question's dense pool, and the pools the demo's reviewers
    finished completed again from the ground truth, so their questions still open as finished
    work while the others show dense candidates to grade. Without the extra, nothing (the
    demo works without dense candidates)."""
    if installed_key(dense_config(store).model) is None:
        return []
    chunking = store.corpus.current_chunking()
    embedded = embed_chunking(store, chunking, progress=progress)
    pools = compute_pools(store, store.questions.ids(), chunking, kinds=("dense",))
    reports = [
        ImportReport(
            "vectors",
            str(embedded.path),
            added=embedded.embedded,
            unchanged=embedded.chunks - embedded.embedded,
            detail=embedded.model_key,
        ),
        ImportReport(
            "dense pools", chunking, added=pools.written, unchanged=pools.current, detail=""
        ),
    ]
    remapped = Path(folder) / "remap"
    with store.write():
        completed = _complete_all_pools(store, Path(folder), set(_unanswerable(Path(folder))))
        reports += completed
        if completed and (remapped / "chunks.jsonl").is_file():
            # The labels that completed the pools are carried to the second chunking now, as
            # load_demo carried the others, so that loading the demo again changes nothing.
            reports.append(_remap_labels(store, remapped))
    return reports


def _complete_pools(
    store: Store, truth: Path, reviewer: str, marked: set[tuple[str, str]]
) -> ImportReport | None:
    """The demo's reviewers graded the top of each run; our pool also holds the full-text
    search's hits. Grade the rest of each pool they worked on from the ground truth (not
    relevant unless it says otherwise), recorded as an import, so their questions open as
    finished work and the app shows both work done and work to do."""
    grades = {(cols[0], cols[2]): int(cols[3]) for _, cols in iter_columns(truth)}
    chunking = store.corpus.current_chunking()
    lines = []
    for question_id in store.labels.labelled_questions(chunking, reviewer):
        if (question_id, reviewer) in marked:
            continue
        done = {
            r["chunk_id"]
            for r in store.labels.question_labels(question_id, chunking)
            if r["reviewer"] == reviewer
        }
        question = store.questions.get(question_id)
        for entry in pool(store, question, chunking):
            if entry.chunk_id not in done:
                lines.append(
                    (
                        len(lines) + 1,
                        question_id,
                        entry.chunk_id,
                        grades.get((question_id, entry.chunk_id), 0),
                    )
                )
    if not lines:
        return None
    report = write_labels(store, truth, lines, reviewer=reviewer, chunking=chunking, skipped=[0])
    return replace(report, kind="pool completion", detail=f"reviewer {reviewer!r}")


__all__ = ["DEMO_DB", "DEMO_DIR", "embed_demo", "load_demo"]
