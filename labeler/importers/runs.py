"""Import a retrieval run: a TREC run, JSON lines or JSON (the grammar of
``labeler.readers.runs``, the same one ``labeler eval`` reads)."""

from __future__ import annotations

from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.staging import keyed, lines_named
from labeler.labeling import refresh_progress
from labeler.models import ImportReport
from labeler.readers import Progress, check_file, iter_run
from labeler.store import Store

DEFAULT_POOL_DEPTH = 10


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
    chunking = chunking or store.current_chunking()
    tags: set[str] = set()

    def staged():
        for row in iter_run(path, progress):
            if row.tag is not None:
                tags.add(row.tag)
            yield row.line, row.question_id, row.chunk_id, row.rank, row.score

    with store.write():
        store.stage_results(keyed(staged()))
        with lines_named():
            store.check_staged_results(chunking, str(path))
        run_name = name or (tags.pop() if len(tags) == 1 else path.stem)
        added, updated, unchanged = store.merge_staged_results(
            run_name, chunking, str(path), pool_depth=pool_depth
        )
        if added or updated:
            for question_id in store.graded_questions_in_staged_results(chunking):
                refresh_progress(store, question_id, chunking)
    return ImportReport(
        "run",
        str(path),
        added=added,
        updated=updated,
        unchanged=unchanged,
        detail=f"run {run_name!r}, top {pool_depth} pooled",
    )
