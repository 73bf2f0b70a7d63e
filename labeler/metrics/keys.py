"""Matching (question, chunk) pairs between a test set and a run, by sorted 64-bit keys.

A key is the row's question index in the high bits and a hash of the chunk id in the rest, so
sorting keeps each question's rows together: files grouped by question sort fast, and looking
a run's sorted keys up in the test set's walks both arrays front to back. Equal keys are only
candidates: every match and every duplicate is checked byte for byte, and a key shared by two
different ids (a hash collision) raises ``HashCollision`` so the caller can redo the work
exactly in Python. A collision can cost time; it can never change a figure.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from labeler.metrics.strings import BLOCK_ROWS, Strings, equal


class HashCollision(Exception):
    """Two different ids share a key: the fast path gives way to the exact one."""


@dataclass(frozen=True, slots=True, eq=False)
class PairKeys:
    """Sorted keys, the row each comes from, and how many low bits hold the chunk's hash."""

    keys: np.ndarray
    rows: np.ndarray
    bits: int


def key_bits(num_questions: int) -> int:
    """Bits left for the chunk hash once the question index has the bits it needs."""
    return 63 - max(int(num_questions).bit_length(), 1)


def sort_kind(question: np.ndarray) -> str | None:
    """numpy's stable sort (timsort) when the rows are already grouped by question, as files
    are usually written: it sorts the runs it finds instead of the whole array, about three
    times faster than the default introsort on such keys (0.02 against 0.06 s a million rows),
    and a quarter slower on rows in no order, which keep the default."""
    grouped = len(question) < 2 or bool((question[1:] >= question[:-1]).all())
    return "stable" if grouped else None


def sorted_keys(question: np.ndarray, hashes: np.ndarray, bits: int) -> PairKeys:
    """Keys of the rows (question index per row, chunk hash per row), sorted. ``hashes`` is
    consumed: the keys are built in its memory, a block of rows at a time.

    Rows grouped by question in increasing order (as files grouped by question number them:
    in order of first appearance) are sorted a block at a time too, each block cut between two
    questions: the same order as one sort of the whole (keys of a later block are all greater),
    with no array but the output as big as the rows. Fresh memory costs more than the sort on a
    virtual machine, where every page is zeroed (docs/benchmarks.md, "Fresh memory")."""
    keys = hashes
    drop, lift = np.uint64(64 - bits), np.uint64(bits)
    for start in range(0, len(keys), BLOCK_ROWS):
        block = keys[start : start + BLOCK_ROWS]
        block >>= drop
        block |= question[start : start + BLOCK_ROWS].astype(np.uint64) << lift
    keys = keys.view(np.int64)  # the top bit is 0: the same order as unsigned
    row_type = np.int32 if len(keys) < 2**31 else np.int64
    if sort_kind(question) is None:
        order = np.argsort(keys)
        return PairKeys(keys[order], order.astype(row_type, copy=False), bits)
    rows = np.empty(len(keys), dtype=row_type)
    for start, end in _question_blocks(question):
        order = np.argsort(keys[start:end], kind="stable")
        keys[start:end] = keys[start:end][order]
        order += start
        rows[start:end] = order
    return PairKeys(keys, rows, bits)


def _question_blocks(question: np.ndarray) -> Iterator[tuple[int, int]]:
    """(start, end) of blocks of about ``BLOCK_ROWS`` rows of ``question`` (in increasing
    order), each cut between two questions: one question's rows are never split."""
    start, count = 0, len(question)
    while start < count:
        end = start + BLOCK_ROWS
        if end >= count:
            end = count
        elif question[end] == question[start]:  # one question fills the block: take it whole
            end = int(np.searchsorted(question, question[start], side="right"))
        else:
            end = int(np.searchsorted(question, question[end], side="left"))
        yield start, end
        start = end


