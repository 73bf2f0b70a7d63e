"""Import a retrieval run: a TREC run, JSON lines or JSON (the grammar of
``labeler.readers.runs``, the same one ``labeler eval`` reads). ``read_checked_run`` reads one
for evaluation with the very same checks, without storing it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from labeler.errors import LabelerError
from labeler.grading.labeling import refresh_progress
from labeler.importers.staging import keyed, lines_named
from labeler.models import ImportReport
from labeler.readers import Progress, check_file, iter_run
from labeler.store import Store

if TYPE_CHECKING:
    from labeler.metrics.tables import Run

DEFAULT_POOL_DEPTH = 10


def _stage(store: Store, path: Path, chunking: str, progress: Progress | None) -> set[str]:
    """Parse the file into the store's staging table and check it (every question and chunk
    known, no chunk twice for a question); returns the TREC run names it holds."""
    tags: set[str] = set()

    def staged():
        for row in iter_run(path, progress):
            if row.tag is not None:
                tags.add(row.tag)
            yield row.line, row.question_id, row.chunk_id, row.rank, row.score

    store.runs.stage_results(keyed(staged()))
    with lines_named():
        store.runs.check_staged_results(chunking, str(path))
    return tags


def _run_name(name: str | None, tags: set[str], path: Path) -> str:
    """The name given, else the TREC run name when the file has one, else the file's name."""
    return name or (next(iter(tags)) if len(tags) == 1 else path.stem)


def read_checked_run(
    store: Store,
    path: str | Path,
    *,
    name: str | None = None,
    chunking: str | None = None,
    shown_as: str | None = None,
) -> Run:
    """A run file read for evaluation without importing it, checked exactly as ``import_run``
    checks it (the same grammar, every question and chunk id known in the chunking, no chunk
    twice for a question) and ranked as an import would rank it. Nothing is stored.
    ``shown_as`` names the file as its user knows it (an upload, not its temporary copy)."""
    from labeler.metrics.tables import Run

    path = check_file(path)
    chunking = chunking or store.corpus.current_chunking()
    with store.snapshot():
        tags = _stage(store, path, chunking, None)
        rows = store.runs.staged_ranking()
    return Run.from_rows(
        _run_name(name, tags, Path(shown_as) if shown_as else path),
        [r[0] for r in rows],
        [r[1] for r in rows],
        ranks=[r[2] for r in rows],
        source=shown_as or str(path),
    )


def import_run(
    store: Store,
    path: str | Path,
    *,
    name: str | None = None,
    chunking: str | None = None,
    pool_depth: int = DEFAULT_POOL_DEPTH,
    progress: Progress | None = None,
) -> ImportReport:
    """A retriever's ranked chunks per question. Importing a run again under its name replaces
    it; an identical file changes nothing. Every question and chunk id must already exist.
    The run's name defaults to its TREC run name (when the file has one), else the file name.
    """
    path = check_file(path)
    if pool_depth < 1:
        raise LabelerError(f"must be at least 1, got {pool_depth}", field="pool-depth")
    chunking = chunking or store.corpus.current_chunking()
    with store.write():
        tags = _stage(store, path, chunking, progress)
        run_name = _run_name(name, tags, path)
        added, updated, unchanged = store.runs.merge_staged_results(
            run_name, chunking, str(path), pool_depth=pool_depth
        )
        if added or updated:
            for question_id in store.runs.graded_questions_in_staged_results(chunking):
                refresh_progress(store, question_id, chunking)
    return ImportReport(
        "run",
        str(path),
        added=added,
        updated=updated,
        unchanged=unchanged,
        detail=f"run {run_name!r}, top {pool_depth} pooled",
    )
