"""Exact nearest neighbours: the top k chunks by inner product, by blockwise matrix products.

Vectors are unit length, so the inner product is the cosine similarity. The matrix is scanned
in blocks of ``BLOCK_ROWS`` rows: each block is turned into float32 (whatever it is stored as)
and multiplied by the questions in one BLAS call, and only each block's best k survive, so
memory beyond the stored matrix is one float32 block and a (questions x k) heap, however many
rows there are. No approximate index: exact search meets the targets (docs/dense.md), so its
results need no recall measured against anything.

Storage: float32, float16 (half the memory; the scores are the float32 scores of the rounded
vectors) or int8 (a quarter; ``quantize_int8`` stores round(127 * x) per component of a unit
vector, and scores are divided back by 127). bench_embed.py measures how often their top 10
equals float32's.

Ties in score are broken by row number (the lower first), so results are deterministic.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np

Storage = Literal["float32", "float16", "int8"]
STORAGES: tuple[Storage, ...] = ("float32", "float16", "int8")
INT8_SCALE = 127.0
# 16,384 rows x 384 dims x 4 bytes = 24 MiB of float32 per block: big enough for BLAS to run
# at speed, small enough to stay far below the 2 GB search budget at a million chunks.
BLOCK_ROWS = 16_384


class Neighbours(NamedTuple):
    """For each question (row): the row numbers of its k nearest chunks, best first, and their
    scores (cosine similarities, float32)."""

    rows: np.ndarray
    scores: np.ndarray


def quantize(vectors: np.ndarray, storage: Storage) -> np.ndarray:
    """``vectors`` (float32, unit rows) as stored in ``storage``."""
    if storage == "float32":
        return np.ascontiguousarray(vectors, dtype=np.float32)
    if storage == "float16":
        return np.ascontiguousarray(vectors, dtype=np.float16)
    if storage == "int8":
        return quantize_int8(vectors)
    raise ValueError(f"unknown storage {storage!r} (known: {', '.join(STORAGES)})")


def quantize_int8(vectors: np.ndarray) -> np.ndarray:
    """round(127 x), clipped to [-127, 127]: components of a unit vector lie in [-1, 1]."""
    scaled = np.rint(np.asarray(vectors, dtype=np.float32) * INT8_SCALE)
    return np.clip(scaled, -INT8_SCALE, INT8_SCALE).astype(np.int8)


def _as_float32(block: np.ndarray) -> np.ndarray:
    if block.dtype == np.int8:
        return block.astype(np.float32) * np.float32(1.0 / INT8_SCALE)
    return block.astype(np.float32, copy=False)


def top_k(
    matrix: np.ndarray, queries: np.ndarray, k: int, *, block_rows: int = BLOCK_ROWS
) -> Neighbours:
    """The ``k`` rows of ``matrix`` (n x d, any storage) with the highest inner product with
    each row of ``queries`` (q x d float32, or one d-vector), best first; fewer when n < k.

    Exact: every row is scored. Equal scores keep the lower row number first.
    """
    queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    n = matrix.shape[0]
    k = max(0, min(k, n))
    q = queries.shape[0]
    best_rows = np.empty((q, 0), dtype=np.int64)
    best_scores = np.empty((q, 0), dtype=np.float32)
    if k == 0:
        return Neighbours(best_rows, best_scores)
    for start in range(0, n, block_rows):
        block = _as_float32(matrix[start : start + block_rows])
        scores = queries @ block.T  # q x b
        keep = min(k, scores.shape[1])
        part = _block_best(scores, keep)
        rows = np.concatenate([best_rows, part + start], axis=1)
        cand = np.concatenate([best_scores, np.take_along_axis(scores, part, axis=1)], axis=1)
        best_rows, best_scores = _best(rows, cand, k)
    return Neighbours(best_rows, best_scores)


def _block_best(scores: np.ndarray, keep: int) -> np.ndarray:
    """Column numbers of each line's ``keep`` best scores. argpartition picks arbitrarily among
    scores equal to the keep-th; where such a tie crosses the cut (equal texts have equal
    vectors), the line is redone so that the lower columns are the ones kept."""
    part = np.argpartition(-scores, keep - 1, axis=1)[:, :keep]
    cut = np.take_along_axis(scores, part, axis=1).min(axis=1)
    crossing = np.flatnonzero((scores >= cut[:, None]).sum(axis=1) > keep)
    for line in crossing:
        columns = np.flatnonzero(scores[line] >= cut[line])
        order = np.lexsort((columns, -scores[line, columns]))[:keep]
        part[line] = columns[order]
    return part


def _best(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The best k of each line of candidates, by score descending then row ascending."""
    order = np.lexsort((rows, -scores), axis=1)[:, :k]
    return np.take_along_axis(rows, order, axis=1), np.take_along_axis(scores, order, axis=1)


__all__ = [
    "BLOCK_ROWS",
    "INT8_SCALE",
    "STORAGES",
    "Neighbours",
    "Storage",
    "quantize",
    "quantize_int8",
    "top_k",
]
