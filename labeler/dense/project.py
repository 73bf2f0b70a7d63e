"""Dense search in a project: which model and depth it uses, which chunkings have vectors,
embedding a chunking, and searching it (dense, hybrid, or by words) from the CLI, the grading
page and the pools.

- **Settings** (the project's database): ``dense:model`` (a registered model, default
  ``DEFAULT_MODEL``) and ``dense:depth`` (how many dense candidates every pool gains, default
  ``DENSE_DEPTH``; 0 turns the source off), set by ``labeler embed --model/--depth``.
- **Which chunkings have vectors**: ``labeler embed`` records, once it has embedded every chunk
  of a chunking, the model key it used (``dense:vectors:<chunking>``). A chunking has vectors
  for the current model when that record names the installed model (name and version) and
  the index file is there; a run stopped halfway records nothing, so pools never rest on a
  half-embedded chunking, and the next run resumes (``index.update_index``). The record, not
  the file, keys the dense pools: the file grows at every batch of a running embed, and pools
  keyed by it would go stale every few seconds.
- **In memory**, once per process: the loaded model, and each chunking's vectors as one
  float32 matrix (``search.ChunkVectors``), rebuilt when the record or the chunking's chunks
  change. At a million chunks that matrix is 1.5 GB (docs/dense.md).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from labeler.dense.index import index_path, read_vectors, update_index
from labeler.dense.model import (
    DEFAULT_MODEL,
    MODELS,
    Embedder,
    load_embedder,
    model_spec,
    passage_key,
    passage_text,
)
from labeler.dense.neighbours import top_k
from labeler.dense.search import (
    HYBRID_DEPTH,
    ChunkVectors,
    DenseHit,
    chunk_vectors,
    hybrid_search,
)
from labeler.errors import LabelerError
from labeler.models import Chunk
from labeler.store import Store
from labeler.store.base import now

DENSE_DEPTH = 10
MODEL_SETTING = "dense:model"
DEPTH_SETTING = "dense:depth"
VECTORS_SETTING = "dense:vectors:{chunking}"

# The search box's ways to search, in the order it offers them; the CLI's flags and the page's
# choices come from here.
SearchMode = Literal["words", "dense", "hybrid"]
SEARCH_MODES: dict[str, str] = {
    "words": "Words (BM25)",
    "dense": "Meaning (dense)",
    "hybrid": "Both (hybrid, RRF)",
}


@dataclass(frozen=True, slots=True)
class DenseConfig:
    """The project's dense source: its model (a registered name) and pool depth."""

    model: str
    depth: int


def dense_config(store: Store) -> DenseConfig:
    model = store.get_setting(MODEL_SETTING) or DEFAULT_MODEL
    return DenseConfig(model, int(store.get_setting(DEPTH_SETTING) or DENSE_DEPTH))


def configure(store: Store, *, model: str | None = None, depth: int | None = None) -> DenseConfig:
    """Set the project's model and depth (those given); a bad one is a LabelerError."""
    if model is not None:
        model_spec(model)  # an unknown name names the known ones
    if depth is not None and depth < 0:
        raise LabelerError(f"must be 0 (off) or more, got {depth}", field="depth")
    with store.write():
        if model is not None:
            store.set_setting(MODEL_SETTING, model)
        if depth is not None:
            store.set_setting(DEPTH_SETTING, str(depth))
    return dense_config(store)


@cache
def installed_key(model: str) -> str | None:
    """``name@version`` of the model as installed, None when its extra is not (a cheap look at
    the package's metadata; the engine is not loaded). Read once per process."""
    import importlib.metadata

    try:
        return f"{model}@{importlib.metadata.version(MODELS[model].distribution)}"
    except (KeyError, importlib.metadata.PackageNotFoundError):
        return None


@dataclass(frozen=True, slots=True)
class DenseIndex:
    """A chunking that has vectors for the project's model: where they are, the pool depth,
    and ``record``, which changes whenever ``labeler embed`` completes on the chunking."""

    chunking: str
    model: str
    model_key: str
    path: Path
    depth: int
    record: str


