"""Dense and hybrid search over one chunking's chunks, given their vectors.

``ChunkVectors`` joins the chunking's chunks (id and ``passage_key``, as the store lists them)
to the index's vectors once, as float32 whatever the file stores: numpy has no fast float16 or
int8 matrix product, and turning them into float32 block by block at every search costs more
than reading twice the bytes (bench_embed.py; a million 384-dim vectors are 1.5 GB, within the
2 GB budget). A search is then one ``top_k`` over the matrix. Chunks with no
vector yet (``labeler embed`` has not reached them) are listed in ``missing`` and are simply
not found by dense search, never an error: dense candidates add to the pool, they do not
replace the other sources.

Hybrid search is reciprocal rank fusion (``fusion.rrf``) of the BM25 ranking and the dense one,
each taken to ``depth`` (default 50: deep enough that a chunk ranked well by one search and
moderately by the other is found, docs/dense.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from labeler.dense.fusion import RRF_K, rrf
from labeler.dense.index import Vectors
from labeler.dense.neighbours import INT8_SCALE, top_k

HYBRID_DEPTH = 50


class DenseHit(NamedTuple):
    """One result of a dense or hybrid search: the chunk, its 1-based rank and its score
    (cosine similarity for dense, the RRF score for hybrid)."""

    chunk_id: str
    rank: int
    score: float


@dataclass(frozen=True)
class ChunkVectors:
    """A chunking's chunks that have vectors, row for row with ``matrix``."""

    chunk_ids: tuple[str, ...]
    matrix: np.ndarray
    missing: tuple[str, ...]


def chunk_vectors(vectors: Vectors, chunks: Sequence[tuple[str, bytes]]) -> ChunkVectors:
    """Gather the vectors of ``chunks`` ((chunk id, passage key) pairs) from the index."""
    rows = vectors.rows([key for _, key in chunks])
    have = rows >= 0
    ids = tuple(cid for (cid, _), ok in zip(chunks, have, strict=True) if ok)
    missing = tuple(cid for (cid, _), ok in zip(chunks, have, strict=True) if not ok)
    matrix = np.ascontiguousarray(vectors.matrix[rows[have]], dtype=np.float32)
    if vectors.header.storage == "int8":
        matrix *= np.float32(1.0 / INT8_SCALE)
    return ChunkVectors(ids, matrix, missing)


def dense_search(chunks: ChunkVectors, query: np.ndarray, *, limit: int = 10) -> list[DenseHit]:
    """The ``limit`` chunks nearest to the question's vector ``query``, best first (exact)."""
    found = top_k(chunks.matrix, query, limit)
    return [
        DenseHit(chunks.chunk_ids[row], rank, float(score))
        for rank, (row, score) in enumerate(
            zip(found.rows[0], found.scores[0], strict=True), start=1
        )
    ]


def hybrid_search(
    bm25_ids: Sequence[str],
    dense_ids: Sequence[str],
    *,
    limit: int = 10,
    k: int = RRF_K,
) -> list[DenseHit]:
    """RRF of a BM25 ranking and a dense ranking (chunk ids, best first), best ``limit``."""
    fused = rrf([bm25_ids, dense_ids], k=k, limit=limit)
    return [DenseHit(f.chunk_id, f.rank, f.score) for f in fused]


__all__ = [
    "HYBRID_DEPTH",
    "ChunkVectors",
    "DenseHit",
    "chunk_vectors",
    "dense_search",
    "hybrid_search",
]