def rekeyed(keys: PairKeys, index: np.ndarray, bits: int) -> PairKeys | None:
    """``keys`` made by one numbering of the questions, re-made by another: ``index[q]`` is
    the new number of question ``q``, and ``bits`` the hash bits the new keys keep; None when
    that is more than ``keys`` kept.

    The order is kept: the rows stay grouped by question, each group sorted, but the groups
    need not be in order across questions (the two numberings may order the questions
    differently). ``first_duplicate`` and ``match`` ask no more: equal keys share a question,
    so they are next to each other, and the search finds each key wherever it is. A run's keys
    can so be sorted while it is read, before the test set's numbering is known."""
    if bits > keys.bits:
        return None
    if bits == keys.bits and np.array_equal(index, np.arange(len(index))):
        return keys  # the same numbering (the test set lists the run's questions in its order)
    own = keys.keys.view(np.uint64)
    question = index[own >> np.uint64(keys.bits)].astype(np.uint64)
    out = own & np.uint64((1 << keys.bits) - 1)
    out >>= np.uint64(keys.bits - bits)  # the same top bits of the hash as ``sorted_keys``
    out |= question << np.uint64(bits)
    return PairKeys(out.view(np.int64), keys.rows, bits)


def first_duplicate(keys: PairKeys, chunks: Strings) -> tuple[int, int] | None:
    """The first two rows with the same question and chunk, or None. ``chunks`` is indexed by
    the rows of ``keys``; equal keys already mean the same question."""
    same = np.flatnonzero(keys.keys[1:] == keys.keys[:-1])
    if len(same) == 0:
        return None
    a, b = keys.rows[same], keys.rows[same + 1]
    if not equal(chunks, a, chunks, b).all():
        raise HashCollision
    first, second = np.minimum(a, b), np.maximum(a, b)
    i = int(np.argmin(first))
    return int(first[i]), int(second[i])


def exact_duplicate(question: np.ndarray, chunks: Strings) -> tuple[int, int] | None:
    seen: dict[tuple[int, str], int] = {}
    for row, pair in enumerate(zip(question.tolist(), chunks.to_list(), strict=True)):
        if pair in seen:
            return seen[pair], row
        seen[pair] = row
    return None


def match(
    labels: PairKeys, label_chunks: Strings, results: PairKeys, result_chunks: Strings
) -> tuple[np.ndarray, np.ndarray]:
    """(result rows, label rows) of every result that has a label, in result order. Keys are
    unique on each side (``first_duplicate`` found no two rows alike).

    The results are matched a block at a time, against the labels between the block's least
    and greatest keys: both sorted (or grouped by question), they are merged by one stable
    sort, which finds and merges their runs in linear time (twice as fast as a binary search
    for each key), and a result sits right after the label of the same key."""
    if len(labels.keys) == 0 or len(results.keys) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    found_results, found_labels = [], []
    for start in range(0, len(results.keys), BLOCK_ROWS):
        wanted = results.keys[start : start + BLOCK_ROWS]
        low = int(np.searchsorted(labels.keys, wanted.min()))
        high = int(np.searchsorted(labels.keys, wanted.max(), side="right"))
        both = np.concatenate([labels.keys[low:high], wanted])
        order = np.argsort(both, kind="stable")
        merged = both[order]
        pairs = np.flatnonzero(merged[1:] == merged[:-1])
        label_at, result_at = order[pairs], order[pairs + 1] - (high - low)
        if len(pairs) and (int(label_at.max()) >= high - low or int(result_at.min()) < 0):
            raise HashCollision  # two labels or two results alike: the exact path decides
        if len(result_at) > 1 and not (result_at[1:] > result_at[:-1]).all():
            keep = np.argsort(result_at)  # the block's keys were grouped, not sorted
            label_at, result_at = label_at[keep], result_at[keep]
        result_rows = results.rows[start : start + BLOCK_ROWS][result_at]
        label_rows = labels.rows[label_at + low]
        if not equal(label_chunks, label_rows, result_chunks, result_rows).all():
            raise HashCollision
        found_results.append(result_rows)
        found_labels.append(label_rows)
    return np.concatenate(found_results), np.concatenate(found_labels)


__all__ = [
    "HashCollision",
    "PairKeys",
    "exact_duplicate",
    "first_duplicate",
    "key_bits",
    "match",
    "rekeyed",
    "sort_kind",
    "sorted_keys",
]
