"""Matching keys: a run's keys sorted by its own question numbering, re-numbered by a test
set's (``rekeyed``), on hashes chosen by hand."""

from __future__ import annotations

import numpy as np

from labeler.metrics import keys
from labeler.metrics.keys import key_bits, match, rekeyed, sort_kind, sorted_keys
from labeler.metrics.strings import Strings, hash64


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


def test_rekeyed_keeps_the_keys_when_the_numbering_is_the_same() -> None:
    own = sorted_keys(np.array([0, 1], dtype=np.int32), np.array([9, 7], dtype=np.uint64), 40)
    assert rekeyed(own, np.array([0, 1], dtype=np.int32), 40) is own
    # Fewer bits, or another numbering, make new keys.
    assert rekeyed(own, np.array([0, 1], dtype=np.int32), 39) is not own
    assert rekeyed(own, np.array([1, 0], dtype=np.int32), 40) is not own


def test_sort_kind_takes_the_stable_sort_for_rows_grouped_by_question() -> None:
    assert sort_kind(np.array([0, 0, 1, 1, 1, 2], dtype=np.int32)) == "stable"
    assert sort_kind(np.array([], dtype=np.int32)) == "stable"
    assert sort_kind(np.array([0, 1, 0], dtype=np.int32)) is None


def test_sorted_keys_sorts_the_same_rows_in_order_or_not() -> None:
    # Question 0: hashes 5, 1, 3 (top bits); question 1: 2, 4. The same rows shuffled sort to
    # the same keys, and each key's row holds that key's question and hash.
    question = np.array([0, 0, 0, 1, 1], dtype=np.int32)
    hashes = np.array([5, 1, 3, 2, 4], dtype=np.uint64) << np.uint64(56)
    grouped = sorted_keys(question, hashes.copy(), 8)
    assert grouped.rows.tolist() == [1, 2, 0, 3, 4]
    assert grouped.keys.tolist() == [1, 3, 5, 256 + 2, 256 + 4]
    shuffle = np.array([3, 0, 4, 2, 1])
    mixed = sorted_keys(question[shuffle], hashes[shuffle].copy(), 8)
    assert mixed.keys.tolist() == grouped.keys.tolist()
    assert shuffle[mixed.rows].tolist() == grouped.rows.tolist()


def test_sorted_keys_sorts_a_block_at_a_time_as_one_sort_would(monkeypatch) -> None:
    # Blocks of 2 rows, cut between questions: question 1's three rows make one block whole.
    monkeypatch.setattr(keys, "BLOCK_ROWS", 2)
    question = np.array([0, 1, 1, 1, 2, 3, 3], dtype=np.int32)
    assert list(keys._question_blocks(question)) == [(0, 1), (1, 4), (4, 5), (5, 7)]
    hashes = np.array([7, 3, 9, 1, 2, 6, 5], dtype=np.uint64) << np.uint64(56)
    blocked = sorted_keys(question, hashes.copy(), 8)
    assert blocked.rows.tolist() == [0, 3, 1, 2, 4, 6, 5]
    assert blocked.keys.tolist() == [7, 256 + 1, 256 + 3, 256 + 9, 512 + 2, 768 + 5, 768 + 6]


def test_match_finds_the_same_pairs_a_block_at_a_time(monkeypatch) -> None:
    # Labels: question 0 chunks a, b; question 1 chunk a. Results: 0 b, 1 a, 1 c, 0 a.
    labels = Strings.from_list(["a", "b", "a"])
    results = Strings.from_list(["b", "a", "c", "a"])
    label_keys = sorted_keys(np.array([0, 0, 1]), hash64(labels), key_bits(2))
    result_keys = sorted_keys(np.array([0, 1, 1, 0]), hash64(results), key_bits(2))
    whole = match(label_keys, labels, result_keys, results)
    monkeypatch.setattr(keys, "BLOCK_ROWS", 1)
    blocked = match(label_keys, labels, result_keys, results)
    pairs = sorted(zip(whole[0].tolist(), whole[1].tolist(), strict=True))
    assert pairs == [(0, 1), (1, 2), (3, 0)]  # (result row, label row)
    assert [a.tolist() for a in blocked] == [a.tolist() for a in whole]
