"""Search pools computed ahead, so that opening a question never waits for the search.

A question's pool holds the top ``SEARCH_POOL_SIZE`` of the exact BM25 search on its text
(``store.search.pool_search``); for a turn of a conversation, on the query its search choice
gives (``labeler.conversations``: its rewrite, else the turn with the previous user turn). At
a million chunks that search takes a tenth of a second to a second, so it is computed before
the reviewer gets there: a ``PoolWorker`` thread
(``labeler.grading.worker``) computes the pools of the next questions in the reviewer's queue,
and ``labeler pool --compute`` fills them all.

The same holds for every source of candidates that is computed rather than imported: a
``ComputedSource`` says how its pool is keyed and computed (the BM25 search here, the dense
search in ``dense_pools``), and ``ensure_computed`` is the one engine that stores them. Both
search the same text, ``pool_query``.

Every computation goes through ``ensure_computed``, which claims the question in the
database first: two workers (two reviewers' servers, the CLI beside the app, the page opening a
question the worker is on) never compute or write one pool twice, and a claim left by a worker
that died goes stale and is taken over, so no pool is lost. The search itself runs outside any
transaction, and the write that stores it is one short transaction: reviewers' grades never
wait for a search.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from labeler.conversations import search_text
from labeler.models import Question
from labeler.store import SearchHit, Store
from labeler.store.base import text_hash
from labeler.store.pool import PoolKind

SEARCH_POOL_SIZE = 10
# Part of every pool's key: a change of search method recomputes the stored pools.
SEARCH_METHOD = "bm25-exact-1"
# A claim older than this is taken over: its worker died, or is far slower than any search.
CLAIM_STALE_S = 60.0
WAIT_POLL_S = 0.05


def pool_query(question: Question) -> str:
    """The text a question's pools search with: its text, or for a turn of a conversation what
    its search choice asks (``labeler.conversations.search_text``: its rewrite, or the turn with
    the previous user turn, ...). BM25 and dense search take the same text, so that what one
    finds and the other misses is down to the search, never to the query."""
    return search_text(question)


def pool_key(store: Store, question: Question, chunking: str) -> str:
    """Changes when the query, the corpus, the pool size or the method changes. The query is
    the question's text, or for a turn of a conversation what its search choice asks
    (``labeler.conversations.search_text``): choosing another recomputes the pool."""
    revision = store.corpus.chunks_revision(chunking)
    return text_hash(
        f"{pool_query(question)}\x00{revision}\x00{SEARCH_POOL_SIZE}\x00{SEARCH_METHOD}"
    )


def pool_ready(store: Store, question: Question, chunking: str) -> bool:
    """True when the question's search pool is stored and current: opening it is a read."""
    return computed_ready(store, SEARCH, question, chunking)


def worker_id(prefix: str) -> str:
    return f"{prefix}:{os.getpid()}:{threading.get_ident()}:{uuid.uuid4().hex[:8]}"


def _stale_before() -> str:
    moment = datetime.now(UTC) - timedelta(seconds=CLAIM_STALE_S)
    return moment.isoformat(timespec="microseconds")


# one engine for every pool computed ahead ----------------------------------------------------


class Computed(NamedTuple):
    """One question's results from a source: the hits, and the milliseconds they took (a
    batch's time shared among its questions)."""

    hits: list[SearchHit]
    ms: float


@dataclass(frozen=True, slots=True)
class ComputedSource:
    """A source of candidates computed ahead and stored (``store.pools`` of ``kind``).

    ``key(store, question, chunking)``: what the stored pool must have been computed for to be
    current, None when the source is off for the chunking. ``compute(store, questions,
    chunking)``: their results, in order, yielded as each is ready; it is given at most
    ``batch`` questions at a time. ``model(store, chunking)``: what a dense pool records as its
    model.
    """

    kind: PoolKind
    key: Callable[[Store, Question, str], str | None]
    compute: Callable[[Store, Sequence[Question], str], Iterable[Computed]]
    batch: int = 1
    model: Callable[[Store, str], str | None] = lambda store, chunking: None


def computed_ready(store: Store, source: ComputedSource, question: Question, chunking: str) -> bool:
    """The source's pool of the question is current (or the source is off)."""
    key = source.key(store, question, chunking)
    return key is None or store.pools.fts_pool_hash(question.id, chunking, kind=source.kind) == key


