"""Import a retrieval run: TREC run format or JSONL."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.labeling import refresh_progress
from labeler.models import ImportReport
from labeler.readers import (
    Progress,
    as_int,
    as_text,
    check_file,
    iter_columns,
    iter_jsonl,
)
from labeler.store import Store

DEFAULT_POOL_DEPTH = 10


def _score(value: object, *, path: Path, line: int) -> float | None:
    if value is None or value == "":
        return None
    try:
        score = float(value)
    except (TypeError, ValueError):
        score = math.nan
    if math.isnan(score) or isinstance(value, bool):
        raise LabelerError(f"expected a number, got {value!r}", path=path, line=line, field="score")
    return score


def _trec_lines(path: Path, tags: set[str], progress: Progress | None) -> Iterator[tuple]:
    for line, cols in iter_columns(path, progress):
        if len(cols) != 6:
            msg = f"expected 6 columns (qid Q0 docid rank score tag), got {len(cols)}"
            raise LabelerError(msg, path=path, line=line)
        rank = as_int(cols[3], path=path, line=line, field="rank")
        tags.add(cols[5])
        yield line, cols[0], cols[2], rank, _score(cols[4], path=path, line=line)


def _jsonl_lines(path: Path, progress: Progress | None) -> Iterator[tuple]:
    for line, record in iter_jsonl(path, progress):
        values = []
        for field in ("question_id", "chunk_id"):
            if record.get(field) in (None, ""):
                raise LabelerError("missing or empty", path=path, line=line, field=field)
            values.append(as_text(record[field], path=path, line=line, field=field))
        rank = as_int(record.get("rank"), path=path, line=line, field="rank")
        score = _score(record.get("score"), path=path, line=line)
        if rank is None and score is None:
            raise LabelerError("needs a rank or a score", path=path, line=line, field="rank")
        yield line, *values, rank, score


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
    """
    path = check_file(path)
    if pool_depth < 1:
        raise LabelerError(f"must be at least 1, got {pool_depth}", field="pool-depth")
    chunking = chunking or store.current_chunking()
    tags: set[str] = set()
    jsonl = path.suffix.lower() in (".jsonl", ".ndjson")
    with store.write():
        lines = _jsonl_lines(path, progress) if jsonl else _trec_lines(path, tags, progress)
        count = store.stage_results(lines)
        if count == 0:
            raise LabelerError("the run holds no results", path=path)
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
