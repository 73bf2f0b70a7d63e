"""A BEIR folder: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/test.tsv``.

BEIR's loader reads ``_id``, ``title`` and ``text``; the extra keys (a chunk's ``doc_id``, a
query's ``reference_answer``, ``tags``, ``unanswerable`` and, for a turn of a conversation,
``conversation``: its conversation, turn, history and rewrite) are ignored by BEIR tooling and
read back by ``labeler import testset``, so a version survives the trip through BEIR unchanged.
Unanswerable questions are in ``queries.jsonl`` but not in the qrels (BEIR drops them).

A version holding conversations also gets the three query files MTRAG ships for retrieval,
one line per question, in MTRAG's own shape (``{"_id", "text"}``, each user message a line
``|user|: ...``): ``queries_lastturn.jsonl`` (the turn alone), ``queries_rewrite.jsonl`` (its
standalone rewrite, the turn itself where it has none) and ``queries_questions.jsonl`` (every
user turn up to it, MTRAG's "all questions"). A question that stands alone is the same line in
all three. Point BEIR's loader at one of them (``query_file=``) to compare the three.
"""

from __future__ import annotations

import json
from pathlib import Path

from labeler.conversations import turn_record, user_texts
from labeler.exporters.writing import write_text
from labeler.models import Question
from labeler.versions.format import Version

CORPUS = "corpus.jsonl"
QUERIES = "queries.jsonl"
QRELS = "qrels/test.tsv"
QRELS_HEADER = "query-id\tcorpus-id\tscore\n"
# MTRAG's three query files, written when the version holds conversations: name -> the user
# messages a question's query holds.
VARIANTS = {
    "queries_lastturn.jsonl": lambda q: [q.text],
    "queries_rewrite.jsonl": lambda q: [q.turn.rewrite if q.turn and q.turn.rewrite else q.text],
    "queries_questions.jsonl": user_texts,
}
USER = "|user|: "


def mtrag_query(messages: list[str]) -> str:
    """MTRAG's query text: each user message on a line of its own, after ``|user|: ``."""
    return "\n".join(USER + m for m in messages)


def _variant_lines(questions: list[Question], variant) -> str:
    return "".join(
        json.dumps({"_id": q.id, "text": mtrag_query(variant(q))}, ensure_ascii=False) + "\n"
        for q in questions
    )


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
        if question.turn is not None:
            record["conversation"] = turn_record(question.turn)
        queries.append(_line(record))
    qrels = QRELS_HEADER + "".join(f"{q}\t{c}\t{g}\n" for q, c, g in content.qrels_lines())
    written = [
        write_text(out / CORPUS, "".join(corpus)),
        write_text(out / QUERIES, "".join(queries)),
        write_text(out / QRELS, qrels),
    ]
    ordered = [content.questions[q] for q in sorted(content.questions)]
    if any(q.turn is not None for q in ordered):
        written += [
            write_text(out / name, _variant_lines(ordered, variant))
            for name, variant in VARIANTS.items()
        ]
    return written


__all__ = ["CORPUS", "QRELS", "QRELS_HEADER", "QUERIES", "VARIANTS", "mtrag_query", "write"]
