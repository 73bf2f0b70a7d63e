"""Import TREC qrels as the labels of a named reviewer, mapping other grade scales onto 0/1/2."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.grading.labeling import refresh_progress
from labeler.importers.staging import keyed, lines_named
from labeler.models import ImportReport
from labeler.readers import Progress, QrelsRow, as_grade, check_file, iter_qrels
from labeler.store import Store, check_reviewer

SKIP = None


def parse_grade_map(text: str | None) -> dict[int, int | None] | None:
    """``"4:2,3:2,2:1,1:1,0:0,-1:skip"`` -> {4: 2, 3: 2, 2: 1, 1: 1, 0: 0, -1: None}."""
    if text is None or not text.strip():
        return None
    mapping: dict[int, int | None] = {}
    for part in text.split(","):
        source, _, target = part.partition(":")
        try:
            key = as_grade(source.strip(), field="grade-map")
            value = None if target.strip().lower() == "skip" else as_grade(target.strip())
        except LabelerError:
            msg = f"expected FROM:TO pairs like 4:2,0:0,-1:skip; cannot read {part.strip()!r}"
            raise LabelerError(msg, field="grade-map") from None
        if value is not None and value not in (0, 1, 2):
            msg = f"{part.strip()!r} maps onto {value}; grades are 0, 1 or 2 (or skip)"
            raise LabelerError(msg, field="grade-map")
        mapping[key] = value
    return mapping


def graded(
    rows: Iterable[QrelsRow],
    path: Path,
    grade_map: dict[int, int | None] | None,
    skipped: list[int],
) -> Iterator[tuple[int, str, str, int]]:
    """(line, question, chunk, grade 0-2) from qrels rows: the file's grades must be 0, 1 or 2,
    or be mapped onto them by ``grade_map`` (a grade mapped to ``SKIP`` is counted in
    ``skipped[0]`` and left out)."""
    for line, question_id, chunk_id, raw in rows:
        if chunk_id is None or raw is None:
            continue  # a question listed without labels: nothing to import
        if grade_map is not None:
            if raw not in grade_map:
                msg = f"grade {raw} is not in --grade-map"
                raise LabelerError(msg, path=path, line=line, field="grade")
            grade = grade_map[raw]
            if grade is SKIP:
                skipped[0] += 1
                continue
        elif raw not in (0, 1, 2):
            msg = f"expected 0, 1 or 2, got {raw} (use --grade-map to map another scale)"
            raise LabelerError(msg, path=path, line=line, field="grade")
        else:
            grade = raw
        yield line, question_id, chunk_id, grade


def import_qrels(
    store: Store,
    path: str | Path,
    *,
    reviewer: str = "imported",
    grade_map: dict[int, int | None] | None = None,
    chunking: str | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Judgements from another tool (TREC qrels, JSON lines or JSON: the grammar of
    ``labeler.readers.qrels``), recorded as ``reviewer``'s labels with full history."""
    path = check_file(path)
    skipped = [0]
    lines = graded(iter_qrels(path, progress), path, grade_map, skipped)
    return write_labels(store, path, lines, reviewer=reviewer, chunking=chunking, skipped=skipped)


def write_labels(
    store: Store,
    path: Path,
    lines: Iterable[tuple[int, str, str, int]],
    *,
    reviewer: str,
    chunking: str | None,
    skipped: list[int],
) -> ImportReport:
    """Stage (line, question, chunk, grade), check every id, merge as ``reviewer``'s labels."""
    reviewer = check_reviewer(reviewer)
    chunking = chunking or store.corpus.current_chunking()
    with store.write():
        store.labels.stage_labels(keyed(lines))
        with lines_named():
            store.labels.check_staged_labels(chunking, str(path))
        added, updated, unchanged = store.labels.merge_staged_labels(chunking, reviewer)
        if added or updated:
            for question_id in store.labels.staged_label_questions():
                refresh_progress(store, question_id, chunking)
    return ImportReport(
        "qrels",
        str(path),
        added=added,
        updated=updated,
        unchanged=unchanged,
        skipped=skipped[0],
        detail=f"reviewer {reviewer!r}",
    )
