"""A BEIR folder: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/test.tsv``.

BEIR's loader reads ``_id``, ``title`` and ``text``; the extra keys (a chunk's ``doc_id``, a
query's ``reference_answer``, ``tags`` and ``unanswerable``) are ignored by BEIR tooling and read
back by ``labeler import testset``, so a version survives the trip through BEIR unchanged.
Unanswerable questions are in ``queries.jsonl`` but not in the qrels (BEIR drops them).
"""

from __future__ import annotations

import json
from pathlib import Path

from labeler.exporters.writing import write_text
from labeler.versions.format import Version

CORPUS = "corpus.jsonl"
QUERIES = "queries.jsonl"
QRELS = "qrels/test.tsv"
QRELS_HEADER = "query-id\tcorpus-id\tscore\n"


def _line(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n"


def write(version: Version, out: Path, min_grade: int) -> list[Path]:
    content = version.content
    corpus = []
    for chunk_id in sorted(content.chunks):
        chunk = content.chunks[chunk_id]
        record = {"_id": chunk.id, "title": chunk.title or "", "text": chunk.text}
        if chunk.doc_id is not None:
            record["doc_id"] = chunk.doc_id
        corpus.append(_line(record))
    queries = []
    for question_id in sorted(content.questions):
        question = content.questions[question_id]
        record = {"_id": question.id, "text": question.text}
        if question.reference_answer is not None:
            record["reference_answer"] = question.reference_answer
        if question.tags:
            record["tags"] = list(question.tags)
        if question.unanswerable:
            record["unanswerable"] = True
        queries.append(_line(record))
    qrels = QRELS_HEADER + "".join(f"{q}\t{c}\t{g}\n" for q, c, g in content.qrels_lines())
    return [
        write_text(out / CORPUS, "".join(corpus)),
        write_text(out / QUERIES, "".join(queries)),
        write_text(out / QRELS, qrels),
    ]


__all__ = ["CORPUS", "QRELS", "QRELS_HEADER", "QUERIES", "write"]
