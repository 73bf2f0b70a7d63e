"""Computing pools ahead: a thread per server that computes the search and dense pools ahead
of the reviewers, and ``compute_pools`` (``labeler pool --compute``, ``labeler embed``) for many
questions at once.

The thread follows where each reviewer is in their queue and computes the pools of the next
questions (``labeler.grading.queue.upcoming``, the grading page's own next-question rule), so
opening a question is a read. It takes the questions asked for a few at a time
(``WORKER_BATCH``), so their dense searches share one pass over the vectors. Every pool goes
through ``candidates.ensure_pools``, whose claims keep two workers (two servers, the CLI beside
the app) from computing one pool twice, and which saves the progress of a question whose pool
changed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from labeler.grading.candidates import COMPUTED, ensure_pools, pools_ready
from labeler.grading.queue import upcoming
from labeler.grading.queues import queue_rows
from labeler.grading.search_pools import worker_id
from labeler.models import Question
from labeler.store import Store

# How many questions ahead the app computes, and how many requests a worker keeps.
PREFETCH_AHEAD = 5
WORKER_BACKLOG = 50
# Requested questions the thread computes together: the next question's BM25 pool is still
# first (the BM25 searches run in order), and their dense searches share one pass.
WORKER_BATCH = 8
# Questions ``compute_pools`` takes at a time: their dense searches share a pass, and its
# progress moves every few BM25 searches.
COMPUTE_BATCH = 32

log = logging.getLogger(__name__)


class PoolWorker:
    """A daemon thread that computes pools ahead, through its own store connection.

    ``request`` puts questions at the front of its list and returns at once; the thread takes
    them in order, skips those already current or being computed elsewhere, and writes the
    rest. One shared worker per database per process (``shared``) serves every session of a
    Streamlit server; further processes run their own, and the claims keep them apart.
    """

    _shared: ClassVar[dict[str, PoolWorker]] = {}
    _shared_lock = threading.Lock()

    def __init__(self, db_path: str | Path, *, name: str | None = None) -> None:
        self.db_path = str(db_path)
        self.name = name or worker_id("worker")
        self.written = 0
        self.failures: list[str] = []
        self._pending: list[tuple[str, str]] = []
        # Where each reviewer is: (chunking, reviewer) -> (current question, tag, how many).
        self._positions: dict[tuple[str, str], tuple] = {}
        self._followed: dict[tuple[str, str], tuple[str | None, str | None, int]] = {}
        self._current: tuple[str, tuple[str, ...]] | None = None
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
                    self._current = ("", ()) if positions else self._take_batch()
                try:
                    if positions:
                        self._resolve(store, positions)
                    else:
                        self._compute(store, *self._current)
                except Exception as error:  # a bad question must not stop the worker
                    log.exception("pool worker: %s failed", self._current)
                    self.failures.append(f"{', '.join(self._current[1])}: {error}")
                    del self.failures[:-100]
                finally:
                    with self._cond:
                        self._current = None
                        self._cond.notify_all()
        finally:
            store.close()

    def _take_batch(self) -> tuple[str, tuple[str, ...]]:
        """The first pending questions of the first one's chunking, up to WORKER_BATCH."""
        chunking = self._pending[0][0]
        batch = [p for p in self._pending if p[0] == chunking][:WORKER_BATCH]
        self._pending = [p for p in self._pending if p not in batch]
        return chunking, tuple(q for _, q in batch)

    def _resolve(self, store: Store, positions: dict) -> None:
        """Turn reviewers' positions into the questions to compute next."""
        for (chunking, reviewer), (current, tag, ahead, queue) in positions.items():
            rows = queue_rows(store, reviewer, queue=queue, tag=tag, chunking=chunking)
            with self._cond:
                self._put_first(chunking, upcoming(rows, current, ahead))

    def _compute(self, store: Store, chunking: str, question_ids: Sequence[str]) -> None:
        questions = [q for q in map(store.questions.get, question_ids) if q is not None]
        states = ensure_pools(store, questions, chunking, worker=self.name, wait=False)
        self.written += sum(state == "written" for s in states.values() for state in s.values())


def _lower_this_threads_priority(by: int = 10) -> None:
    """On Linux a thread has its own nice value: the worker's searches then yield the CPU to
    the page's reruns on a busy machine. Elsewhere (or if refused) nothing changes."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + by)


def open_ahead(
    store: Store,
    question: Question,
    chunking: str,
    reviewer: str,
    *,
    queue: str | None = None,
    tag: str | None = None,
    waiting: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext,
) -> None:
    """Before a question opens for a reviewer: its pools made current now (inside ``waiting``,
    the page's spinner, when they were not computed ahead: a jump), and this process's worker
    told to compute the pools of the reviewer's next questions meanwhile."""
    if not pools_ready(store, question, chunking):
        with waiting():
            ensure_pools(store, [question], chunking)
    PoolWorker.shared(store.path).follow(chunking, reviewer, question.id, queue=queue, tag=tag)


@dataclass(frozen=True, slots=True)
class ComputeReport:
    """What ``compute_pools`` did: questions whose pools it wrote, those already current, the
    unknown ids, the kinds of pool it computed, and the time."""

    written: int
    current: int
    missing: tuple[str, ...]
    seconds: float
    kinds: tuple[str, ...] = ("search", "dense")

    def summary(self) -> str:
        text = (
            f"{' and '.join(self.kinds)} pools: {self.written} computed, {self.current} already"
            f" current ({self.seconds:.1f} s)"
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
    kinds: Iterable[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> ComputeReport:
    """Compute the pools (of ``kinds``, default every computed source) of these questions that
    are not current, ``COMPUTE_BATCH`` questions at a time (their dense searches share a pass).

    Resumable: stopped halfway, the next run skips what was stored. A question another worker
    is computing is waited for rather than computed twice. ``progress(n)`` after each batch.
    """
    started = time.perf_counter()
    worker = worker_id("compute")
    chosen = tuple(s.kind for s in COMPUTED if kinds is None or s.kind in set(kinds))
    written = current = 0
    missing: list[str] = []
    ids = list(question_ids)
    for start in range(0, len(ids), COMPUTE_BATCH):
        batch = ids[start : start + COMPUTE_BATCH]
        questions = []
        for question_id in batch:
            question = store.questions.get(question_id)
            if question is None:
                missing.append(question_id)
            else:
                questions.append(question)
        states = ensure_pools(store, questions, chunking, kinds=chosen, worker=worker)
        for question in questions:
            if any(s.get(question.id) == "written" for s in states.values()):
                written += 1
            else:
                current += 1
        if progress is not None:
            progress(len(batch))
    return ComputeReport(written, current, tuple(missing), time.perf_counter() - started, chosen)


__all__ = [
    "COMPUTE_BATCH",
    "PREFETCH_AHEAD",
    "WORKER_BACKLOG",
    "WORKER_BATCH",
    "ComputeReport",
    "PoolWorker",
    "compute_pools",
    "open_ahead",
]
