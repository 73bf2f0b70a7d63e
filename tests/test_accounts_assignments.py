"""Work assigned to reviewers: the split (balanced, an overlap of pairs, seeded) and
``assign`` over a project's questions."""

import pytest

from labeler.accounts import users
from labeler.accounts.assignments import assign, assignment_list, split
from labeler.accounts.roles import shell_authority
from labeler.errors import LabelerError, PermissionDenied
from labeler.grading import labeling, queues
from labeler.store import Store

TEN = [f"q{n:02d}" for n in range(10)]


def test_the_split_balances_the_reviewers_and_rotates_the_overlap_pairs() -> None:
    plan = split(TEN, ["ann", "ben", "cat"], overlap=0.2, seed=1)
    # round(0.2 * 10) = 2 questions to two reviewers: the least loaded two each time (ann
    # and ben, then cat and ann); then one each to the least loaded, ties to the first named.
    shared = [a for a in plan if a.overlap]
    assert [a.reviewer for a in shared] == ["ann", "ben", "cat", "ann"]
    assert len({a.question_id for a in shared}) == 2
    counts = {r: sum(a.reviewer == r for a in plan) for r in ("ann", "ben", "cat")}
    assert counts == {"ann": 4, "ben": 4, "cat": 4}
    assert sorted({a.question_id for a in plan}) == TEN
    singles = [a.reviewer for a in plan if not a.overlap]
    assert singles == ["ben", "cat", "ann", "ben", "cat", "ann", "ben", "cat"]


def test_the_split_depends_only_on_its_inputs_and_the_seed() -> None:
    assert split(TEN, ["ann", "ben"], overlap=0.3, seed=7) == split(
        list(reversed(TEN)), ["ann", "ben"], overlap=0.3, seed=7
    )
    orders = {
        tuple(a.question_id for a in split(TEN, ["ann"], overlap=0, seed=s)) for s in range(5)
    }
    assert len(orders) > 1


@pytest.mark.parametrize(
    ("reviewers", "overlap", "message"),
    [
        ([], 0.2, "name at least one reviewer"),
        (["ann"], 0.2, "an overlap needs two reviewers"),
        (["ann", "ann"], 0.0, "a reviewer is named twice"),
        (["ann", "ben"], 1.5, "a share from 0 to 1"),
    ],
)
def test_the_split_refuses_what_cannot_be_done(reviewers, overlap, message) -> None:
    with pytest.raises(LabelerError, match=message):
        split(TEN, reviewers, overlap=overlap, seed=0)


def test_assign_takes_the_questions_nobody_has_and_the_queue_starts_with_mine(
    loaded: Store,
) -> None:
    first = assign(loaded, ["ann", "ben"], actor="lea", questions=["q3"], overlap=0)
    assert [(a.question_id, a.reviewer) for a in first.assignments] == [("q3", "ann")]
    second = assign(loaded, ["ann", "ben"], actor="lea", overlap=0.5, seed=3)
    # q1 and q2 were free; round(0.5 * 2) = 1 of them goes to both.
    assert second.questions == 2
    assert second.overlap_questions == 1
    assert second.per_reviewer == {"ann": 2, "ben": 1}
    rows = assignment_list(loaded)
    assert {(r["question_id"], r["reviewer"]) for r in rows} >= {("q3", "ann")}
    assert all(not r["done"] for r in rows)
    with pytest.raises(LabelerError, match="no question to assign"):
        assign(loaded, ["ann"], actor="lea", overlap=0)
    # ben's queue starts with his own question(s), then the rest by id.
    mine = sorted(r["question_id"] for r in rows if r["reviewer"] == "ben")
    order = [r["id"] for r in queues.queue_rows(loaded, "ben")]
    assert order[: len(mine)] == mine
    assert queues.next_question(loaded, "ben", None) == mine[0]


def test_done_follows_the_reviewers_progress(loaded: Store) -> None:
    assign(loaded, ["ann"], actor="lea", questions=["q3"], overlap=0)
    labeling.mark(loaded, "q3", "ann", unanswerable=True)
    assert [r["done"] for r in assignment_list(loaded)] == [True]


def test_on_a_team_server_only_a_lead_assigns_and_only_to_accounts(loaded: Store) -> None:
    with shell_authority("root"):
        users.add_user(loaded, "lea", "lead", "lea-password", actor="root")
        users.add_user(loaded, "rita", "reviewer", "rita-password", actor="root")
    with pytest.raises(PermissionDenied, match="a reviewer may not assign work"):
        assign(loaded, ["rita"], actor="rita", overlap=0)
    with pytest.raises(PermissionDenied, match="'tom' is not an enabled account"):
        assign(loaded, ["rita", "tom"], actor="lea", overlap=0)
    result = assign(loaded, ["rita", "lea"], actor="lea", count=2, overlap=0, seed=1)
    assert result.questions == 2
    assert {r["assigned_by"] for r in assignment_list(loaded)} == {"lea"}
