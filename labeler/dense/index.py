"""The vector index: one append-only file beside the project's database, per embedding model.

Where: ``<database>.<model key>.vectors`` (``project.db.all-MiniLM-L6-v2-int8@1.0.0.vectors``),
so a different model, or another release of it, is a different index and never mixes its
vectors with another's; ``index_path`` is the one place that names it. Not in the database: a
million vectors are 0.8 GB that every backup, copy and VACUUM of the labels would carry, and a
flat file is read into one matrix with one call.

Format (version 1), all integers little-endian:

    magic      8 bytes   b"LBLVEC\\x00\\x01"
    length     4 bytes   n, the length of the header
    header     n bytes   UTF-8 JSON: model key, dim, storage (float16, int8 or float32), key size
    records    to the end of the file, each: key (16 bytes) + vector (dim values of storage)

A record's key is ``passage_key`` of the chunk (a hash of its title and text), so the index
is shared by every chunking that holds the same text, a chunk whose text changes gets a new
key (it is embedded again: incremental), and equal texts are embedded once.

Crash and Ctrl-C safety comes from the layout, not from a journal: records are only ever
appended, a batch at a time, and flushed to disk before the next batch is embedded; a reader
reads whole records only (the file size rounded down), and the writer cuts a partial last
record (a write the crash interrupted) when it opens the file. So after any interruption the
index holds every batch written before it, and the next run embeds only what is missing
(resumable). One writer at a time: the writer holds an exclusive lock on the file
(``fcntl.flock``, where the platform has it); a second writer gets a LabelerError.

A key written twice (two runs racing before the lock, or a compaction's survivor) holds the
same vector both times (the model is deterministic), and the lookup takes the last. Texts that
left the corpus keep their records until ``compact`` rewrites the file without them (a new
file renamed over the old one, so a reader sees either).
"""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from labeler.dense.model import BATCH_SIZE, KEY_BYTES, Embedder
from labeler.dense.neighbours import STORAGES, Storage, quantize
from labeler.errors import LabelerError

try:  # POSIX; elsewhere one writer at a time is the user's to keep
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

MAGIC = b"LBLVEC\x00\x01"
FORMAT_VERSION = 1
# float16 keeps the top 10 of float32 on at least 99 % of questions (bench_embed.py,
# docs/dense.md) at half the memory: a million 384-dim vectors are 0.77 GB.
DEFAULT_STORAGE: Storage = "float16"
_PREFIX = struct.Struct("<8sI")


@dataclass(frozen=True, slots=True)
class IndexHeader:
    """What an index file says about itself."""

    model: str
    dim: int
    storage: Storage
    key_bytes: int = KEY_BYTES
    version: int = FORMAT_VERSION

    def record_dtype(self) -> np.dtype:
        return np.dtype([("key", f"S{self.key_bytes}"), ("vector", self.storage, (self.dim,))])

    def encode(self) -> bytes:
        body = json.dumps(
            {
                "format": "labeler-vectors",
                "version": self.version,
                "model": self.model,
                "dim": self.dim,
                "storage": self.storage,
                "key_bytes": self.key_bytes,
            },
            sort_keys=True,
        ).encode("utf-8")
        return _PREFIX.pack(MAGIC, len(body)) + body


def index_path(database: Path, model_key: str) -> Path:
    """The index file of ``model_key`` for the project database ``database``."""
    safe = "".join(ch if ch.isalnum() or ch in "@.-_" else "_" for ch in model_key)
    return database.with_name(f"{database.name}.{safe}.vectors")


def read_header(path: Path) -> tuple[IndexHeader, int]:
    """The header of the index at ``path`` and where its records start."""
    with path.open("rb") as f:
        prefix = f.read(_PREFIX.size)
        if len(prefix) < _PREFIX.size or prefix[:8] != MAGIC:
            raise LabelerError("not a labeler vector index (bad magic number)", path=path)
        (length,) = struct.unpack("<I", prefix[8:])
        try:
            body = json.loads(f.read(length).decode("utf-8"))
            header = IndexHeader(
                model=body["model"],
                dim=int(body["dim"]),
                storage=body["storage"],
                key_bytes=int(body["key_bytes"]),
                version=int(body["version"]),
            )
        except (ValueError, KeyError) as error:
            raise LabelerError(f"unreadable vector index header: {error}", path=path) from None
    if header.version != FORMAT_VERSION or header.storage not in STORAGES:
        raise LabelerError(
            f"vector index format {header.version} with {header.storage} vectors is not one"
            f" this labeler reads (format {FORMAT_VERSION}, {', '.join(STORAGES)})",
            path=path,
        )
    return header, _PREFIX.size + length


