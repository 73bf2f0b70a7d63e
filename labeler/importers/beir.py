"""Import a BEIR folder: ``corpus.jsonl`` as chunks, ``queries.jsonl`` as questions and
``qrels/<split>.tsv`` as a reviewer's labels."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers.corpus import write_chunks
from labeler.importers.qrels import graded, write_labels
from labeler.importers.questions import write_questions
from labeler.models import ImportReport
from labeler.readers import Progress, check_file, iter_beir_qrels, iter_jsonl
from labeler.store import Store


def _renamed(
    records: Iterator[tuple[int, dict]], id_field: str = "_id"
) -> Iterator[tuple[int, dict]]:
    for line, record in records:
        record = dict(record)
        if id_field in record:
            record["id"] = record.pop(id_field)
        yield line, record


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
    """The three parts in one transaction: all or nothing. Only the split's queries come in.

    The qrels file is ``query-id corpus-id score``, tab- or space-separated, after an optional
    header that must be exactly ``query-id corpus-id score`` (any other first line is data)."""
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
    wanted = {row.question_id for row in iter_beir_qrels(qrels)}
    skipped = [0]
    with store.write():
        reports = [
            write_chunks(
                store,
                corpus,
                lambda counted: _renamed(iter_jsonl(corpus, counted)),
                chunking=chunking,
                progress=progress,
            )
        ]
        split_queries = [
            (line, record)
            for line, record in _renamed(iter_jsonl(queries))
            if str(record.get("id")) in wanted
        ]
        if not split_queries:
            msg = f"none of the queries of split {split!r} is in this file"
            raise LabelerError(msg, path=queries)
        reports.append(write_questions(store, queries, split_queries))
        lines = graded(iter_beir_qrels(qrels), qrels, grade_map, skipped)
        reports.append(
            write_labels(store, qrels, lines, reviewer=reviewer, chunking=chunking, skipped=skipped)
        )
    return reports
