"""Import a BEIR folder: ``corpus.jsonl`` as chunks, ``queries.jsonl`` as questions and
``qrels/<split>.tsv`` as a reviewer's labels."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.corpus import write_chunks
from labeler.importers.qrels import _lines, write_labels
from labeler.importers.questions import write_questions
from labeler.models import ImportReport
from labeler.readers import Progress, check_file, iter_columns, iter_jsonl
from labeler.store import Store


def _renamed(
    records: Iterator[tuple[int, dict]], id_field: str = "_id"
) -> Iterator[tuple[int, dict]]:
    for line, record in records:
        record = dict(record)
        if id_field in record:
            record["id"] = record.pop(id_field)
        yield line, record


def _without_header(rows: Iterator[tuple[int, list[str]]]) -> Iterator[tuple[int, list[str]]]:
    for line, cols in rows:
        if line == 1 and cols and not cols[-1].lstrip("-").isdigit():
            continue
        yield line, cols


def import_beir(
    store: Store,
    folder: str | Path,
    *,
    split: str = "test",
    chunking: str = "default",
    reviewer: str = "imported",
    grade_map: dict[int, int | None] | None = None,
    progress: Progress | None = None,
) -> list[ImportReport]:
    """The three parts in one transaction: all or nothing. Only the split's queries come in."""
    folder = Path(folder)
    if not folder.is_dir():
        raise LabelerError("not a folder (expected a BEIR folder with corpus.jsonl)", path=folder)
    corpus = check_file(folder / "corpus.jsonl")
    queries = check_file(folder / "queries.jsonl")
    qrels = folder / "qrels" / f"{split}.tsv"
    if not qrels.is_file():
        found = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
        msg = f"no qrels for split {split!r} (found: {', '.join(found) or 'none'})"
        raise LabelerError(msg, path=qrels)
    wanted = {cols[0] for _, cols in _without_header(iter_columns(qrels))}
    skipped = [0]
    with store.write():
        reports = [
            write_chunks(store, corpus, _renamed(iter_jsonl(corpus, progress)), chunking=chunking)
        ]
        split_queries = (
            (line, record)
            for line, record in _renamed(iter_jsonl(queries))
            if str(record.get("id")) in wanted
        )
        reports.append(write_questions(store, queries, split_queries))
        lines = _lines(_without_header(iter_columns(qrels)), qrels, grade_map, skipped, columns=3)
        reports.append(
            write_labels(store, qrels, lines, reviewer=reviewer, chunking=chunking, skipped=skipped)
        )
    return reports
