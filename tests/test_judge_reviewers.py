"""``labeler agreement``: reviewers' agreement on relevance grades."""

import krippendorff
import numpy as np
import pytest

from labeler.grading import labeling
from labeler.judge.reviewers import reviewer_agreement
from labeler.store import Store

GRADES = {  # (question, chunk): {reviewer: grade}
    ("q1", "rate-limits"): {"ana": 2, "bo": 2, "cy": 1},
    ("q1", "error-codes"): {"ana": 1, "bo": 0},
    ("q1", "pagination"): {"ana": 0, "bo": 0, "cy": 0},
    ("q2", "pagination"): {"ana": 2, "bo": 2},
    ("q2", "webhooks"): {"ana": 0, "cy": 2},
    ("q3", "error-codes"): {"bo": 2},
}


@pytest.fixture
def graded(loaded: Store) -> Store:
    for (question, chunk), given in GRADES.items():
        for reviewer, grade in given.items():
            labeling.grade(loaded, question, chunk, reviewer, grade)
    return loaded


def test_alpha_matches_the_krippendorff_package(graded: Store) -> None:
    found = reviewer_agreement(graded)
    units = [k for k, v in GRADES.items() if len(v) >= 2]
    raters = ["ana", "bo", "cy"]
    data = np.array([[GRADES[u].get(r, np.nan) for u in units] for r in raters], dtype=float)
    expected = krippendorff.alpha(data, level_of_measurement="ordinal", value_domain=[0, 1, 2])
    assert found.overall.alpha == pytest.approx(expected)
    assert (found.overall.items, found.overall.questions) == (5, 2)
    assert found.reviewers == ("ana", "bo", "cy")


def test_pairs_count_shared_chunks(graded: Store) -> None:
    pairs = {(p.a, p.b): p for p in reviewer_agreement(graded).pairs}
    assert (pairs["ana", "bo"].items, pairs["ana", "bo"].agreement) == (4, 0.75)
    assert pairs["ana", "bo"].kappa is None  # fewer than 10 shared chunks
    assert (pairs["ana", "cy"].items, pairs["ana", "cy"].agreement) == (3, pytest.approx(1 / 3))


def test_most_disputed_questions_first(graded: Store) -> None:
    """q1: 2 disputed of 3 shared; q2: 1 of 2 (ana 0 vs cy 2, the widest gap)."""
    questions = reviewer_agreement(graded).questions
    assert [(q.question_id, q.disputed, q.shared) for q in questions] == [
        ("q1", 2, 3),
        ("q2", 1, 2),
    ]
    # q1's spread: pairs on rate-limits (0, 1, 1), error-codes (1), pagination (0, 0, 0): 3/7
    assert questions[0].spread == pytest.approx(3 / 7)


def test_by_tag_and_a_tag_filter(graded: Store) -> None:
    found = reviewer_agreement(graded)
    assert set(found.by_tag) == {"api", "paging"}
    assert found.by_tag["paging"].items == 2  # q2's two shared chunks
    only = reviewer_agreement(graded, tag="paging")
    assert only.overall.items == 2
    assert [q.question_id for q in only.questions] == ["q2"]


def test_the_pairwise_matrix(graded: Store) -> None:
    matrix = reviewer_agreement(graded).matrix()
    assert matrix["reviewers"] == ["ana", "bo", "cy"]
    assert matrix["items"] == [[0, 4, 3], [4, 0, 2], [3, 2, 0]]
    assert matrix["kappa"][0][1] is None  # 4 shared chunks: too few for a kappa


def test_agreement_reads_each_grade_as_it_stood_before_its_reviewer_saw_the_others(
    loaded: Store,
) -> None:
    """On q2 (two candidates: pagination and webhooks, plus search hits) ana and bo disagree
    on pagination; once ana sees bo's grades she changes hers to his. Agreement still counts
    ana's first grade."""
    view = labeling.open_question(loaded, "q2", "bo")
    chunks = [c.chunk.id for c in view.candidates]
    for chunk in chunks:
        labeling.grade(loaded, "q2", chunk, "bo", 2 if chunk == "pagination" else 0)
        labeling.grade(loaded, "q2", chunk, "ana", 0)
    before = {(p.a, p.b): p.agreement for p in reviewer_agreement(loaded).pairs}
    assert before[("ana", "bo")] == pytest.approx((len(chunks) - 1) / len(chunks))
    labeling.open_question(loaded, "q2", "ana")  # bo's grades are shown to ana
    labeling.grade(loaded, "q2", "pagination", "ana", 2)
    after = {(p.a, p.b): p.agreement for p in reviewer_agreement(loaded).pairs}
    assert after == before
