"""Columns of ids (questions, chunks) as flat numpy arrays, and the vectorised work done on them.

A million chunk ids as Python strings cost more to create than the whole evaluation: so a column
is one UTF-8 byte buffer with a start and a length per row (the layout Arrow uses), and ids are
compared eight bytes at a time. Hashes only find candidates; every match they suggest is checked
byte for byte (``equal``), and the caller falls back to exact Python when a check fails, so a
hash collision can cost time but never change a figure.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# The low b bytes of a little-endian word: MASKS[b] for b in 0..8.
_MASKS = np.array([(1 << (8 * b)) - 1 for b in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
BLOCK_ROWS = 1 << 16  # rows worked on at a time (``hash64``, ``labeler.metrics.keys``): their
# temporaries stay in the CPU's cache and are reused, where a whole column's would be fresh memory


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit reaches every output bit."""
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    return x ^ (x >> np.uint64(31))


def _pad(lengths: np.ndarray) -> int:
    longest = int(lengths.max()) if len(lengths) else 0
    return 8 * (longest // 8 + 2)


@dataclass(frozen=True, slots=True, eq=False)
class Strings:
    """n UTF-8 strings: ``data[starts[i]:starts[i] + lengths[i]]`` is string i (starts are
    int64, lengths int32: ids are short, and a 10-million-row column is big enough).

    ``data`` carries zero bytes after the last string, enough to read every word of the longest
    string from any start (see ``_pad``), so reading needs no bounds checks.
    """

    starts: np.ndarray
    lengths: np.ndarray
    data: np.ndarray

    def __len__(self) -> int:
        return len(self.starts)

    @classmethod
    def from_list(cls, values: Sequence[str]) -> Strings:
        encoded = [v.encode("utf-8") for v in values]
        lengths = np.fromiter((len(e) for e in encoded), dtype=np.int32, count=len(encoded))
        starts = np.zeros(len(encoded), dtype=np.int64)
        if len(encoded) > 1:
            np.cumsum(lengths[:-1], out=starts[1:], dtype=np.int64)
        data = np.frombuffer(b"".join(encoded) + bytes(_pad(lengths)), dtype=np.uint8)
        return cls(starts, lengths, data)

    @classmethod
    def from_arrow(cls, column: object) -> Strings:
        """An Arrow string column (Array or ChunkedArray, no nulls), without a Python string per
        row: the offsets and bytes are read straight from Arrow's buffers, each chunk's written
        into its place in the column's arrays (no temporary array per chunk)."""
        chunks = [c for c in (getattr(column, "chunks", None) or [column]) if len(c)]
        if not chunks:
            return cls.from_list([])
        count = sum(len(chunk) for chunk in chunks)
        starts = np.empty(count, dtype=np.int64)
        lengths = np.empty(count, dtype=np.int32)
        datas = []
        row = base = 0
        for chunk in chunks:
            n = len(chunk)
            _, offsets_buffer, data_buffer = chunk.buffers()[:3]
            wide = str(chunk.type) in ("large_string", "large_utf8")
            offsets = np.frombuffer(
                offsets_buffer,
                dtype=np.int64 if wide else np.int32,
                count=n + 1,
                offset=chunk.offset * (8 if wide else 4),
            )
            data = (
                np.frombuffer(data_buffer, dtype=np.uint8)
                if data_buffer is not None
                else np.zeros(0, np.uint8)
            )
            np.add(offsets[:-1], base, out=starts[row : row + n], dtype=np.int64)
            np.subtract(offsets[1:], offsets[:-1], out=lengths[row : row + n], casting="unsafe")
            datas.append(data)
            row += n
            base += len(data)
        datas.append(np.zeros(_pad(lengths), np.uint8))
        return cls(starts, lengths, np.concatenate(datas))

    def get(self, i: int) -> str:
        start = int(self.starts[i])
        return self.data[start : start + int(self.lengths[i])].tobytes().decode("utf-8")

    def to_list(self, rows: np.ndarray | None = None) -> list[str]:
        """The strings as Python str, gathered in one pass over the bytes."""
        starts = self.starts if rows is None else self.starts[rows]
        lengths = self.lengths if rows is None else self.lengths[rows]
        if len(starts) == 0:
            return []
        ends = np.cumsum(lengths, dtype=np.int64)
        total = int(ends[-1])
        flat = np.repeat(starts - (ends - lengths), lengths) + np.arange(total)
        raw = self.data[flat].tobytes()
        edges = [0, *ends.tolist()]
        return [raw[a:b].decode("utf-8") for a, b in itertools.pairwise(edges)]

    def take(self, rows: np.ndarray) -> Strings:
        """The strings at ``rows``, sharing this column's byte buffer."""
        return Strings(self.starts[rows], self.lengths[rows], self.data)

    def _word_view(self) -> np.ndarray:
        # An unaligned view: one little-endian uint64 starting at every byte of the buffer.
        return np.ndarray(shape=(len(self.data) - 7,), dtype="<u8", buffer=self.data, strides=(1,))

    def word(self, j: int, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Bytes 8j..8j+7 of each string (zero past its end) and how many of them are real."""
        starts = self.starts if rows is None else self.starts[rows]
        lengths = self.lengths if rows is None else self.lengths[rows]
        remaining = lengths - 8 * j
        words = self._word_view()[starts + 8 * j if j else starts]
        if int(remaining.min(initial=8)) < 8:
            words &= _MASKS[np.clip(remaining, 0, 8)]
        return words, remaining

    def max_words(self) -> int:
        return int((int(self.lengths.max()) + 7) // 8) if len(self) else 0


def hash64(strings: Strings) -> np.ndarray:
    """A 64-bit hash of each string that depends on its bytes only (not on the column).

    Hashed ``BLOCK_ROWS`` rows at a time: the temporaries of a block (a few per word) stay small
    and are reused, where a million-row column's would be tens of MB of fresh memory.
    """
    out = np.empty(len(strings), dtype=np.uint64)
    words = strings.max_words()  # the column's, so a block hashes exactly as the column would
    for start in range(0, len(strings), BLOCK_ROWS):
        end = min(start + BLOCK_ROWS, len(strings))
        block = Strings(strings.starts[start:end], strings.lengths[start:end], strings.data)
        h = block.lengths.astype(np.uint64) * _GOLDEN
        for j in range(words):
            word, remaining = block.word(j)
            step = (h ^ word) * _M1
            step ^= step >> np.uint64(32)
            h = step if j == 0 else np.where(remaining > 0, step, h)  # every string has word 0
        out[start:end] = _mix(h)
    return out


def equal(a: Strings, rows_a: np.ndarray, b: Strings, rows_b: np.ndarray) -> np.ndarray:
    """Exact equality of ``a[rows_a[i]]`` and ``b[rows_b[i]]``, eight bytes at a time."""
    a, b = a.take(rows_a), b.take(rows_b)
    same = a.lengths == b.lengths
    for j in range(min(a.max_words(), b.max_words())):
        same &= a.word(j)[0] == b.word(j)[0]
    return same


def byte_order(strings: Strings, rows: np.ndarray) -> np.ndarray:
    """The rank of each of ``strings[rows]`` in byte-wise order (equal strings, equal ranks)."""
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    width = max(int(strings.lengths[rows].max()), 1)
    offsets = np.arange(width)
    lengths = strings.lengths[rows]
    at = np.minimum(strings.starts[rows][:, None] + offsets, len(strings.data) - 1)
    matrix = np.where(offsets < lengths[:, None], strings.data[at], 0).astype(np.uint8)
    # Fixed-width bytes sort byte-wise; the zero padding sorts a prefix first, as strcmp does.
    fixed = np.ascontiguousarray(matrix).view(f"S{width}").ravel()
    _, ranks = np.unique(fixed, return_inverse=True)
    return ranks.reshape(-1).astype(np.int64)


__all__ = [
    "BLOCK_ROWS",
    "Strings",
    "byte_order",
    "equal",
    "hash64",
]
