"""Hand-made corpora for the remap tests: documents, two chunkings cut from them by quoting
the text each chunk holds, questions and labels."""

from __future__ import annotations

from labeler.store import Store

RETURNS = (
    "# Returns\n\n"
    "Unopened items can be returned within 30 days of delivery for a full refund.\n\n"
    "Opened items can be returned within 14 days if they are unused and can be resold.\n\n"
    "## Postage\n\n"
    "The customer pays return postage unless the item is faulty or was sent in error.\n\n"
    "Fernleaf Plus members never pay return postage, whatever the reason for the return.\n\n"
    "## Gift cards\n\n"
    "Gift cards cannot be returned or exchanged for cash once they have been activated.\n"
)

QUESTIONS = [
    {"id": "q1", "text": "How long do I have to return an unopened item?"},
    {"id": "q2", "text": "Who pays for return postage?"},
    {"id": "q3", "text": "Can I return a gift card?"},
]


def span(text: str, piece: str) -> tuple[int, int]:
    start = text.index(piece)
    assert text.count(piece) == 1, piece
    return start, start + len(piece)


def chunks_of(doc_id: str, text: str, pieces: dict[str, str]) -> list[dict]:
    rows = []
    for chunk_id, piece in pieces.items():
        start, end = span(text, piece)
        rows.append({"id": chunk_id, "doc_id": doc_id, "text": piece, "start": start, "end": end})
    return rows


def setup(
    store: Store,
    v1: dict[str, str],
    v2: dict[str, str],
    *,
    text: str = RETURNS,
    new_text: str | None = None,
    doc_id: str = "returns",
    new_doc_id: str | None = None,
) -> None:
    """Document ``doc_id`` with ``text`` cut into chunking v1, and its new version (the same
    text unless ``new_text``; under ``new_doc_id`` when given) cut into chunking v2."""
    store.questions.upsert(QUESTIONS)
    store.corpus.upsert_documents([{"id": doc_id, "title": "Returns", "text": text}])
    store.corpus.ensure_chunking("v1")
    store.corpus.upsert_chunks("v1", chunks_of(doc_id, text, v1))
    target = new_doc_id or doc_id
    new = text if new_text is None else new_text
    if new_text is not None or new_doc_id is not None:
        store.corpus.upsert_documents([{"id": target, "title": "Returns", "text": new}])
    store.corpus.ensure_chunking("v2")
    store.corpus.upsert_chunks("v2", chunks_of(target, new, v2))


def grade(store: Store, question: str, chunk: str, value: int, reviewer: str = "maria") -> None:
    store.labels.set_grade(question, "v1", chunk, reviewer, value)


P_UNOPENED = "Unopened items can be returned within 30 days of delivery for a full refund."
P_OPENED = "Opened items can be returned within 14 days if they are unused and can be resold."
P_PAYS = "The customer pays return postage unless the item is faulty or was sent in error."
P_PLUS = "Fernleaf Plus members never pay return postage, whatever the reason for the return."
P_GIFT = "Gift cards cannot be returned or exchanged for cash once they have been activated."
BOTH = P_UNOPENED + "\n\n" + P_OPENED
POSTAGE = "## Postage\n\n" + P_PAYS + "\n\n" + P_PLUS
