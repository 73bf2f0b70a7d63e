"""Dense candidates: an embedding model shipped in a package, exact nearest neighbours, rank
fusion with BM25, and the vector index kept beside the project's database.

Pure core (numpy; no SQL, no app, no CLI). The model is the optional extra ``labeler[embed]``:
everything here imports without it, and ``load_embedder`` says how to install it when a
command needs it. docs/dense.md gives the measurements behind the choices.
"""

from labeler.dense.fusion import RRF_K, Fused, rrf
from labeler.dense.index import (
    DEFAULT_STORAGE,
    IndexHeader,
    IndexWriter,
    Vectors,
    compact,
    index_path,
    read_vectors,
    update_index,
)
from labeler.dense.model import (
    DEFAULT_MODEL,
    INSTALL_HINT,
    MODELS,
    Embedder,
    ModelSpec,
    load_embedder,
    model_spec,
    passage_key,
    passage_text,
)
from labeler.dense.neighbours import STORAGES, Neighbours, quantize, top_k
from labeler.dense.search import (
    HYBRID_DEPTH,
    ChunkVectors,
    DenseHit,
    chunk_vectors,
    dense_search,
    hybrid_search,
)

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_STORAGE",
    "HYBRID_DEPTH",
    "INSTALL_HINT",
    "MODELS",
    "RRF_K",
    "STORAGES",
    "ChunkVectors",
    "DenseHit",
    "Embedder",
    "Fused",
    "IndexHeader",
    "IndexWriter",
    "ModelSpec",
    "Neighbours",
    "Vectors",
    "chunk_vectors",
    "compact",
    "dense_search",
    "hybrid_search",
    "index_path",
    "load_embedder",
    "model_spec",
    "passage_key",
    "passage_text",
    "quantize",
    "read_vectors",
    "rrf",
    "top_k",
    "update_index",
]
