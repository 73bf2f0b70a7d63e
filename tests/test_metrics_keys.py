"""Matching keys: a run's keys sorted by its own question numbering, re-numbered by a test
set's (``rekeyed``), on hashes chosen by hand."""

from __future__ import annotations

import numpy as np

from labeler.metrics.keys import rekeyed, sorted_keys


def test_rekeyed_renumbers_the_questions_and_keeps_the_top_bits_of_the_hash() -> None:
    question = np.array([0, 0, 1, 1], dtype=np.int32)
    hashes = np.array([3 << 60, 1 << 60, 2 << 60, 4 << 60], dtype=np.uint64)
    own = sorted_keys(question, hashes.copy(), 61)  # rows by (question, hash): 1, 0, 2, 3
    assert own.rows.tolist() == [1, 0, 2, 3]
    # The test set numbers the run's question 0 as 5 and its question 1 as 2, with 60 bits.
    renumbered = rekeyed(own, np.array([5, 2], dtype=np.int32), 60)
    assert renumbered is not None
    assert renumbered.rows.tolist() == [1, 0, 2, 3]
    assert renumbered.bits == 60
    # The same keys ``sorted_keys`` gives the renumbered rows: question << 60 | top 60 bits.
    expected = {
        1: 5 << 60 | 1 << 56,
        0: 5 << 60 | 3 << 56,
        2: 2 << 60 | 2 << 56,
        3: 2 << 60 | 4 << 56,
    }
    assert dict(zip(renumbered.rows.tolist(), renumbered.keys.tolist(), strict=True)) == expected
    direct = sorted_keys(np.array([5, 5, 2, 2]), hashes.copy(), 60)
    assert sorted(direct.keys.tolist()) == sorted(expected.values())


def test_rekeyed_cannot_add_bits_the_keys_did_not_keep() -> None:
    own = sorted_keys(np.zeros(2, dtype=np.int32), np.array([1, 2], dtype=np.uint64), 40)
    assert rekeyed(own, np.array([0], dtype=np.int32), 41) is None
