"""Search pools computed ahead, so that opening a question never waits for the search.

A question's pool holds the top ``SEARCH_POOL_SIZE`` of the exact BM25 search on its text
(``store.search.pool_search``). At a million chunks that search takes a tenth of a second to a second,
so it is computed before the reviewer gets there: a ``PoolWorker`` thread computes the pools of
the next questions in the reviewer's queue, and ``labeler pool --compute`` fills them all.

Every computation goes through ``ensure_search_pool``, which claims the question in the
database first: two workers (two reviewers' servers, the CLI beside the app, the page opening a
question the worker is on) never compute or write one pool twice, and a claim left by a worker
that died goes stale and is taken over, so no pool is lost. The search itself runs outside any
transaction, and the write that stores it is one short transaction: reviewers' grades never
wait for a search.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import ClassVar

from labeler.models import Question
from labeler.store import Store
from labeler.store.base import text_hash

SEARCH_POOL_SIZE = 10
# Part of every pool's key: a change of search method recomputes the stored pools.
SEARCH_METHOD = "bm25-exact-1"
# A claim older than this is taken over: its worker died, or is far slower than any search.
CLAIM_STALE_S = 60.0
WAIT_POLL_S = 0.05
# How many questions ahead the app computes, and how many requests a worker keeps.
PREFETCH_AHEAD = 5
WORKER_BACKLOG = 50

log = logging.getLogger(__name__)


def pool_key(store: Store, question: Question, chunking: str) -> str:
    """Changes when the question's text, the corpus, the pool size or the method changes."""
    revision = store.corpus.chunks_revision(chunking)
    return text_hash(f"{question.text}\x00{revision}\x00{SEARCH_POOL_SIZE}\x00{SEARCH_METHOD}")


def pool_ready(store: Store, question: Question, chunking: str) -> bool:
    """True when the question's search pool is stored and current: opening it is a read."""
    return store.pools.fts_pool_hash(question.id, chunking) == pool_key(store, question, chunking)


def _worker_id(prefix: str) -> str:
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
    worker = worker or _worker_id("open")
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
            hits = store.search.pool_search(chunking, question.text, limit=SEARCH_POOL_SIZE)
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
    worker = _worker_id("compute")
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


class PoolWorker:
    """A daemon thread that computes search pools ahead, through its own store connection.

    ``request`` puts questions at the front of its list and returns at once; the thread takes
    them in order, skips those already current or being computed elsewhere, and writes the
    rest. One shared worker per database per process (``shared``) serves every session of a
    Streamlit server; further processes run their own, and the claims keep them apart.
    """

    _shared: ClassVar[dict[str, PoolWorker]] = {}
    _shared_lock = threading.Lock()

    def __init__(self, db_path: str | Path, *, name: str | None = None) -> None:
        self.db_path = str(db_path)
        self.name = name or _worker_id("worker")
        self.written = 0
        self.failures: list[str] = []
        self._pending: list[tuple[str, str]] = []
        # Where each reviewer is: (chunking, reviewer) -> (current question, tag, how many).
        self._positions: dict[tuple[str, str], tuple] = {}
        self._followed: dict[tuple[str, str], tuple[str | None, str | None, int]] = {}
        self._current: tuple[str, str] | None = None
        self._stopping = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="labeler-pool-worker", daemon=True)
        self._thread.start()

    @classmethod
    def shared(cls, db_path: str | Path) -> PoolWorker:
        """This process's worker for the database, started on first use (and if it died)."""
        key = str(Path(db_path).resolve())
        with cls._shared_lock:
            worker = cls._shared.get(key)
            if worker is None or not worker.alive:
                worker = cls._shared[key] = cls(key)
            return worker

    @classmethod
    def stop_shared(cls) -> None:
        """Stop every shared worker of this process (tests, and a clean shutdown)."""
        with cls._shared_lock:
            workers, cls._shared = list(cls._shared.values()), {}
        for worker in workers:
            worker.stop()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self._stopping

    def request(self, chunking: str, question_ids: Sequence[str]) -> None:
        """Compute these next, in this order, before anything asked for earlier."""
        with self._cond:
            self._put_first(chunking, question_ids)
            self._cond.notify_all()

    def follow(
        self,
        chunking: str,
        reviewer: str,
        current: str | None,
        *,
        tag: str | None = None,
        queue: str | None = None,
        ahead: int = PREFETCH_AHEAD,
    ) -> None:
        """The reviewer is on ``current``: compute the pools of the next ``ahead`` questions
        of their queue (``labeling.QUEUES``: the default, or another one plugged in). Returns
        at once: the queue is read on the worker's thread, so the page pays nothing for it."""
        position = (current, tag, ahead, queue)
        with self._cond:
            if self._followed.get((chunking, reviewer)) == position:
                return  # a rerun on the same question (a grade, a note): nothing new to do
            self._followed[(chunking, reviewer)] = position
            self._positions[(chunking, reviewer)] = position
            self._cond.notify_all()

    def _put_first(self, chunking: str, question_ids: Sequence[str]) -> None:
        wanted = [(chunking, q) for q in dict.fromkeys(question_ids)]
        self._pending = wanted + [p for p in self._pending if p not in wanted]
        del self._pending[WORKER_BACKLOG:]

    def pending(self) -> list[tuple[str, str]]:
        with self._cond:
            return list(self._pending)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is pending or being computed; False on timeout."""
        with self._cond:
            return self._cond.wait_for(
                lambda: not self._pending and not self._positions and self._current is None,
                timeout=timeout,
            )

    def stop(self, timeout: float | None = 10.0) -> None:
        with self._cond:
            self._stopping = True
            self._pending.clear()
            self._cond.notify_all()
        self._thread.join(timeout)

    def _open_store(self) -> Store:
        return Store(self.db_path)

    def _run(self) -> None:
        _lower_this_threads_priority()
        store = self._open_store()
        try:
            while True:
                with self._cond:
                    self._cond.wait_for(lambda: self._pending or self._positions or self._stopping)
                    if self._stopping:
                        return
                    positions, self._positions = self._positions, {}
                    # While positions are read, the worker counts as busy (see wait_idle).
                    self._current = ("", "") if positions else self._pending.pop(0)
                try:
                    if positions:
                        self._resolve(store, positions)
                    else:
                        self._compute(store, *self._current)
                except Exception as error:  # a bad question must not stop the worker
                    log.exception("pool worker: %s failed", self._current)
                    self.failures.append(f"{self._current[1]}: {error}")
                    del self.failures[:-100]
                finally:
                    with self._cond:
                        self._current = None
                        self._cond.notify_all()
        finally:
            store.close()

    def _resolve(self, store: Store, positions: dict) -> None:
        """Turn reviewers' positions into the questions to compute next."""
        from labeler.labeling import queue_rows  # the labelling core imports this module

        for (chunking, reviewer), (current, tag, ahead, queue) in positions.items():
            rows = queue_rows(store, reviewer, queue=queue, tag=tag, chunking=chunking)
            with self._cond:
                self._put_first(chunking, upcoming_questions(rows, current, ahead))

    def _compute(self, store: Store, chunking: str, question_id: str) -> None:
        question = store.questions.get(question_id)
        if question is None:
            return
        if ensure_search_pool(store, question, chunking, worker=self.name, wait=False) == (
            "written"
        ):
            self.written += 1


