"""A question's candidate chunks, pooled as TREC pools them, shown blind.

The pool is the union of every imported run's top ``pool_depth``, the top ``SEARCH_POOL_SIZE`` of
the built-in full-text search (BM25) on the question, where the chunking has vectors the top
``depth`` of the dense search on the same text (``dense_pools``), chunks a reviewer added from
the search box, source chunks of a generated question, and chunks anyone already labelled. The
order is a hash of (question, chunk): stable for a question, but neither any retriever's order
nor the same order across questions, so a reviewer cannot tell which system found what (blind
pooling).

``pool`` is the one reading of a pool: the grading page, progress, ``labeler pool`` and the
pool inspection all take it from here, with every source that put each chunk there, in one
order of sources (``SOURCE_KINDS``). ``stored_sources`` is the same reading of many questions at
once, as stored (no search pool is computed), the rows ``pool`` builds its entries from: what an
export reads in its one read transaction to say how completely each question is graded.

The searches' pools are computed ahead (``COMPUTED``, by ``ensure_pools``); when one gains or
loses candidates for a question someone has graded, that question's progress is saved again
there, so the counters never call a question fully graded that has new candidates.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from labeler.conversations import search_choice, search_text
from labeler.errors import NotFoundError
from labeler.grading.completion import save_progress
from labeler.grading.dense_pools import DENSE
from labeler.grading.search_pools import (
    SEARCH,
    SEARCH_POOL_SIZE,
    ComputedSource,
    computed_ready,
    ensure_computed,
)
from labeler.models import Question
from labeler.store import Store
from labeler.store.pool import PoolSource

# The kinds of source, in the order a chunk's sources are listed (see ``PoolSource``).
SOURCE_KINDS = ("run", "search", "dense", "generator", "added", "labelled")
# The sources computed ahead and stored, in the order they are computed.
COMPUTED: tuple[ComputedSource, ...] = (SEARCH, DENSE)


@dataclass(frozen=True, slots=True)
class PoolEntry:
    chunk_id: str
    # Every source that put the chunk in the pool, in SOURCE_KINDS order; hidden on the page by
    # default.
    sources: tuple[PoolSource, ...]


def blind_key(question_id: str, chunk_id: str) -> str:
    return hashlib.sha1(f"{question_id}\x00{chunk_id}".encode()).hexdigest()


def _source_order(source: PoolSource) -> tuple[int, str, int]:
    return (SOURCE_KINDS.index(source.kind), source.name or "", source.rank or 0)


def pools_ready(store: Store, question: Question, chunking: str) -> bool:
    """Every computed pool of the question is current: opening it is a read."""
    return all(computed_ready(store, source, question, chunking) for source in COMPUTED)


def ensure_pools(
    store: Store,
    questions: Sequence[Question],
    chunking: str,
    *,
    kinds: Iterable[str] | None = None,
    worker: str | None = None,
    wait: bool = True,
) -> dict[str, dict[str, str]]:
    """Make the computed pools (of ``kinds``, default all) of these questions current; for
    each kind, what happened to each question (``search_pools.ensure_computed``). Questions
    whose pool was written and that have progress get it saved again from the new pool."""
    wanted = set(kinds) if kinds is not None else {s.kind for s in COMPUTED}
    states = {
        source.kind: ensure_computed(store, source, questions, chunking, worker=worker, wait=wait)
        for source in COMPUTED
        if source.kind in wanted
    }
    written = {q for found in states.values() for q, state in found.items() if state == "written"}
    for question in questions:
        if question.id in written and store.progress.of_question(question.id, chunking):
            save_progress(
                store,
                question.id,
                chunking,
                [e.chunk_id for e in stored_pool(store, question, chunking)],
                store.labels.question_labels(question.id, chunking),
                store.labels.marks(question.id, chunking),
            )
    return states


def _sources(
    question: Question, provenance: list[PoolSource], generated_from: Iterable[str]
) -> list[PoolSource]:
    """Every source of a question's pool: the stored ones, and the chunks it was generated
    from that the chunking holds (unless a stored source says so already; ``stored_sources``
    follows the same rule over many questions)."""
    generated = {s.chunk_id for s in provenance if s.kind == "generator"}
    name = question.generator or "generated"
    return provenance + [
        PoolSource(chunk_id, "generator", name, None)
        for chunk_id in dict.fromkeys(generated_from)
        if chunk_id not in generated
    ]


def _entries(question: Question, sources: Iterable[PoolSource]) -> list[PoolEntry]:
    """A question's pool from its sources: one entry per chunk, its sources in SOURCE_KINDS
    order, in blind order."""
    found: dict[str, dict[PoolSource, None]] = {}
    for source in sources:
        found.setdefault(source.chunk_id, {})[source._replace(chunk_id="")] = None
    return [
        PoolEntry(chunk_id, tuple(sorted(sources, key=_source_order)))
        for chunk_id, sources in sorted(found.items(), key=lambda kv: blind_key(question.id, kv[0]))
    ]


def pool(store: Store, question: Question, chunking: str) -> list[PoolEntry]:
    """The question's candidates in blind order, each with the sources that found it.

    The computed pools are made current here if they are not (``labeler.grading.worker``
    computes them ahead, so that this is normally a read).
    """
    ensure_pools(store, [question], chunking)
    return stored_pool(store, question, chunking)


def stored_pool(store: Store, question: Question, chunking: str) -> list[PoolEntry]:
    """``pool`` as stored now, computing nothing."""
    generated_from = (
        store.corpus.get_chunks(chunking, list(question.source_chunk_ids))
        if question.source_chunk_ids
        else {}
    )
    provenance = store.pools.provenance(question.id, chunking)
    return _entries(question, _sources(question, provenance, generated_from))


def stored_sources(
    store: Store, questions: Iterable[Question], chunking: str
) -> dict[str, list[tuple]]:
    """Every source of each question's pool as stored, in a few queries: the rows ``pool``
    builds its entries from, as ``(question, chunk, kind, name, rank, via)`` (a
    ``PoolSource`` after the question). A search pool not computed yet is not in it, and
    nothing is written, so it runs inside a read transaction."""
    questions = list(questions)
    provenance = store.pools.provenance_rows(chunking, [q.id for q in questions])
    wanted = {c for q in questions for c in q.source_chunk_ids}
    known = set(store.corpus.get_chunks(chunking, sorted(wanted))) if wanted else set()
    found = {}
    for q in questions:
        rows = provenance.get(q.id, [])
        if q.source_chunk_ids:
            generated = {row[1] for row in rows if row[2] == "generator"}
            name = q.generator or "generated"
            rows = rows + [
                (q.id, chunk_id, "generator", name, None, None)
                for chunk_id in dict.fromkeys(q.source_chunk_ids)
                if chunk_id in known and chunk_id not in generated
            ]
        found[q.id] = rows
    return found


def describe_sources(entry: PoolEntry) -> str:
    """ "bm25 #3, full-text search #7, dense search #2": for reviewers who reveal the
    sources."""
    parts: dict[str, None] = {}
    for source in entry.sources:
        if source.kind == "run":
            part = f"{source.name} #{source.rank}"
        elif source.kind == "search":
            part = f"full-text search #{source.rank}"
        elif source.kind == "dense":
            part = f"dense search #{source.rank}"
        elif source.via is not None:
            part = f"added ({source.via})"
        elif source.kind == "generator":
            part = "generated-from"
        else:
            part = "labelled before"
        parts[part] = None
    return ", ".join(parts)


def inspect_pools(store: Store, question_ids: Iterable[str], chunking: str) -> list[dict]:
    """Each question's candidates in the order reviewers see them, with every source that put
    them there: ``{"question", "search": {"with", "query"}, "candidates": [{"chunk",
    "sources": [{"kind", "name", "rank"}]}]}`` (``labeler pool``); ``search`` says what the
    searches were asked (``with`` is "text", or a turn's search choice). It is ``pool``:
    computed pools that are missing or stale are computed first (all the questions together),
    so this is the pool a reviewer opening the question now sees."""
    questions = []
    for question_id in question_ids:
        question = store.questions.get(question_id)
        if question is None:
            msg = f"unknown question {question_id!r}"
            raise NotFoundError(msg, field="question_id")
        questions.append(question)
    ensure_pools(store, questions, chunking)
    return [
        {
            "question": question.id,
            "search": {"with": search_choice(question) or "text", "query": search_text(question)},
            "candidates": [
                {
                    "chunk": entry.chunk_id,
                    "sources": [
                        {"kind": s.kind, "name": s.name, "rank": s.rank} for s in entry.sources
                    ],
                }
                for entry in stored_pool(store, question, chunking)
            ],
        }
        for question in questions
    ]


__all__ = [
    "COMPUTED",
    "SEARCH_POOL_SIZE",
    "SOURCE_KINDS",
    "PoolEntry",
    "blind_key",
    "describe_sources",
    "ensure_pools",
    "inspect_pools",
    "pool",
    "pools_ready",
    "stored_pool",
    "stored_sources",
]
