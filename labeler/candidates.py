"""A question's candidate chunks, pooled as TREC pools them, shown blind.

The pool is the union of every imported run's top ``pool_depth``, the top ``SEARCH_POOL_SIZE`` of
the built-in full-text search (BM25) on the question, chunks a reviewer added from the search
box, source chunks of a generated question, and chunks anyone already labelled. The order is a
hash of (question, chunk): stable for a question, but neither any retriever's order nor the
same order across questions, so a reviewer cannot tell which system found what (blind pooling).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from labeler.models import Question
from labeler.pooling import SEARCH_POOL_SIZE, ensure_search_pool
from labeler.store import Store


@dataclass(frozen=True, slots=True)
class PoolEntry:
    chunk_id: str
    # (source, position) pairs: which runs found it and where; hidden on the page by default.
    sources: tuple[tuple[str, int | None], ...]


def blind_key(question_id: str, chunk_id: str) -> str:
    return hashlib.sha1(f"{question_id}\x00{chunk_id}".encode()).hexdigest()


def pool(store: Store, question: Question, chunking: str) -> list[PoolEntry]:
    """The question's candidates in blind order, each with the sources that found it.

    The search pool is computed here if it is not current (``labeler.pooling`` computes it
    ahead, so that this is normally a read).
    """
    ensure_search_pool(store, question, chunking)
    found: dict[str, list[tuple[str, int | None]]] = {}
    for chunk_id, source, position in store.pools.sources(question.id, chunking):
        found.setdefault(chunk_id, []).append((source, position))
    if question.source_chunk_ids:
        existing = store.corpus.get_chunks(chunking, list(question.source_chunk_ids))
        for chunk_id in existing:
            found.setdefault(chunk_id, []).append(("generated-from", None))
    return [
        PoolEntry(chunk_id, tuple(sorted(set(sources), key=_source_order)))
        for chunk_id, sources in sorted(found.items(), key=lambda kv: blind_key(question.id, kv[0]))
    ]


def _source_order(source: tuple[str, int | None]) -> tuple[int, str, int]:
    name, position = source
    return (name.startswith(("search:", "added:", "labelled", "generated")), name, position or 0)


def describe_sources(entry: PoolEntry) -> str:
    """ "bm25 #3, hybrid #1, full-text search #7": for reviewers who reveal the sources."""
    parts = []
    for name, position in entry.sources:
        label = {"search:bm25": "full-text search", "labelled": "labelled before"}.get(name, name)
        if label.startswith("added:"):
            label = "added (" + label.removeprefix("added:") + ")"
        parts.append(f"{label} #{position}" if position is not None else label)
    return ", ".join(parts)


__all__ = [
    "SEARCH_POOL_SIZE",
    "PoolEntry",
    "blind_key",
    "describe_sources",
    "ensure_search_pool",
    "pool",
]
