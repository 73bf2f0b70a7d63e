"""Dense pools: every question's nearest chunks join its pool where the chunking has vectors,
stored, keyed, claimed and computed ahead like the BM25 search pool, in batches, with progress
kept right when they add candidates.

The model is the bag of letters (tests/test_dense_project.py): "dd" is (0,0,0,1), so chunk c2
"cd" scores 1/sqrt 2 and c4 "dd ccc" 2/sqrt 13; BM25 finds only c4, the one holding "dd"."""

from __future__ import annotations

from labeler.dense import project
from labeler.grading import labeling
from labeler.grading.candidates import ensure_pools, inspect_pools, pool, pools_ready
from labeler.grading.dense_pools import DENSE, dense_pool_key
from labeler.grading.search_pools import ensure_computed
from labeler.grading.worker import PoolWorker, compute_pools
from labeler.store import Store
from tests.test_dense_project import calls


def sources(store: Store, question_id: str) -> dict[str, list[tuple]]:
    entries = pool(store, store.questions.get(question_id), "default")
    return {e.chunk_id: [(s.kind, s.name, s.rank) for s in e.sources] for e in entries}


def test_without_vectors_the_source_is_off(letters: Store) -> None:
    q2 = letters.questions.get("q2")
    assert dense_pool_key(letters, q2, "default") is None
    assert ensure_computed(letters, DENSE, [q2], "default") == {"q2": "off"}
    assert sources(letters, "q2") == {"c4": [("search", "bm25", 1)]}


def test_the_pool_gains_the_dense_source_with_its_rank(letters: Store) -> None:
    project.embed_chunking(letters, "default", depth=2)
    model = project.installed_key("letters")
    assert sources(letters, "q2") == {
        "c2": [("dense", model, 1)],
        "c4": [("search", "bm25", 1), ("dense", model, 2)],
    }
    state = letters.pools.fts_pool_state("q2", "default", kind="dense")
    assert state["model"] == model
    # The BM25 pool is its own: the dense one never changed it.
    assert letters.pools.fts_pool_state("q2", "default")["query_hash"] != state["query_hash"]


def test_a_change_of_depth_recomputes_and_zero_empties(letters: Store) -> None:
    project.embed_chunking(letters, "default", depth=2)
    q2 = letters.questions.get("q2")
    pool(letters, q2, "default")
    project.configure(letters, depth=1)
    assert not pools_ready(letters, q2, "default")
    assert sources(letters, "q2")["c4"] == [("search", "bm25", 1)]
    project.configure(letters, depth=0)
    assert set(sources(letters, "q2")) == {"c4"}
    assert letters.pools.fts_pool_hashes("default", kind="dense")["q2"] == dense_pool_key(
        letters, q2, "default"
    )


def test_new_vectors_recompute_the_pools(letters: Store) -> None:
    project.embed_chunking(letters, "default", depth=2)
    q2 = letters.questions.get("q2")
    pool(letters, q2, "default")
    letters.corpus.upsert_chunks("default", [{"id": "c5", "text": "d"}])
    # The chunks changed, so the pool is recomputed; c5 ("d") has no vector yet: not found
    assert "c5" not in sources(letters, "q2")
    project.embed_chunking(letters, "default")
    assert not pools_ready(letters, q2, "default")
    model = project.installed_key("letters")
    assert sources(letters, "q2")["c5"] == [("dense", model, 1)]


def test_progress_stays_right_when_dense_candidates_arrive(letters: Store) -> None:
    labeling.open_question(letters, "q2", "ana")
    labeling.grade(letters, "q2", "c4", "ana", 2)
    assert labeling.progress(letters, "ana")["mine"] == 1
    project.embed_chunking(letters, "default", depth=2)
    report = compute_pools(letters, letters.questions.ids(), "default", kinds=("dense",))
    assert (report.written, report.current) == (3, 0)
    # q2 gained c2: no longer fully graded, for ana nor for everyone
    assert letters.progress.of_question("q2", "default")["ana"] == (2, 1, False)
    assert labeling.progress(letters, "ana") | {"today": 0} == {
        "total": 3,
        "everyone": 0,
        "mine": 0,
        "today": 0,
    }
    labeling.grade(letters, "q2", "c2", "ana", 0)
    assert labeling.progress(letters, "ana")["mine"] == 1


def test_questions_claimed_together_share_one_embedding_call(letters: Store) -> None:
    project.embed_chunking(letters, "default", depth=1)
    questions = [letters.questions.get(q) for q in ("q1", "q2", "q3")]
    calls().clear()
    states = ensure_pools(letters, questions, "default")
    assert states["dense"] == {"q1": "written", "q2": "written", "q3": "written"}
    assert calls() == [["a", "dd", "b"]]
    shown = {p["question"]: p["candidates"] for p in inspect_pools(letters, ["q3"], "default")}
    model = project.installed_key("letters")
    assert shown["q3"] == [
        {"chunk": "c1", "sources": [{"kind": "dense", "name": model, "rank": 1}]}
    ]
    assert calls() == [["a", "dd", "b"]]  # inspecting read the stored pool


def test_the_worker_computes_dense_pools_ahead_in_one_batch(letters: Store) -> None:
    project.embed_chunking(letters, "default", depth=1)
    calls().clear()
    worker = PoolWorker(letters.path)
    try:
        worker.request("default", ["q1", "q2", "q3"])
        assert worker.wait_idle(timeout=60)
    finally:
        worker.stop()
    assert not worker.failures
    for question_id in ("q1", "q2", "q3"):
        state = letters.pools.fts_pool_state(question_id, "default", kind="dense")
        assert state["computed_by"] == worker.name
    assert calls() == [["a", "dd", "b"]]


def test_claims_of_the_two_kinds_are_apart(letters: Store) -> None:
    assert letters.pools.claim_fts_pool("q1", "default", "k", "a", stale_before="") == "claimed"
    claimed = letters.pools.claim_fts_pool("q1", "default", "k", "b", stale_before="", kind="dense")
    assert claimed == "claimed"
    assert (
        letters.pools.claim_fts_pool("q1", "default", "k", "c", stale_before="", kind="dense")
        == "busy"
    )
