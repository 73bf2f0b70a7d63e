"""The consensus rules and the conflict policies, on hand-built labels."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labeler.errors import LabelerError
from labeler.grading.consensus import (
    POLICIES,
    Disagreement,
    DisagreementError,
    consensus,
    get_policy,
)


@pytest.mark.parametrize(
    ("policy", "grades", "expected"),
    [
        ("median", [0, 1, 2], 1),
        ("median", [1, 2], 1),  # even count: the lower middle grade
        ("median", [0, 2], 0),
        ("median", [0, 2, 2, 2], 2),
        ("max", [0, 1, 0], 1),
        ("min", [2, 1, 2], 1),
        ("majority", [2, 2, 0], 2),
        ("majority", [0, 2], 0),  # a tie goes to the lower grade
        ("majority", [1, 2, 2, 1, 0], 1),
        ("majority", [0, 0, 1, 2, 2], 0),
    ],
)
def test_each_policy_settles_as_documented(policy: str, grades: list[int], expected: int) -> None:
    assert POLICIES[policy].settle(grades) == expected


@given(st.sampled_from(list(POLICIES)), st.lists(st.integers(0, 2), min_size=1, max_size=9))
def test_a_policy_always_picks_a_grade_someone_gave(policy: str, grades: list[int]) -> None:
    assert POLICIES[policy].settle(grades) in grades
    assert POLICIES[policy].settle(grades) == POLICIES[policy].settle(sorted(grades))


def test_an_unknown_policy_is_a_user_error() -> None:
    assert get_policy(None) is None
    with pytest.raises(LabelerError, match="choose one of: median, max, min, majority"):
        get_policy("mean")


def test_agreement_is_the_grade_and_disagreement_is_listed() -> None:
    labels = [
        ("q1", "c1", "ana", 2),
        ("q1", "c1", "ben", 2),
        ("q1", "c2", "ana", 0),
        ("q1", "c2", "ben", 1),
        ("q2", "c1", "ana", 1),
    ]
    result = consensus(labels, [], {})
    assert result.grades == {"q1": {"c1": 2}, "q2": {"c1": 1}}
    assert result.disagreements == (
        Disagreement("q1", "c2", (("ana", 0, "grade"), ("ben", 1, "grade"))),
    )
    assert result.reviewers == {"q1": frozenset({"ana", "ben"}), "q2": frozenset({"ana"})}
    assert (result.adjudicated, result.settled) == (0, 0)


def test_an_adjudicated_grade_wins_over_everyone() -> None:
    labels = [("q1", "c1", "ana", 0), ("q1", "c1", "ben", 2), ("q1", "c2", "ana", 1)]
    result = consensus(labels, [], {("q1", "c1"): 1, ("q1", "c2"): 2})
    assert result.grades == {"q1": {"c1": 1, "c2": 2}}
    assert result.disagreements == ()
    assert result.adjudicated == 2


def test_a_policy_settles_only_what_is_not_adjudicated() -> None:
    labels = [
        ("q1", "c1", "ana", 0),
        ("q1", "c1", "ben", 2),
        ("q1", "c2", "ana", 1),
        ("q1", "c2", "ben", 2),
    ]
    result = consensus(labels, [], {("q1", "c1"): 1}, policy=POLICIES["min"])
    assert result.grades == {"q1": {"c1": 1, "c2": 1}}
    assert (result.adjudicated, result.settled) == (1, 1)


def test_an_unanswerable_mark_is_a_zero_for_what_others_graded() -> None:
    labels = [("q1", "c1", "ben", 2)]
    marks = [("q1", "ana")]
    listed = consensus(labels, marks, {})
    assert listed.disagreements == (
        Disagreement("q1", "c1", (("ben", 2, "grade"), ("ana", 0, "unanswerable"))),
    )
    assert "ana unanswerable" in listed.disagreements[0].describe()
    answerable = consensus(labels, marks, {}, policy=POLICIES["max"])
    assert answerable.grades == {"q1": {"c1": 2}}
    assert answerable.unanswerable == frozenset()
    refused = consensus(labels, marks, {}, policy=POLICIES["min"])
    assert refused.grades == {"q1": {"c1": 0}}
    assert refused.unanswerable == frozenset({"q1"})


def test_unanswerable_when_marked_and_no_chunk_is_relevant() -> None:
    labels = [("q1", "c1", "ben", 0), ("q2", "c1", "ben", 0)]
    marks = [("q1", "ana"), ("q3", "ana"), ("q3", "ben")]
    result = consensus(labels, marks, {})
    # q1: ana's mark and ben's 0 agree; q2: nobody marked it, so all-zero stays answerable;
    # q3: marked by both, graded by nobody.
    assert result.unanswerable == frozenset({"q1", "q3"})
    assert result.grades == {"q1": {"c1": 0}, "q2": {"c1": 0}, "q3": {}}
    assert result.reviewers["q3"] == frozenset({"ana", "ben"})


def test_a_reviewer_own_grade_wins_over_their_own_mark() -> None:
    result = consensus([("q1", "c1", "ana", 1)], [("q1", "ana")], {})
    assert result.disagreements == ()
    assert result.grades == {"q1": {"c1": 1}}
    assert result.unanswerable == frozenset()


def test_an_adjudication_can_make_a_marked_question_unanswerable() -> None:
    labels = [("q1", "c1", "ben", 2)]
    result = consensus(labels, [("q1", "ana")], {("q1", "c1"): 0})
    assert result.unanswerable == frozenset({"q1"})


def test_only_the_questions_asked_for_are_considered() -> None:
    labels = [("q1", "c1", "ana", 2), ("q2", "c1", "ana", 0), ("q2", "c1", "ben", 2)]
    result = consensus(labels, [("q3", "ana")], {}, questions={"q1"})
    assert result.grades == {"q1": {"c1": 2}}
    assert result.disagreements == ()


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["q1", "q2"]),
            st.sampled_from(["c1", "c2", "c3"]),
            st.sampled_from(["ana", "ben", "cy"]),
            st.integers(0, 2),
        ),
        unique_by=lambda t: t[:3],
    ),
    st.randoms(use_true_random=False),
)
def test_the_result_does_not_depend_on_the_order_of_the_labels(labels, rng) -> None:
    shuffled = list(labels)
    rng.shuffle(shuffled)
    first = consensus(labels, [], {}, policy=POLICIES["majority"])
    second = consensus(shuffled, [], {}, policy=POLICIES["majority"])
    assert first == second


def test_the_disagreement_error_names_the_first_and_counts_the_rest() -> None:
    items = (
        Disagreement("q1", "c1", (("ana", 0, "grade"), ("ben", 2, "grade"))),
        Disagreement("q2", "c4", (("ana", 1, "grade"), ("ben", 2, "grade"))),
    )
    error = DisagreementError(items)
    assert str(error) == (
        'field "policy": 2 disagreement(s) between reviewers, e.g. q1 / c1: ana 0, ben 2'
        " (and 1 more); settle them with `labeler adjudicate` or choose --policy"
        " (median, max, min, majority)"
    )
    assert error.disagreements == items
