"""Reciprocal rank fusion: one ranking from several (Cormack, Clarke and Buettcher, SIGIR 2009).

    score(chunk) = sum over the rankings that hold it of 1 / (k + rank),   rank from 1

``k`` damps the head of each ranking: with k = 60 a first place is worth 1/61 and a tenth
1/70, so a chunk found by both searches near the top beats one found by a single search at its
first place, and no single ranking's top decides alone. 60 is the paper's constant, chosen on
TREC runs and found insensitive between about 20 and 100; docs/dense.md gives MedQuAD's nDCG@10
of BM25 + dense for k = 10, 30, 60 and 100, which agree with that (RRF_K). Scores never use the
rankings' own scores, so BM25's unbounded scores and cosine similarities need no calibration.

Equal fused scores are broken by the best single rank the chunk has, then by the order of the
rankings given (the first ranking wins). No two chunks share both (one place holds one chunk),
so the order is total and never depends on dict or set order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

RRF_K = 60


class Fused(NamedTuple):
    """One fused result: the chunk, its 1-based fused rank, its RRF score."""

    chunk_id: str
    rank: int
    score: float


def rrf(
    rankings: Sequence[Sequence[str]], *, k: int = RRF_K, limit: int | None = None
) -> list[Fused]:
    """Fuse ``rankings`` (each a list of chunk ids, best first) into one, best first.

    A chunk listed twice in one ranking counts at its first place only. ``limit`` keeps the
    best ``limit`` (all when None). Empty rankings add nothing; no rankings give [].
    """
    if k < 0:
        raise ValueError(f"the RRF constant must be >= 0, got {k}")
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}
    for which, ranking in enumerate(rankings):
        seen: set[str] = set()
        for rank, chunk_id in enumerate(ranking, start=1):
            if chunk_id in seen:
                continue
            seen.add(chunk_id)
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (k + rank)
            best[chunk_id] = min(best.get(chunk_id, (rank, which)), (rank, which))
    order = sorted(scores, key=lambda c: (-scores[c], best[c]))
    if limit is not None:
        order = order[:limit]
    return [Fused(c, rank, scores[c]) for rank, c in enumerate(order, start=1)]


__all__ = ["RRF_K", "Fused", "rrf"]