def dense_index(store: Store, chunking: str) -> DenseIndex | None:
    """The chunking's vectors for the current model, or None: no extra, no completed embed
    with this model (name and version), or no index file."""
    config = dense_config(store)
    key = installed_key(config.model)
    if key is None:
        return None
    record = store.get_setting(VECTORS_SETTING.format(chunking=chunking))
    if record is None or json.loads(record).get("model") != key:
        return None
    path = index_path(Path(store.path), key)
    if not path.is_file():
        return None
    return DenseIndex(chunking, config.model, key, path, config.depth, record)


def require_index(store: Store, chunking: str) -> DenseIndex:
    """``dense_index``, or a LabelerError saying what to run."""
    found = dense_index(store, chunking)
    if found is not None:
        return found
    model = dense_config(store).model
    if installed_key(model) is None:
        load_embedder(model)  # raises, with the install hint
    raise LabelerError(
        f"chunking {chunking!r} has no vectors yet for {installed_key(model)}: run"
        f" labeler embed --chunking {chunking}"
    )


# the model and the vectors, once per process -------------------------------------------------

_lock = threading.Lock()
_vectors: dict[tuple[str, str], tuple[tuple[str, str], ChunkVectors]] = {}


@cache
def _embedder(model: str) -> Embedder:
    return load_embedder(model)


def embedder(model: str) -> Embedder:
    """The loaded model, one per process (loading takes about a second)."""
    with _lock:
        return _embedder(model)


def chunking_vectors(store: Store, index: DenseIndex) -> ChunkVectors:
    """The chunking's vectors as one float32 matrix, built once per process and rebuilt when
    the chunking's chunks or its embed record change. Only the latest matrix of a chunking is
    kept (they are large)."""
    stamp = (index.record, store.corpus.chunks_revision(index.chunking))
    slot = (str(index.path), index.chunking)
    with _lock:
        held = _vectors.get(slot)
        if held is not None and held[0] == stamp:
            return held[1]
        _vectors.pop(slot, None)  # free the old matrix before reading the new one
        keys = [
            (chunk_id, passage_key(title, text))
            for chunk_id, title, text in store.corpus.iter_chunk_passages(index.chunking)
        ]
        built = chunk_vectors(read_vectors(index.path), keys)
        _vectors[slot] = (stamp, built)
        return built


def forget() -> None:
    """Drop what the process holds: the vectors, the loaded models and the installed versions
    read (tests; a long-lived process that is done with them, or whose extras changed)."""
    with _lock:
        _vectors.clear()
        _embedder.cache_clear()
        installed_key.cache_clear()


# searching ----------------------------------------------------------------------------------


def dense_rankings(
    store: Store, index: DenseIndex, queries: Sequence[str], *, limit: int
) -> list[list[DenseHit]]:
    """Each query's ``limit`` nearest chunks of the chunking, best first: every query embedded
    in one call, and all of them scored in one pass over the matrix (a pass reads every vector,
    so sharing it is what makes many questions cheap; docs/dense.md)."""
    if not queries:
        return []
    vectors = chunking_vectors(store, index)
    asked = embedder(index.model).embed_queries(list(queries))
    found = top_k(vectors.matrix, asked, limit)
    return [
        [
            DenseHit(vectors.chunk_ids[row], rank, float(score))
            for rank, (row, score) in enumerate(zip(rows, scores, strict=True), start=1)
        ]
        for rows, scores in zip(found.rows, found.scores, strict=True)
    ]


def search_modes(store: Store, chunking: str) -> tuple[str, ...]:
    """The search box's modes for the chunking: dense and hybrid only where it has vectors."""
    if dense_index(store, chunking) is None:
        return ("words",)
    return tuple(SEARCH_MODES)