def ensure_computed(
    store: Store,
    source: ComputedSource,
    questions: Sequence[Question],
    chunking: str,
    *,
    worker: str | None = None,
    wait: bool = True,
) -> dict[str, str]:
    """Make the source's pools of these questions current; returns what happened to each.

    ``ready``: it already was. ``written``: this call computed and stored it. ``busy``: another
    worker is computing it and ``wait`` is false. ``off``: the source is off for the chunking.
    Questions are claimed and computed ``source.batch`` at a time (a dense search shares one
    pass over the vectors among a batch; a claim never waits long for its computation). With
    ``wait``, busy pools are waited for (polling the database), and taken over if their claim
    goes stale.
    """
    states: dict[str, str] = {}
    todo: dict[str, tuple[Question, str]] = {}
    for question in questions:
        key = source.key(store, question, chunking)
        if key is None:
            states[question.id] = "off"
        elif store.pools.fts_pool_hash(question.id, chunking, kind=source.kind) == key:
            states[question.id] = "ready"  # the common case, a read: no write lock for a claim
        else:
            todo[question.id] = (question, key)
    worker = worker or worker_id("open")
    pending = list(todo.items())
    for start in range(0, len(pending), source.batch):
        batch = dict(pending[start : start + source.batch])
        _ensure_batch(store, source, batch, chunking, worker=worker, wait=wait, states=states)
    return states


def _ensure_batch(
    store: Store,
    source: ComputedSource,
    todo: dict[str, tuple[Question, str]],
    chunking: str,
    *,
    worker: str,
    wait: bool,
    states: dict[str, str],
) -> None:
    """Claim, compute and store one batch (``states`` filled in), waiting for busy ones."""
    while todo:
        claimed: list[tuple[Question, str]] = []
        for question_id, (question, key) in todo.items():
            state = store.pools.claim_fts_pool(
                question_id, chunking, key, worker, stale_before=_stale_before(), kind=source.kind
            )
            if state == "claimed":
                claimed.append((question, key))
            else:
                states[question_id] = state
        states.update(_compute_claimed(store, source, claimed, chunking, worker))
        todo = {q: todo[q] for q in todo if states[q] == "busy"}
        if not todo or not wait:
            return
        _wait_for(store, source, todo, chunking, states)
        todo = {q: todo[q] for q in todo if states[q] == "busy"}


def _compute_claimed(
    store: Store,
    source: ComputedSource,
    claimed: list[tuple[Question, str]],
    chunking: str,
    worker: str,
) -> dict[str, str]:
    """Compute the claimed pools (outside any transaction) and store each in one short one:
    reviewers' grades never wait for a search. Claims not stored are released on failure."""
    states: dict[str, str] = {}
    if not claimed:
        return states
    model = source.model(store, chunking)
    try:
        results = source.compute(store, [q for q, _ in claimed], chunking)
        for (question, key), found in zip(claimed, results, strict=True):
            wrote = store.pools.save_fts_pool(
                question.id,
                chunking,
                key,
                found.hits,
                worker=worker,
                search_ms=round(found.ms, 1),
                kind=source.kind,
                model=model,
            )
            states[question.id] = "written" if wrote else "ready"
    except BaseException:
        for question, _ in claimed:
            if question.id not in states:
                with contextlib.suppress(Exception):
                    store.pools.release_fts_claim(question.id, chunking, worker, kind=source.kind)
        raise
    return states


def _wait_for(
    store: Store,
    source: ComputedSource,
    todo: dict[str, tuple[Question, str]],
    chunking: str,
    states: dict[str, str],
) -> None:
    """Poll with reads until the other workers' pools are stored (marked ready here), or
    their claims go stale (left busy: the caller claims them again)."""
    give_up = time.monotonic() + CLAIM_STALE_S
    while time.monotonic() < give_up and any(states[q] == "busy" for q in todo):
        time.sleep(WAIT_POLL_S)
        for question_id, (_, key) in todo.items():
            stored = store.pools.fts_pool_hash(question_id, chunking, kind=source.kind)
            if states[question_id] == "busy" and stored == key:
                states[question_id] = "ready"


# the BM25 search pool -----------------------------------------------------------------------


def _search(store: Store, questions: Sequence[Question], chunking: str) -> Iterator[Computed]:
    for question in questions:
        started = time.perf_counter()
        hits = store.search.pool_search(chunking, pool_query(question), limit=SEARCH_POOL_SIZE)
        yield Computed(hits, (time.perf_counter() - started) * 1000)


SEARCH = ComputedSource("search", pool_key, _search)


def ensure_search_pool(
    store: Store,
    question: Question,
    chunking: str,
    *,
    worker: str | None = None,
    wait: bool = True,
) -> str:
    """Make the question's search pool current; returns what happened (``ensure_computed``:
    ``ready``, ``written`` or ``busy``)."""
    return ensure_computed(store, SEARCH, [question], chunking, worker=worker, wait=wait)[
        question.id
    ]


__all__ = [
    "CLAIM_STALE_S",
    "SEARCH",
    "SEARCH_POOL_SIZE",
    "Computed",
    "ComputedSource",
    "computed_ready",
    "ensure_computed",
    "ensure_search_pool",
    "pool_key",
    "pool_query",
    "pool_ready",
    "worker_id",
]
