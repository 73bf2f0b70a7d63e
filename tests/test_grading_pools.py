"""Search pools computed ahead: written once, never lost, never in the page's way."""

from __future__ import annotations

import threading
import time

import pytest

from labeler.grading import labeling, queue, search_pools
from labeler.grading.candidates import blind_key, inspect_pools
from labeler.grading.search_pools import ensure_search_pool
from labeler.grading.worker import PREFETCH_AHEAD, WORKER_BACKLOG, PoolWorker, compute_pools
from labeler.importers import import_chunks, import_questions
from labeler.store import Search, Store
from tests.conftest import write_jsonl


def _count_pool_writes(store: Store) -> None:
    """A log of every write of a search pool's state, kept by the database itself."""
    store.conn.executescript(
        """
        CREATE TABLE pool_writes (question_id TEXT, worker TEXT);
        CREATE TRIGGER pool_written_insert AFTER INSERT ON pool_fts_state BEGIN
            INSERT INTO pool_writes VALUES (new.question_id, new.computed_by);
        END;
        CREATE TRIGGER pool_written_update AFTER UPDATE ON pool_fts_state BEGIN
            INSERT INTO pool_writes VALUES (new.question_id, new.computed_by);
        END;
        """
    )


@pytest.fixture
def many(tmp_path) -> Store:
    """200 chunks and 60 questions: enough for two workers to race over a queue."""
    words = ["retry", "quota", "cursor", "token", "webhook", "refund", "invoice", "limit"]
    chunks = [
        {"id": f"c{i:03d}", "text": f"{words[i % 8]} {words[(i * 3) % 8]} note {i}"}
        for i in range(200)
    ]
    questions = [
        {"id": f"q{i:02d}", "question": f"{words[i % 8]} and {words[(i + 1) % 8]} {i}"}
        for i in range(60)
    ]
    store = Store(tmp_path / "many.db")
    import_chunks(store, write_jsonl(tmp_path / "c.jsonl", chunks))
    import_questions(store, write_jsonl(tmp_path / "q.jsonl", questions))
    _count_pool_writes(store)
    yield store
    store.close()


def test_a_pool_is_written_once_and_again_only_when_the_corpus_changes(loaded: Store) -> None:
    q1 = loaded.questions.get("q1")
    assert not search_pools.pool_ready(loaded, q1, "default")
    assert ensure_search_pool(loaded, q1, "default") == "written"
    assert ensure_search_pool(loaded, q1, "default") == "ready"
    state = loaded.pools.fts_pool_state("q1", "default")
    assert state["computed_by"].startswith("open:")
    assert state["search_ms"] >= 0
    loaded.corpus.upsert_chunks("default", [{"id": "new", "text": "retry a 429 with backoff"}])
    assert not search_pools.pool_ready(loaded, q1, "default")
    assert ensure_search_pool(loaded, q1, "default") == "written"
    ranked = loaded.query(
        "SELECT chunk_id, position, score FROM pool_fts WHERE question_id = 'q1' ORDER BY position"
    )
    hits = loaded.search.pool_search("default", q1.text)
    assert [(r["chunk_id"], r["position"], r["score"]) for r in ranked] == [tuple(h) for h in hits]


def test_a_claimed_pool_is_waited_for_and_a_stale_claim_taken_over(loaded: Store, monkeypatch):
    q1 = loaded.questions.get("q1")
    key = search_pools.pool_key(loaded, q1, "default")
    future = "9999-01-01"
    assert loaded.pools.claim_fts_pool("q1", "default", key, "a", stale_before="") == "claimed"
    # A second worker finds it busy, and does not compute it.
    assert ensure_search_pool(loaded, q1, "default", worker="b", wait=False) == "busy"
    assert loaded.pools.fts_pool_hash("q1", "default") is None
    # Worker a died: once its claim is stale, b takes it over and writes the pool.
    assert loaded.pools.claim_fts_pool("q1", "default", key, "b", stale_before=future) == "claimed"
    monkeypatch.setattr(search_pools, "CLAIM_STALE_S", 0.0)
    assert ensure_search_pool(loaded, q1, "default", worker="c") == "written"
    # Worker a wakes up and saves what it computed: the pool is not written twice.
    hits = loaded.search.pool_search("default", q1.text)
    assert not loaded.pools.save_fts_pool("q1", "default", key, hits, worker="a")
    assert loaded.pools.fts_pool_state("q1", "default")["computed_by"] == "c"
    assert loaded.scalar("SELECT count(*) FROM pool_claims") == 0


def test_two_reviewers_following_one_queue_write_every_pool_exactly_once(many: Store) -> None:
    """Two reviewers on two servers (a worker each) follow the same queue: each opens a
    question (computing its pool if the workers have not) and asks for the next ones ahead."""
    ids = many.questions.ids()
    workers = [PoolWorker(many.path), PoolWorker(many.path)]
    failures: list[BaseException] = []

    def follow(worker: PoolWorker, reviewer: str) -> None:
        with Store(many.path) as own:
            try:
                for at, question_id in enumerate(ids):
                    worker.request("default", ids[at + 1 : at + 1 + PREFETCH_AHEAD])
                    labeling.open_question(own, question_id, reviewer)
                    time.sleep(0.02)  # a reviewer reads: the workers get ahead (on a busy
                    # machine the pages alone may otherwise compute every pool)
            except BaseException as error:
                failures.append(error)

    reviewers = [
        threading.Thread(target=follow, args=(workers[0], "ana")),
        threading.Thread(target=follow, args=(workers[1], "ben")),
    ]
    try:
        for thread in reviewers:
            thread.start()
        for thread in reviewers:
            thread.join(120)
        assert all(w.wait_idle(60) for w in workers)
    finally:
        for worker in workers:
            worker.stop()
    assert not failures
    assert not any(w.failures for w in workers)
    assert all(search_pools.pool_ready(many, many.questions.get(q), "default") for q in ids)
    writes = many.query("SELECT question_id, count(*) AS n FROM pool_writes GROUP BY 1")
    assert {r["question_id"] for r in writes} == set(ids)
    assert {r["n"] for r in writes} == {1}
    by_pages = many.scalar("SELECT count(*) FROM pool_writes WHERE worker LIKE 'open:%'")
    assert sum(w.written for w in workers) + by_pages == len(ids)
    assert sum(w.written for w in workers) > 0


