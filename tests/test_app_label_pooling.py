"""The grading page and the pools computed ahead: the next questions are ready before the
reviewer gets there, and the page never waits for a worker busy elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.grading import search_pools
from labeler.grading.worker import PoolWorker
from labeler.store import Store
from tests.test_grading_pools import _PausedSearch, _PausedWorker

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")


@pytest.fixture
def app(loaded: Store, monkeypatch) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["reviewer"] = "ana"
    yield at
    PoolWorker.stop_shared()


def _ready(store: Store, question_id: str) -> bool:
    return search_pools.pool_ready(store, store.questions.get(question_id), "default")


def test_opening_a_question_computes_the_next_ones_ahead(app: AppTest, loaded: Store) -> None:
    app.query_params["question"] = "q1"
    app.run()
    assert not app.exception
    assert _ready(loaded, "q1")  # a jump: computed on the spot
    assert PoolWorker.shared(loaded.path).wait_idle(30)
    for question_id in ("q2", "q3"):  # ana's queue after q1
        assert _ready(loaded, question_id)
        assert loaded.pools.fts_pool_state(question_id, "default")["computed_by"].startswith(
            "worker:"
        )


def test_the_page_renders_while_a_worker_is_in_mid_search(app: AppTest, loaded: Store) -> None:
    _PausedSearch.gate.clear()
    _PausedSearch.searching.clear()
    busy = _PausedWorker(loaded.path)
    try:
        busy.request("default", ["q2"])
        assert _PausedSearch.searching.wait(30)
        app.query_params["question"] = "q1"
        app.run()  # fails on its timeout if the page waited for the paused worker
        assert not app.exception
        assert len(app.segmented_control) > 0
        assert not _ready(loaded, "q2")  # still being computed by the paused worker
        _PausedSearch.gate.set()
        assert busy.wait_idle(30)
        assert PoolWorker.shared(loaded.path).wait_idle(30)
    finally:
        _PausedSearch.gate.set()
        busy.stop()
    assert busy.written == 1
    assert all(_ready(loaded, q) for q in ("q1", "q2", "q3"))
    assert loaded.pools.fts_pool_state("q2", "default")["computed_by"] == busy.name
