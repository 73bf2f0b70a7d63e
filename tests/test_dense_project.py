"""Dense search in a project: settings, which chunkings have vectors, embedding a chunking
(incremental), and the searches of the CLI and the search box.

Most tests use the bag-of-letters model of test_dense_index, registered for the test under a
distribution that is installed (numpy), so that values are worked by hand; the shipped model
is used where the test is about it (marked ``embed``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from labeler.dense import project
from labeler.dense.index import index_path
from labeler.dense.model import MODELS, ModelSpec
from labeler.errors import LabelerError
from labeler.importers import import_chunks, import_questions
from labeler.store import Store
from tests.conftest import write_jsonl
from tests.test_dense_index import Letters
from tests.test_dense_model import need_extra


class Recorder(Letters):
    """The letters, keeping each call's texts: what was embedded together."""

    def __init__(self, threads: int = 1) -> None:
        super().__init__(threads)
        self.calls: list[list[str]] = []

    def passages(self, texts):
        self.calls.append(list(texts))
        return super().passages(texts)

    queries = passages


LETTERS = ModelSpec("letters", "numpy", ("numpy",), "embed", 4, "test", Recorder)
# Texts of a, b, c, d: a chunk's vector is its letter counts, normalised.
CHUNKS = [
    {"id": "c1", "text": "aab"},
    {"id": "c2", "text": "cd"},
    {"id": "c3", "text": "a"},
    {"id": "c4", "text": "dd ccc"},
]
QUESTIONS = [
    {"id": "q1", "question": "a"},
    {"id": "q2", "question": "dd"},
    {"id": "q3", "question": "b"},
]


def letters_project(monkeypatch, tmp_path: Path) -> Iterator[Store]:
    """A project of four chunks and three questions, its model the letters (conftest's
    ``letters`` fixture)."""
    monkeypatch.setitem(MODELS, "letters", LETTERS)
    project.forget()
    store = Store(tmp_path / "letters.db")
    import_chunks(store, write_jsonl(tmp_path / "c.jsonl", CHUNKS))
    import_questions(store, write_jsonl(tmp_path / "q.jsonl", QUESTIONS))
    project.configure(store, model="letters")
    yield store
    store.close()
    project.forget()


def asked() -> list[str]:
    """The texts the process's letters model was asked to embed."""
    return project.embedder("letters")._encoder.asked


def calls() -> list[list[str]]:
    """The calls into the process's letters model, each with its texts."""
    return project.embedder("letters")._encoder.calls


def test_settings_default_and_are_checked(store: Store) -> None:
    assert project.dense_config(store) == project.DenseConfig("all-MiniLM-L6-v2-int8", 10)
    assert project.configure(store, depth=0).depth == 0
    with pytest.raises(LabelerError, match="unknown embedding model 'nope'"):
        project.configure(store, model="nope")
    with pytest.raises(LabelerError, match=r"must be 0 \(off\) or more, got -1"):
        project.configure(store, depth=-1)
    assert project.dense_config(store).depth == 0


def test_a_chunking_has_vectors_once_embed_completes(letters: Store) -> None:
    assert project.dense_index(letters, "default") is None
    assert project.search_modes(letters, "default") == ("words",)
    report = project.embed_chunking(letters, "default")
    assert (report.chunks, report.embedded) == (4, 4)
    index = project.dense_index(letters, "default")
    assert index.model_key == project.installed_key("letters")
    assert index.path == index_path(letters.path, index.model_key)
    assert json.loads(index.record)["model"] == index.model_key
    assert project.search_modes(letters, "default") == ("words", "dense", "hybrid")
    assert project.dense_index(letters, "other") is None


def test_embedding_is_incremental_and_keeps_the_record_when_nothing_changed(
    letters: Store,
) -> None:
    project.embed_chunking(letters, "default")
    record = project.dense_index(letters, "default").record
    assert project.embed_chunking(letters, "default").embedded == 0
    assert project.dense_index(letters, "default").record == record
    asked().clear()
    letters.corpus.upsert_chunks("default", [{"id": "c5", "text": "bbb"}])
    assert project.embed_chunking(letters, "default").embedded == 1
    assert asked() == ["bbb"]
    assert project.dense_index(letters, "default").record != record