def search_corpus(
    store: Store, chunking: str, query: str, *, how: str = "words", limit: int = 10
) -> list[Chunk]:
    """The search box and ``labeler search``: ``words`` is the full-text search (every word
    must match, else any); ``dense`` the nearest chunks by meaning; ``hybrid`` the reciprocal
    rank fusion (k = ``fusion.RRF_K``) of exact BM25 and dense, each to ``HYBRID_DEPTH``."""
    if how not in SEARCH_MODES:
        known = ", ".join(SEARCH_MODES)
        raise LabelerError(f"unknown search {how!r} (known: {known})", field="how")
    if how == "words":
        return store.search.search_chunks(chunking, query, limit=limit)
    if not query.strip():
        return []
    index = require_index(store, chunking)
    if how == "dense":
        ids = [h.chunk_id for h in dense_rankings(store, index, [query], limit=limit)[0]]
    else:
        depth = max(limit, HYBRID_DEPTH)
        words = [h.chunk_id for h in store.search.pool_search(chunking, query, limit=depth)]
        dense = [h.chunk_id for h in dense_rankings(store, index, [query], limit=depth)[0]]
        ids = [h.chunk_id for h in hybrid_search(words, dense, limit=limit)]
    chunks = store.corpus.get_chunks(chunking, ids)
    return [chunks[i] for i in ids if i in chunks]


# embedding a chunking -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EmbedReport:
    """What ``embed_chunking`` did: the chunking's chunks, the texts embedded now (new or
    changed), the model key, the index file."""

    chunking: str
    chunks: int
    embedded: int
    model_key: str
    path: Path

    def summary(self) -> str:
        kept = self.chunks - self.embedded
        return (
            f"{self.chunking}: {self.chunks} chunks, {self.embedded} embedded now, {kept} had"
            f" vectors ({self.model_key}, {self.path.name})"
        )


def embed_chunking(
    store: Store,
    chunking: str,
    *,
    model: str | None = None,
    depth: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EmbedReport:
    """Embed every chunk of the chunking the index lacks (new texts, changed titles or texts),
    a batch at a time, each on disk before the next; then record that the chunking has
    vectors. Interrupted (Ctrl-C, a crash), nothing is recorded and the next call goes on
    where this one stopped. ``progress(done, total)`` is called after each batch, ``total``
    being the texts to embed. A run that embeds nothing leaves the record (and so the dense
    pools) as they were.

    ``model`` and ``depth``, when given, become the project's (``configure``), once the model
    has loaded: a model that is not installed changes nothing.
    """
    if not store.corpus.chunking_exists(chunking):
        raise LabelerError(f"unknown chunking {chunking!r}", field="chunking")
    if model is not None:
        model_spec(model)
    if depth is not None and depth < 0:
        raise LabelerError(f"must be 0 (off) or more, got {depth}", field="depth")
    loaded = embedder(model or dense_config(store).model)
    configure(store, model=model, depth=depth)
    path = index_path(Path(store.path), loaded.key)
    passages = [
        (passage_key(title, text), passage_text(title, text))
        for _, title, text in store.corpus.iter_chunk_passages(chunking)
    ]
    embedded = update_index(path, loaded, passages, progress=progress)
    setting = VECTORS_SETTING.format(chunking=chunking)
    held = store.get_setting(setting)
    if embedded or held is None or json.loads(held).get("model") != loaded.key:
        record = {"model": loaded.key, "chunks": len(passages), "at": now()}
        store.set_setting(setting, json.dumps(record, sort_keys=True))
    return EmbedReport(chunking, len(passages), embedded, loaded.key, path)


__all__ = [
    "DENSE_DEPTH",
    "SEARCH_MODES",
    "DenseConfig",
    "DenseIndex",
    "EmbedReport",
    "chunking_vectors",
    "configure",
    "dense_config",
    "dense_index",
    "dense_rankings",
    "embed_chunking",
    "embedder",
    "forget",
    "installed_key",
    "require_index",
    "search_corpus",
    "search_modes",
]
