"""Dense pools: every question's nearest chunks by the project's embedding model (issue #21).

Where the chunking has vectors for the current model (``labeler.dense.project.dense_index``:
``labeler embed`` has run on it with the installed model), a question's pool gains the top
``depth`` (a project setting, 10 by default, 0 for none) of the exact dense search on the same
text the BM25 search uses (``search_pools.pool_query``). Stored, claimed and computed ahead by
the same engine as the BM25 search pool (``search_pools.ensure_computed``), so a reviewer
opening a question reads it; the questions a worker claims together share one embedding call
and one pass over the vectors.

The key changes with the question's text, the chunking's chunks, the depth, the model (name and
version) and each completed ``labeler embed`` of the chunking, so any of them recomputes the
pools. Where the chunking has no vectors the source is off: nothing is computed, and a pool
stored before (with a model since removed, say) stays as it was, like an imported run.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from labeler.dense.project import dense_index, dense_rankings
from labeler.grading.search_pools import Computed, ComputedSource, pool_query
from labeler.models import Question
from labeler.store import SearchHit, Store
from labeler.store.base import text_hash

# Part of every dense pool's key: a change of method recomputes the stored pools.
DENSE_METHOD = "dense-exact-1"
# Questions a worker claims and searches together: one embedding call and one pass over the
# vectors for all of them (at 200,000 chunks a pass reads 0.3 GB, and 32 questions share it for
# about the price of one; docs/dense.md).
DENSE_BATCH = 64


def dense_pool_key(store: Store, question: Question, chunking: str) -> str | None:
    index = dense_index(store, chunking)
    if index is None:
        return None
    revision = store.corpus.chunks_revision(chunking)
    return text_hash(
        "\x00".join((pool_query(question), revision, str(index.depth), index.record, DENSE_METHOD))
    )


def _dense(store: Store, questions: Sequence[Question], chunking: str) -> Iterator[Computed]:
    index = dense_index(store, chunking)
    if index is None or index.depth == 0:
        yield from (Computed([], 0.0) for _ in questions)
        return
    started = time.perf_counter()
    found = dense_rankings(store, index, [pool_query(q) for q in questions], limit=index.depth)
    ms = (time.perf_counter() - started) * 1000 / max(1, len(questions))
    for hits in found:
        yield Computed([SearchHit(h.chunk_id, h.rank, h.score) for h in hits], ms)


def _model(store: Store, chunking: str) -> str | None:
    index = dense_index(store, chunking)
    return None if index is None else index.model_key


DENSE = ComputedSource("dense", dense_pool_key, _dense, batch=DENSE_BATCH, model=_model)


__all__ = ["DENSE", "DENSE_BATCH", "DENSE_METHOD", "dense_pool_key"]
