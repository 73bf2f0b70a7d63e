"""Columns of ids (questions, chunks) as flat numpy arrays, and the vectorised work done on them.

A million chunk ids as Python strings cost more to create than the whole evaluation: so a column
is one UTF-8 byte buffer with a start and a length per row (the layout Arrow uses too), and ids are
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
MASKS = np.array([(1 << (8 * b)) - 1 for b in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
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


def pad(lengths: np.ndarray) -> int:
    """Zero bytes after the last string that let every word of the longest be read."""
    longest = int(lengths.max()) if len(lengths) else 0
    return 8 * (longest // 8 + 2)


@dataclass(frozen=True, slots=True, eq=False)
class Strings:
    """n UTF-8 strings: ``data[starts[i]:starts[i] + lengths[i]]`` is string i (starts are
    int64, lengths int32: ids are short, and a 10-million-row column is big enough).

    ``data`` made here carries zero bytes after the last string, enough to read every word of
    the longest string from any start (see ``pad``), so reading needs no bounds checks; ``data``
    without them (a file's bytes, read in place) is read near its end word by word all the same.
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
        data = np.frombuffer(b"".join(encoded) + bytes(pad(lengths)), dtype=np.uint8)
        return cls(starts, lengths, data)

    def copy_into(self, buffer: np.ndarray, at: int) -> tuple[np.ndarray, int]:
        """Copy the strings' bytes into ``buffer`` from byte ``at`` (a multiple of 8); return
        where each starts in ``buffer`` and how many bytes were written (a multiple of 8).

        In slots of one width (the longest's, in whole words), read a word at a time, when
        that takes at most twice the bytes the strings hold (generated ids, whose lengths
        differ little); else one after another, byte by byte."""
        count, words = len(self), self.max_words()
        if count == 0:
            return np.zeros(0, dtype=np.int64), 0
        total = int(self.lengths.sum())
        if 8 * words * count <= 2 * total:
            width = 8 * words
            slots = buffer[at : at + width * count].view(np.uint64).reshape(count, words)
            for j in range(words):
                slots[:, j] = self.word(j)[0]
            return np.arange(at, at + width * count, width, dtype=np.int64), width * count
        index, starts = self._joined_index()
        np.take(self.data, index, out=buffer[at : at + total])
        return starts + at, -(-total // 8) * 8

    def joined(self) -> np.ndarray:
        """The strings' bytes one after another."""
        return self.data[self._joined_index()[0]]

    def _joined_index(self) -> tuple[np.ndarray, np.ndarray]:
        """Where in ``data`` each byte of the strings one after another is, and where each
        string starts among them."""
        ends = np.cumsum(self.lengths, dtype=np.int64)
        starts = ends - self.lengths
        index = np.repeat(self.starts - starts, self.lengths)
        index += np.arange(int(ends[-1]) if len(ends) else 0)
        return index, starts

    def fixed_width(self) -> np.ndarray:
        """The strings as numpy fixed-width bytes (``S`` of the longest's length, zero-padded:
        they sort byte-wise, a prefix first as strcmp does, and numpy parses numbers in them)."""
        width = max(int(self.lengths.max()) if len(self) else 0, 1)
        offsets = np.arange(width)
        at = np.minimum(self.starts[:, None] + offsets, len(self.data) - 1)
        matrix = np.where(offsets < self.lengths[:, None], self.data[at], 0).astype(np.uint8)
        return np.ascontiguousarray(matrix).view(f"S{width}").ravel()

    def get(self, i: int) -> str:
        start = int(self.starts[i])
        return self.data[start : start + int(self.lengths[i])].tobytes().decode("utf-8")

    def to_list(self, rows: np.ndarray | None = None) -> list[str]:
        """The strings as Python str, gathered in one pass over the bytes."""
        starts = self.starts if rows is None else self.starts[rows]
        lengths = self.lengths if rows is None else self.lengths[rows]
        if len(starts) == 0:
            return []
        raw = Strings(starts, lengths, self.data).joined().tobytes()
        edges = [0, *np.cumsum(lengths, dtype=np.int64).tolist()]
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
        at = starts + 8 * j if j else starts
        if len(self.data) < 8:  # too short for one word: read from a padded copy
            padded = Strings(starts, lengths, np.concatenate([self.data, np.zeros(8, np.uint8)]))
            return padded.word(j)
        view = self._word_view()
        last = len(view) - 1
        if len(at) and int(at.max()) > last:
            # Unpadded data (a file's bytes, read in place): a word that would run past the end
            # is read from the last whole word and shifted down, zeros coming in at the top.
            over = np.clip(at - last, 0, 7).astype(np.uint64)
            words = view[np.minimum(at, last)] >> (over * np.uint64(8))
        else:
            words = view[at]
        if int(remaining.min(initial=8)) < 8:
            words &= MASKS[np.clip(remaining, 0, 8)]
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
    _, ranks = np.unique(strings.take(rows).fixed_width(), return_inverse=True)
    return ranks.reshape(-1).astype(np.int64)


__all__ = [
    "BLOCK_ROWS",
    "MASKS",
    "Strings",
    "byte_order",
    "equal",
    "hash64",
    "pad",
]
