"""Load the bundled demo (``data/demo/``) into a database: the same importers a user runs."""

from __future__ import annotations

from pathlib import Path

from labeler.errors import LabelerError
from labeler.importers import (
    import_chunks,
    import_documents,
    import_qrels,
    import_questions,
    import_run,
)
from labeler.importers.readers import iter_columns
from labeler.labeling import mark
from labeler.models import ImportReport
from labeler.store import Store

DEMO_DIR = Path(__file__).resolve().parents[1] / "data" / "demo"
DEMO_DB = "labeler-demo.db"


def load_demo(store: Store, folder: str | Path = DEMO_DIR) -> list[ImportReport]:
    """Documents, chunks, questions, three runs, and two reviewers' labels. Idempotent."""
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
        reports += [import_run(store, run) for run in sorted((folder / "runs").glob("*.trec"))]
        for qrels in sorted((folder / "labels").glob("*.qrels")):
            reports.append(import_qrels(store, qrels, reviewer=qrels.stem))
        unanswerable = folder / "labels" / "unanswerable.tsv"
        if unanswerable.is_file():
            for _, cols in iter_columns(unanswerable):
                mark(store, cols[0], cols[1], unanswerable=True)
    return reports


__all__ = ["DEMO_DB", "DEMO_DIR", "load_demo"]
