"""How completely a question is graded, worked out by hand (labeler.grading.completeness)."""

import pytest

from labeler.errors import LabelerError
from labeler.grading.completeness import Completeness, Requirement, RunDepth, completeness
from labeler.store.pool import PoolSource


def entry(chunk: str, *sources: tuple[str, str, int | None]) -> list[tuple]:
    """A chunk's sources as ``stored_sources`` reads them: (question, *PoolSource)."""
    return [("q1", *PoolSource(chunk, kind, name, rank)) for kind, name, rank in sources]


# A question's pool: bm25 ranked a..e (pool depth 5), dense ranked c, f, a (pool depth 3, and it
# returned only those), the search found g, a reviewer added h.
POOL = [
    *entry("a", ("run", "bm25", 1), ("run", "dense", 3)),
    *entry("b", ("run", "bm25", 2)),
    *entry("c", ("run", "bm25", 3), ("run", "dense", 1), ("labelled", "ana", None)),
    *entry("d", ("run", "bm25", 4)),
    *entry("e", ("run", "bm25", 5)),
    *entry("f", ("run", "dense", 2)),
    *entry("g", ("search", "bm25", 1)),
    *entry("h", ("added", "ana", None)),
]
DEPTHS = {"bm25": 5, "dense": 3}


def test_complete_to_is_the_rank_before_the_first_ungraded_result() -> None:
    # graded: a, b, c, f, h; ungraded: d (bm25 #4), e (bm25 #5), g (search).
    found = completeness("q1", POOL, {"a", "b", "c", "f", "h"}, DEPTHS)
    assert found.runs == (
        RunDepth("bm25", pool_depth=5, pooled=5, ungraded=2, complete_to=3),
        RunDepth("dense", pool_depth=3, pooled=3, ungraded=0, complete_to=3),
    )
    assert (found.candidates, found.graded, found.ungraded, found.partial) == (8, 5, 3, True)
    assert found.depths() == "bm25 3/5, dense 3/3"
    assert found.record() == {
        "id": "q1",
        "candidates": 8,
        "graded": 5,
        "ungraded": 3,
        "partial": True,
        "unanswerable": False,
        "runs": {
            "bm25": {"pool_depth": 5, "pooled": 5, "ungraded": 2, "complete_to": 3},
            "dense": {"pool_depth": 3, "pooled": 3, "ungraded": 0, "complete_to": 3},
        },
    }


def test_an_ungraded_first_result_is_complete_to_zero() -> None:
    found = completeness("q1", POOL, {"b", "c", "d", "e", "f", "g", "h"}, DEPTHS)
    assert [(r.run, r.complete_to) for r in found.runs] == [("bm25", 0), ("dense", 2)]


def test_every_candidate_graded_is_not_partial() -> None:
    found = completeness("q1", POOL, set("abcdefgh"), DEPTHS)
    assert (found.ungraded, found.partial) == (0, False)
    assert [r.complete_to for r in found.runs] == [5, 3]


def test_an_unanswerable_question_is_never_partial() -> None:
    found = completeness("q1", POOL, set(), DEPTHS, unanswerable=True)
    assert (found.ungraded, found.partial) == (8, False)
    assert Requirement(depth=5).met(found, ["bm25"], DEPTHS)


def test_a_grade_outside_the_stored_pool_counts_as_a_candidate() -> None:
    """A chunk graded through an import (no pool source stored) is a graded candidate."""
    found = completeness("q1", [], {"x"}, {})
    assert (found.candidates, found.graded, found.runs) == (1, 1, ())


@pytest.mark.parametrize(
    ("requirement", "runs", "met"),
    [
        (Requirement(), [], False),  # partial: g, d, e ungraded
        (Requirement(depth=3), ["bm25", "dense"], True),
        (Requirement(depth=4), ["bm25", "dense"], False),
        (Requirement(depth=4, runs=("dense",)), ["dense"], False),  # dense pools only 3...
        (Requirement(depth=3, runs=("dense",)), ["dense"], True),
    ],
)
def test_a_requirement_is_met_or_not(requirement: Requirement, runs: list[str], met: bool) -> None:
    found = completeness("q1", POOL, {"a", "b", "c", "f", "h"}, DEPTHS)
    assert requirement.met(found, runs, DEPTHS) is met


def test_a_run_that_did_not_pool_the_question_is_complete_to_its_depth() -> None:
    found = Completeness("q9", candidates=1, graded=1, runs=())
    assert found.complete_to("bm25", 10) == 10
    assert Requirement(depth=10).met(found, ["bm25"], {"bm25": 10})


def test_the_default_action_follows_the_depth() -> None:
    assert Requirement().action == "include"
    assert Requirement(depth=5).action == "leave-out"
    assert Requirement(depth=5, partial="include").action == "include"
    assert Requirement(partial="error").action == "error"


@pytest.mark.parametrize(
    ("requirement", "field", "says"),
    [
        (Requirement(depth=0), "require-depth", "expected 1 or more, got 0"),
        (Requirement(partial="maybe"), "partial", "expected one of include, leave-out, error"),
        (Requirement(runs=("bm25",)), "run", "give --require-depth K too"),
    ],
)
def test_a_bad_requirement(requirement: Requirement, field: str, says: str) -> None:
    with pytest.raises(LabelerError, match=says) as caught:
        requirement.check()
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("requirement", "depths", "says"),
    [
        (Requirement(depth=3, runs=("ghost",)), DEPTHS, "no run 'ghost' on chunking 'default'"),
        (Requirement(depth=4), DEPTHS, "run 'dense' pools only its top 3"),
        (Requirement(depth=1), {}, "no run on chunking 'default' to require a depth of"),
    ],
)
def test_the_runs_of_a_requirement_must_pool_that_deep(
    requirement: Requirement, depths: dict, says: str
) -> None:
    with pytest.raises(LabelerError, match=says):
        requirement.resolve(depths, "default")


def test_the_runs_default_to_every_run_and_are_described() -> None:
    requirement = Requirement(depth=3)
    runs = requirement.resolve(DEPTHS, "default")
    assert runs == ("bm25", "dense")
    assert requirement.describe(runs) == "complete to depth 3 of bm25, dense"
    assert Requirement().describe(()) == "every candidate graded"