def _lower_this_threads_priority(by: int = 10) -> None:
    """On Linux a thread has its own nice value: the worker's searches then yield the CPU to
    the page's reruns on a busy machine. Elsewhere (or if refused) nothing changes."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + by)


def upcoming_questions(rows: Sequence[dict], current: str | None, count: int) -> list[str]:
    """The next ``count`` questions a reviewer on ``current`` opens by pressing Next: walking
    the queue ``rows`` on from ``current`` and wrapping, those still to do or partly graded,
    then the skipped ones (the grading page's next-question rule, applied ``count`` times)."""
    ids = [r["id"] for r in rows]
    start = ids.index(current) + 1 if current in ids else 0
    ordered = [r for r in rows[start:] + rows[:start] if r["id"] != current]
    ahead = [r["id"] for r in ordered if r["state"] in ("todo", "started")]
    ahead += [r["id"] for r in ordered if r["state"] == "skipped"]
    return ahead[:count]


def inspect_pools(store: Store, question_ids: Iterable[str], chunking: str) -> list[dict]:
    """Each question's candidates in the order reviewers see them, with every source that put
    them there: ``{"question", "candidates": [{"chunk", "sources": [{"kind", "name",
    "rank"}]}]}``. Search pools that are missing or stale are computed first, so this is the
    pool a reviewer opening the question now sees."""
    from labeler.candidates import blind_key

    result = []
    for question_id in question_ids:
        question = store.questions.get(question_id)
        if question is None:
            from labeler.errors import NotFoundError

            msg = f"unknown question {question_id!r}"
            raise NotFoundError(msg, field="question_id")
        ensure_search_pool(store, question, chunking)
        found: dict[str, list[dict]] = {}
        for source in store.pools.provenance(question.id, chunking):
            found.setdefault(source.chunk_id, []).append(
                {"kind": source.kind, "name": source.name, "rank": source.rank}
            )
        if question.source_chunk_ids:
            name = question.generator or "generated"
            for chunk_id in store.corpus.get_chunks(chunking, list(question.source_chunk_ids)):
                sources = found.setdefault(chunk_id, [])
                if not any(s["kind"] == "generator" for s in sources):
                    sources.append({"kind": "generator", "name": name, "rank": None})
        result.append(
            {
                "question": question.id,
                "candidates": [
                    {"chunk": chunk_id, "sources": sorted(sources, key=_source_order)}
                    for chunk_id, sources in sorted(
                        found.items(), key=lambda kv: blind_key(question.id, kv[0])
                    )
                ],
            }
        )
    return result


_KIND_ORDER = {"run": 0, "search": 1, "generator": 2, "added": 3, "labelled": 4}


def _source_order(source: dict) -> tuple[int, str, int]:
    return (_KIND_ORDER.get(source["kind"], 9), source["name"] or "", source["rank"] or 0)


__all__ = [
    "PREFETCH_AHEAD",
    "SEARCH_POOL_SIZE",
    "ComputeReport",
    "PoolWorker",
    "compute_pools",
    "ensure_search_pool",
    "inspect_pools",
    "pool_key",
    "pool_ready",
    "upcoming_questions",
]