def test_a_model_not_installed_changes_nothing(letters: Store, monkeypatch) -> None:
    absent = ModelSpec("absent", "labeler-no-such-package", ("no_such",), "absent-x", 4, "-", dict)
    monkeypatch.setitem(MODELS, "absent", absent)
    with pytest.raises(LabelerError, match=r"pip install 'labeler\[absent-x\]'"):
        project.embed_chunking(letters, "default", model="absent", depth=3)
    assert project.dense_config(letters) == project.DenseConfig("letters", 10)
    with pytest.raises(LabelerError, match="unknown chunking 'nope'"):
        project.embed_chunking(letters, "nope")


def test_dense_search_ranks_by_cosine_and_hybrid_fuses(letters: Store) -> None:
    project.embed_chunking(letters, "default")
    index = project.dense_index(letters, "default")
    [hits] = project.dense_rankings(letters, index, ["a"], limit=3)
    # (1,0,0,0) against c3 (1,0,0,0), c1 (2,1,0,0)/sqrt 5; c2 and c4 score 0: the lower row
    assert [(h.chunk_id, h.rank) for h in hits] == [("c3", 1), ("c1", 2), ("c2", 3)]
    assert [h.score for h in hits] == pytest.approx([1.0, 2 / 5**0.5, 0.0], abs=1e-3)  # float16
    found = project.search_corpus(letters, "default", "a", how="dense", limit=2)
    assert [c.id for c in found] == ["c3", "c1"]
    # BM25 finds only c3 for "a"; RRF: c3 1/61 + 1/61, then dense's c1 (1/62), c2 (1/63)...
    hybrid = project.search_corpus(letters, "default", "a", how="hybrid", limit=3)
    assert [c.id for c in hybrid] == ["c3", "c1", "c2"]
    words = project.search_corpus(letters, "default", "cd", how="words")
    assert [c.id for c in words] == ["c2"]


def test_many_questions_share_one_pass(letters: Store) -> None:
    project.embed_chunking(letters, "default")
    index = project.dense_index(letters, "default")
    calls().clear()
    found = project.dense_rankings(letters, index, ["a", "dd", "b"], limit=1)
    # "dd" is (0,0,0,1): c2 "cd" scores 1/sqrt 2, c4 "dd ccc" 2/sqrt 13
    assert [[h.chunk_id for h in hits] for hits in found] == [["c3"], ["c2"], ["c1"]]
    assert calls() == [["a", "dd", "b"]]


def test_dense_search_without_vectors_says_what_to_run(letters: Store) -> None:
    with pytest.raises(LabelerError, match="run labeler embed --chunking default"):
        project.search_corpus(letters, "default", "a", how="dense")
    with pytest.raises(LabelerError, match="unknown search 'fuzzy'"):
        project.search_corpus(letters, "default", "a", how="fuzzy")


def test_vectors_are_read_again_when_the_chunks_change(letters: Store) -> None:
    project.embed_chunking(letters, "default")
    index = project.dense_index(letters, "default")
    first = project.chunking_vectors(letters, index)
    assert project.chunking_vectors(letters, index) is first
    letters.corpus.upsert_chunks("default", [{"id": "c5", "text": "bbb"}])
    again = project.chunking_vectors(letters, index)
    assert again.chunk_ids == ("c1", "c2", "c3", "c4")
    assert again.missing == ("c5",)


@pytest.mark.embed
def test_the_shipped_model_searches_the_orders_api_by_meaning(loaded: Store) -> None:
    need_extra("all-MiniLM-L6-v2-int8")
    project.forget()
    report = project.embed_chunking(loaded, "default")
    assert report.embedded == 5
    found = project.search_corpus(loaded, "default", "fetch the following page", how="dense")
    assert found[0].id == "pagination"
    # Word search needs the words: none of these is in any chunk.
    assert project.search_corpus(loaded, "default", "fetch following", how="words") == []