def test_later_requests_go_first_and_the_backlog_is_bounded(many: Store) -> None:
    worker = PoolWorker.__new__(PoolWorker)  # its list alone, without the thread
    worker._pending, worker._cond = [], threading.Condition()
    worker.request("default", ["q01", "q02", "q03"])
    worker.request("default", ["q09", "q02"])
    assert worker.pending() == [("default", q) for q in ["q09", "q02", "q01", "q03"]]
    worker.request("default", [f"x{i}" for i in range(100)])
    assert len(worker.pending()) == WORKER_BACKLOG


class _PausedSearch(Search):
    """A real search facet that waits at a gate: a worker caught in the middle of a search."""

    __slots__ = ()
    gate = threading.Event()
    searching = threading.Event()

    def pool_search(self, *args, **kwargs):
        _PausedSearch.searching.set()
        assert _PausedSearch.gate.wait(30)
        return super().pool_search(*args, **kwargs)


class _PausedStore(Store):
    def __init__(self, path, **kwargs) -> None:
        super().__init__(path, **kwargs)
        self.search = _PausedSearch(self)


class _PausedWorker(PoolWorker):
    def _open_store(self) -> Store:
        return _PausedStore(self.db_path)


def test_opening_and_grading_do_not_wait_for_a_worker_in_mid_search(many: Store) -> None:
    _PausedSearch.gate.clear()
    _PausedSearch.searching.clear()
    worker = _PausedWorker(many.path)
    try:
        worker.request("default", ["q10", "q11"])
        assert _PausedSearch.searching.wait(30)
        # The worker holds its claim on q10 and is searching. The page goes on: it opens other
        # questions (computing one it needs itself), and grades.
        view = labeling.open_question(many, "q20", "ana")
        labeling.grade(many, "q20", view.candidates[0].chunk.id, "ana", 2)
        assert labeling.open_question(many, "q20", "ana").graded == 1
        assert many.scalar("SELECT worker FROM pool_claims WHERE question_id = 'q10'")
        assert many.pools.fts_pool_hash("q10", "default") is None
        _PausedSearch.gate.set()
        assert worker.wait_idle(60)
    finally:
        _PausedSearch.gate.set()
        worker.stop()
    assert worker.written == 2
    assert not worker.failures
    assert search_pools.pool_ready(many, many.questions.get("q10"), "default")


def test_compute_pools_is_resumable_and_counts(many: Store) -> None:
    ids = many.questions.ids()
    done = []
    report = compute_pools(many, ids[:20], "default", progress=done.append)
    assert (report.written, report.current, sum(done)) == (20, 0, 20)
    report = compute_pools(many, [*ids, "nope"], "default")
    assert (report.written, report.current, report.missing) == (40, 20, ("nope",))
    assert "40 computed, 20 already current" in report.summary()


def test_inspect_shows_every_source_of_every_candidate(loaded: Store) -> None:
    loaded.pools.add("q3", "default", ["pagination"], source="search", added_by="ana")
    loaded.labels.set_grade("q3", "default", "error-codes", "ben", 2)
    [shown] = inspect_pools(loaded, ["q3"], "default")
    expected = {
        "error-codes": [
            {"kind": "search", "name": "bm25", "rank": 1},
            {"kind": "labelled", "name": "ben", "rank": None},
        ],
        "pagination": [{"kind": "added", "name": "ana", "rank": None}],
    }
    assert shown == {
        "question": "q3",
        "search": {"with": "text", "query": "What does error 404 mean?"},
        "candidates": [
            {"chunk": c, "sources": expected[c]}
            for c in sorted(expected, key=lambda c: blind_key("q3", c))
        ],
    }
    [q1] = inspect_pools(loaded, ["q1"], "default")
    by_chunk = {c["chunk"]: c["sources"] for c in q1["candidates"]}
    assert by_chunk["webhooks"] == [{"kind": "run", "name": "bm25", "rank": 4}]
    assert by_chunk["rate-limits"][0] == {"kind": "run", "name": "bm25", "rank": 3}
    assert by_chunk["rate-limits"][1]["kind"] == "search"


def test_upcoming_questions_are_what_next_would_open_in_turn() -> None:
    rows = [
        {"id": "q1", "state": "done"},
        {"id": "q2", "state": "skipped"},
        {"id": "q3", "state": "todo"},
        {"id": "q4", "state": "started"},
        {"id": "q5", "state": "done"},
        {"id": "q6", "state": "todo"},
    ]
    # From q4: on to q6, wrap round to q3, then the skipped q2; done ones never.
    assert queue.upcoming(rows, "q4", 5) == ["q6", "q3", "q2"]
    assert queue.upcoming(rows, "q4", 1) == ["q6"]
    assert queue.upcoming(rows, None, 2) == ["q3", "q4"]
