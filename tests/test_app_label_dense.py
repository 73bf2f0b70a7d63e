"""The grading page's search box with dense search (issue #21): words only where the chunking
has no vectors; words, meaning and hybrid once it has, each giving its own hits in its own
order (the letters model of tests/test_dense_project.py, its values worked by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeler.dense import project
from labeler.dense.project import SEARCH_MODES
from labeler.grading.worker import PoolWorker
from labeler.store import Store

APP = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "streamlit_app.py")


@pytest.fixture
def app(letters: Store, monkeypatch) -> AppTest:
    monkeypatch.setenv("LABELER_DB", str(letters.path))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params["reviewer"] = "ana"
    at.query_params["question"] = "q1"
    yield at
    PoolWorker.stop_shared()


def _offered(at: AppTest) -> list[str]:
    """The chunks the search box offers to add, in its order."""
    prefix = "label_add::"
    return [b.key[len(prefix) :] for b in at.button if (b.key or "").startswith(prefix)]


def test_without_vectors_the_box_searches_words_only(app: AppTest) -> None:
    app.run()
    assert not [r for r in app.radio if r.key == "label_search_how"]
    app.text_input(key="label_search").input("dd").run()
    assert _offered(app) == ["c4"]  # the one chunk with the word "dd"


def test_with_vectors_the_box_offers_words_meaning_and_hybrid(app: AppTest, letters: Store) -> None:
    # Depth 0: no dense candidates in the pool, so q1's pool is its BM25 hit c3 ("a") alone
    # and every other chunk can be offered.
    project.embed_chunking(letters, "default", depth=0)
    app.run()
    how = app.radio(key="label_search_how")
    assert how.options == list(SEARCH_MODES.values())
    assert how.value == "words"
    app.text_input(key="label_search").input("dd").run()
    assert _offered(app) == ["c4"]
    # "dd" by meaning: its vector is d; cos with c2 "cd" is 1/sqrt(2) = 0.71, with c4
    # "dd ccc" 2/sqrt(13) = 0.55, with c1 "aab" and c3 "a" 0.
    app.radio(key="label_search_how").set_value("dense").run()
    assert _offered(app)[:2] == ["c2", "c4"]
    # Hybrid: c4 is first by words and second by meaning, 1/61 + 1/62, above c2's 1/61.
    app.radio(key="label_search_how").set_value("hybrid").run()
    assert _offered(app)[:2] == ["c4", "c2"]
    assert not app.exception
