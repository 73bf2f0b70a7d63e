"""Search pools computed ahead, so that opening a question never waits for the search.

A question's pool holds the top ``SEARCH_POOL_SIZE`` of the exact BM25 search on its text
(``store.search.pool_search``); for a turn of a conversation, on the query its search choice
gives (``labeler.conversations``: its rewrite, else the turn with the previous user turn). At
a million chunks that search takes a tenth of a second to a second, so it is computed before
the reviewer gets there: a ``PoolWorker`` thread
(``labeler.grading.worker``) computes the pools of the next questions in the reviewer's queue,
and ``labeler pool --compute`` fills them all.

Every computation goes through ``ensure_search_pool``, which claims the question in the
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from labeler.conversations import search_text
from labeler.models import Question
from labeler.store import Store
from labeler.store.base import text_hash

SEARCH_POOL_SIZE = 10
# Part of every pool's key: a change of search method recomputes the stored pools.
SEARCH_METHOD = "bm25-exact-1"
# A claim older than this is taken over: its worker died, or is far slower than any search.
CLAIM_STALE_S = 60.0
WAIT_POLL_S = 0.05


def pool_key(store: Store, question: Question, chunking: str) -> str:
    """Changes when the query, the corpus, the pool size or the method changes. The query is
    the question's text, or for a turn of a conversation what its search choice asks
    (``labeler.conversations.search_text``): choosing another recomputes the pool."""
    revision = store.corpus.chunks_revision(chunking)
    query = search_text(question)
    return text_hash(f"{query}\x00{revision}\x00{SEARCH_POOL_SIZE}\x00{SEARCH_METHOD}")


def pool_ready(store: Store, question: Question, chunking: str) -> bool:
    """True when the question's search pool is stored and current: opening it is a read."""
    return store.pools.fts_pool_hash(question.id, chunking) == pool_key(store, question, chunking)


def worker_id(prefix: str) -> str:
    return f"{prefix}:{os.getpid()}:{threading.get_ident()}:{uuid.uuid4().hex[:8]}"


def _stale_before() -> str:
    moment = datetime.now(UTC) - timedelta(seconds=CLAIM_STALE_S)
    return moment.isoformat(timespec="microseconds")


def ensure_search_pool(
    store: Store,
    question: Question,
    chunking: str,
    *,
    worker: str | None = None,
    wait: bool = True,
) -> str:
    """Make the question's search pool current; returns what happened.

    ``ready``: it already was. ``written``: this call searched and stored it. ``busy``: another
    worker is computing it and ``wait`` is false. With ``wait``, a busy pool is waited for
    (polling the database), and taken over if its claim goes stale.
    """
    key = pool_key(store, question, chunking)
    if store.pools.fts_pool_hash(question.id, chunking) == key:
        return "ready"  # the common case, a read: no write lock for a claim
    worker = worker or worker_id("open")
    while True:
        state = store.pools.claim_fts_pool(
            question.id, chunking, key, worker, stale_before=_stale_before()
        )
        if state == "ready":
            return "ready"
        if state == "busy":
            if not wait:
                return "busy"
            # Poll with reads until the other worker's pool is stored, or its claim is stale.
            give_up = time.monotonic() + CLAIM_STALE_S
            while time.monotonic() < give_up:
                time.sleep(WAIT_POLL_S)
                if store.pools.fts_pool_hash(question.id, chunking) == key:
                    return "ready"
            continue
        try:
            started = time.perf_counter()
            hits = store.search.pool_search(chunking, search_text(question), limit=SEARCH_POOL_SIZE)
            elapsed = (time.perf_counter() - started) * 1000
        except BaseException:
            with contextlib.suppress(Exception):
                store.pools.release_fts_claim(question.id, chunking, worker)
            raise
        wrote = store.pools.save_fts_pool(
            question.id, chunking, key, hits, worker=worker, search_ms=round(elapsed, 1)
        )
        return "written" if wrote else "ready"


@dataclass(frozen=True, slots=True)
class ComputeReport:
    """What ``compute_pools`` did: pools written, pools already current, and the time."""

    written: int
    current: int
    missing: tuple[str, ...]
    seconds: float

    def summary(self) -> str:
        text = (
            f"search pools: {self.written} computed, {self.current} already current"
            f" ({self.seconds:.1f} s)"
        )
        if self.missing:
            text += f"; unknown questions: {', '.join(self.missing[:5])}"
            text += " …" if len(self.missing) > 5 else ""
        return text


def compute_pools(
    store: Store,
    question_ids: Iterable[str],
    chunking: str,
    *,
    progress: Callable[[int], None] | None = None,
) -> ComputeReport:
    """Compute the search pools of these questions that are not current, one commit each.

    Resumable: stopped halfway, the next run skips what was stored. A question another worker
    is computing is waited for rather than computed twice.
    """
    started = time.perf_counter()
    worker = worker_id("compute")
    stored = store.pools.fts_pool_hashes(chunking)
    written = current = 0
    missing: list[str] = []
    for question_id in question_ids:
        question = store.questions.get(question_id)
        if question is None:
            missing.append(question_id)
        elif stored.get(question_id) == pool_key(store, question, chunking):
            current += 1
        elif ensure_search_pool(store, question, chunking, worker=worker) == "written":
            written += 1
        else:
            current += 1
        if progress is not None:
            progress(1)
    return ComputeReport(written, current, tuple(missing), time.perf_counter() - started)


__all__ = [
    "CLAIM_STALE_S",
    "SEARCH_POOL_SIZE",
    "ComputeReport",
    "compute_pools",
    "ensure_search_pool",
    "pool_key",
    "pool_ready",
    "worker_id",
]