@dataclass(frozen=True)
class Vectors:
    """An index read into memory: keys sorted (for lookup) and their vectors, in one matrix."""

    header: IndexHeader
    keys: np.ndarray  # (n,) S16, sorted
    matrix: np.ndarray  # (n, dim) in the header's storage

    def __len__(self) -> int:
        return len(self.keys)

    def rows(self, keys: Sequence[bytes]) -> np.ndarray:
        """The row of each key in ``matrix``, -1 where the index does not hold it."""
        wanted = np.asarray(keys, dtype=f"S{self.header.key_bytes}")
        if not len(self.keys) or not len(wanted):
            return np.full(len(wanted), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        return np.where(self.keys[at] == wanted, at, -1).astype(np.int64)

    def missing(self, keys: Iterable[bytes]) -> list[bytes]:
        """The distinct keys of ``keys`` the index does not hold, in first-seen order."""
        distinct = list(dict.fromkeys(keys))
        return [k for k, row in zip(distinct, self.rows(distinct), strict=True) if row < 0]


def read_vectors(path: Path) -> Vectors:
    """Every whole record of the index at ``path`` (a partial last one is left out); for a key
    held twice, its last record."""
    header, start = read_header(path)
    dtype = header.record_dtype()
    count = (path.stat().st_size - start) // dtype.itemsize
    records = np.fromfile(path, dtype=dtype, count=count, offset=start)
    # Last record of each key: a stable sort of the reversed records keeps the latest first.
    reverse = records[::-1]
    order = np.argsort(reverse["key"], kind="stable")
    keys = reverse["key"][order]
    first = np.ones(len(keys), dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    chosen = order[first]
    return Vectors(header, keys[first], np.ascontiguousarray(reverse["vector"][chosen]))


class IndexWriter:
    """Appends records to an index, creating it (with ``header``) when it does not exist.

    Holds the file's exclusive lock from ``open`` to ``close``; cuts a partial last record on
    opening; each ``append`` is written and flushed to disk before it returns.
    """

    def __init__(self, path: Path, header: IndexHeader) -> None:
        self.path = path
        self.header = header
        self._file = None

    def __enter__(self) -> IndexWriter:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        f = open(self.path, "a+b")  # noqa: SIM115 - held until close()
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise LabelerError(
                        "another process is writing this vector index (labeler embed running?)",
                        path=self.path,
                    ) from None
            f.seek(0, os.SEEK_END)
            if f.tell() == 0:
                f.write(self.header.encode())
                _sync(f)
            self._check_and_trim(f)
        except BaseException:
            f.close()
            raise
        self._file = f

    def _check_and_trim(self, f) -> None:
        found, start = read_header(self.path)
        if found != self.header:
            raise LabelerError(
                f"this vector index holds {found.model} ({found.dim} x {found.storage}),"
                f" not {self.header.model} ({self.header.dim} x {self.header.storage})",
                path=self.path,
            )
        size = f.seek(0, os.SEEK_END)
        whole = start + (size - start) // self.header.record_dtype().itemsize * (
            self.header.record_dtype().itemsize
        )
        if whole != size:
            f.truncate(whole)
            _sync(f)

    def append(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        """Write ``keys`` with their float32 ``vectors`` (stored in the header's storage)."""
        if self._file is None:
            raise RuntimeError("the index writer is not open")
        if vectors.shape != (len(keys), self.header.dim):
            raise ValueError(f"vectors of shape {vectors.shape} for {len(keys)} keys")
        records = np.empty(len(keys), dtype=self.header.record_dtype())
        records["key"] = np.asarray(keys, dtype=f"S{self.header.key_bytes}")
        records["vector"] = quantize(vectors, self.header.storage)
        self._file.write(records.tobytes())
        _sync(self._file)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()  # closing releases the lock
            self._file = None


def _sync(f) -> None:
    f.flush()
    os.fsync(f.fileno())


def header_for(embedder: Embedder, storage: Storage = DEFAULT_STORAGE) -> IndexHeader:
    return IndexHeader(model=embedder.key, dim=embedder.dim, storage=storage)


def update_index(
    path: Path,
    embedder: Embedder,
    passages: Sequence[tuple[bytes, str]],
    *,
    storage: Storage = DEFAULT_STORAGE,
    progress: Callable[[int, int], None] | None = None,
    batch_size: int | None = None,
) -> int:
    """Embed the ``(key, passage text)`` pairs the index at ``path`` does not hold yet, a batch
    at a time, each batch on disk before the next is embedded; returns how many were embedded.

    ``progress(done, total)`` is called after each batch, ``total`` being the texts missing at
    the start. Interrupted (Ctrl-C, a crash), the next call embeds only what is still missing.
    """
    header = header_for(embedder, storage)
    texts = dict(passages)
    done = 0
    with IndexWriter(path, header) as writer:
        todo = read_vectors(path).missing(texts)
        size = batch_size or BATCH_SIZE
        for start in range(0, len(todo), size):
            keys = todo[start : start + size]
            writer.append(keys, embedder.embed_passages([texts[k] for k in keys]))
            done += len(keys)
            if progress is not None:
                progress(done, len(todo))
    return done


def compact(path: Path, keep: Iterable[bytes]) -> int:
    """Rewrite the index with only the keys in ``keep`` (the texts the corpus still holds);
    returns how many records were dropped. Holds the writer's lock meanwhile (a running
    ``labeler embed`` makes it fail rather than lose that run's records), writes the new file
    beside the old one and renames it over, so a reader sees one or the other whole."""
    header, _ = read_header(path)
    with IndexWriter(path, header):
        held = read_vectors(path)
        rows = held.rows(list(dict.fromkeys(keep)))
        rows = np.sort(rows[rows >= 0])
        records = np.empty(len(rows), dtype=header.record_dtype())
        records["key"] = held.keys[rows]
        records["vector"] = held.matrix[rows]
        temporary = path.with_name(path.name + ".compacting")
        with open(temporary, "wb") as f:
            f.write(header.encode())
            f.write(records.tobytes())
            _sync(f)
        os.replace(temporary, path)
    return len(held) - len(rows)


__all__ = [
    "DEFAULT_STORAGE",
    "FORMAT_VERSION",
    "MAGIC",
    "IndexHeader",
    "IndexWriter",
    "Vectors",
    "compact",
    "header_for",
    "index_path",
    "read_header",
    "read_vectors",
    "update_index",
]
