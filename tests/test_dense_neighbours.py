"""Exact top-k by blockwise matrix products, on small vectors worked by hand."""

import numpy as np
import pytest

from labeler.dense.neighbours import INT8_SCALE, quantize, quantize_int8, top_k

# Four unit vectors in 2-D and a question along x: scores 1, 0.6, 0, -0.8.
MATRIX = np.array([[0.0, 1.0], [1.0, 0.0], [-0.8, 0.6], [0.6, 0.8]], dtype=np.float32)
QUESTION = np.array([1.0, 0.0], dtype=np.float32)


@pytest.mark.parametrize("block_rows", [1, 2, 3, 4, 100])
def test_top_k_is_exact_whatever_the_block_size(block_rows: int) -> None:
    found = top_k(MATRIX, QUESTION, 3, block_rows=block_rows)
    assert found.rows.tolist() == [[1, 3, 0]]
    assert found.scores[0].tolist() == pytest.approx([1.0, 0.6, 0.0])


def test_several_questions_at_once_and_k_beyond_the_rows() -> None:
    questions = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    found = top_k(MATRIX, questions, 10, block_rows=2)
    assert found.rows.tolist() == [[1, 3, 0, 2], [0, 3, 2, 1]]
    assert found.scores[1].tolist() == pytest.approx([1.0, 0.8, 0.6, 0.0])


@pytest.mark.parametrize("block_rows", [1, 2, 5])
def test_equal_vectors_keep_the_lower_row_first_across_blocks(block_rows: int) -> None:
    # Rows 1, 2 and 4 are the same vector (equal texts): the top 2 are rows 1 and 2, in order,
    # wherever the block boundaries fall.
    matrix = np.array([[0, 1], [1, 0], [1, 0], [0.6, 0.8], [1, 0]], dtype=np.float32)
    found = top_k(matrix, QUESTION, 2, block_rows=block_rows)
    assert found.rows.tolist() == [[1, 2]]


def test_nothing_to_search() -> None:
    found = top_k(np.empty((0, 2), dtype=np.float32), QUESTION, 5)
    assert found.rows.shape == (1, 0)
    assert top_k(MATRIX, QUESTION, 0).rows.shape == (1, 0)


def test_int8_stores_127_x_and_scores_on_the_float_scale() -> None:
    stored = quantize_int8(np.array([[0.6, 0.8], [-1.0, 0.001]], dtype=np.float32))
    assert stored.dtype == np.int8
    assert stored.tolist() == [[76, 102], [-127, 0]]  # round(76.2), round(101.6)
    found = top_k(quantize(MATRIX, "int8"), QUESTION, 2)
    assert found.rows.tolist() == [[1, 3]]
    assert found.scores[0].tolist() == pytest.approx([1.0, 76 / INT8_SCALE])


def test_float16_keeps_the_order_here() -> None:
    stored = quantize(MATRIX, "float16")
    assert stored.dtype == np.float16
    assert top_k(stored, QUESTION, 4).rows.tolist() == [[1, 3, 0, 2]]


def test_an_unknown_storage_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown storage"):
        quantize(MATRIX, "bfloat16")  # type: ignore[arg-type]
