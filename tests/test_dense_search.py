"""Dense and hybrid search over a chunking's chunks, from an index file, worked by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from labeler.dense.index import update_index
from labeler.dense.model import passage_key
from labeler.dense.search import chunk_vectors, dense_search, hybrid_search
from tests.test_dense_index import embedder, pairs

# The bag-of-letters model of test_dense_index: "aab" -> (2, 1, 0, 0) / sqrt(5).
CHUNKS = {"c1": "aab", "c2": "cd", "c3": "a", "c4": "not yet embedded: zzz"}


@pytest.fixture
def vectors(tmp_path: Path):
    from labeler.dense.index import read_vectors

    path = tmp_path / "p.vectors"
    update_index(path, embedder(), pairs("aab", "cd", "a"), storage="float32")
    return read_vectors(path)


def test_chunks_are_joined_to_their_vectors_and_the_missing_listed(vectors) -> None:
    chunks = [(cid, passage_key(None, text)) for cid, text in CHUNKS.items()]
    joined = chunk_vectors(vectors, chunks)
    assert joined.chunk_ids == ("c1", "c2", "c3")
    assert joined.missing == ("c4",)
    assert joined.matrix[2].tolist() == [1.0, 0.0, 0.0, 0.0]


def test_dense_search_ranks_by_cosine(vectors) -> None:
    chunks = [(cid, passage_key(None, text)) for cid, text in CHUNKS.items()]
    joined = chunk_vectors(vectors, chunks)
    hits = dense_search(joined, np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32), limit=2)
    assert [(h.chunk_id, h.rank) for h in hits] == [("c3", 1), ("c1", 2)]
    assert [h.score for h in hits] == pytest.approx([1.0, 2 / 5**0.5])


def test_hybrid_is_rrf_of_the_two_rankings() -> None:
    hits = hybrid_search(["b1", "shared"], ["shared", "d1"], limit=3)
    assert [h.chunk_id for h in hits] == ["shared", "b1", "d1"]
    assert hits[0].score == pytest.approx(1 / 62 + 1 / 61)


def test_int8_and_float16_indexes_are_searched_as_float32(tmp_path: Path) -> None:
    from labeler.dense.index import read_vectors

    for storage in ("int8", "float16"):
        path = tmp_path / f"{storage}.vectors"
        update_index(path, embedder(), pairs("aab"), storage=storage)
        joined = chunk_vectors(read_vectors(path), [("c1", passage_key(None, "aab"))])
        assert joined.matrix.dtype == np.float32
        # int8: round(127 * 2/sqrt(5)) / 127 = 114/127, round(127/sqrt(5)) / 127 = 57/127
        expected = [114 / 127, 57 / 127] if storage == "int8" else [2 / 5**0.5, 1 / 5**0.5]
        assert joined.matrix[0, :2].tolist() == pytest.approx(expected, abs=1e-3)
