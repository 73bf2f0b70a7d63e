"""The Team page's figures: pace, agreement on the overlap (blind grades), work done, and what
waits for adjudication."""

from datetime import UTC, datetime, timedelta

import pytest
from sklearn.metrics import cohen_kappa_score

from labeler.accounts import users
from labeler.accounts.assignments import assign
from labeler.accounts.roles import shell_authority
from labeler.errors import PermissionDenied
from labeler.grading import labeling
from labeler.grading.team import median_pace, overlap_kappas, team
from labeler.store import Store

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_the_pace_is_the_median_gap_between_grades_breaks_left_out() -> None:
    seconds = [0, 10, 30, 60, 2000, 2004]  # gaps 10, 20, 30, (1940: a break), 4
    times = [(T0 + timedelta(seconds=s)).isoformat() for s in seconds]
    assert median_pace(times) == 15.0
    assert median_pace(times[:1]) is None


def test_kappa_on_the_overlap_pairs_each_reviewers_grades_with_the_others() -> None:
    a = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    b = [0, 0, 0, 1, 1, 1, 1, 2, 2, 0]
    grades = {
        ("q1", f"c{i}"): {"ann": x, "ben": y} for i, (x, y) in enumerate(zip(a, b, strict=True))
    }
    grades[("q2", "c0")] = {"ann": 2, "ben": 0}  # q2 is not in the overlap
    found = overlap_kappas([("q1", "ann", "ben")], grades)
    expected = cohen_kappa_score(a, b, weights="quadratic")
    assert found["ann"] == (pytest.approx(expected), 10)
    assert found["ben"] == (pytest.approx(expected), 10)
    # Below ten shared chunks a kappa says nothing.
    few = {k: v for k, v in grades.items() if k[1] in ("c0", "c1")}
    assert overlap_kappas([("q1", "ann", "ben")], few)["ann"] == (None, 2)


def test_the_team_view_of_a_small_project(loaded: Store) -> None:
    assign(loaded, ["ann", "ben"], actor="lea", questions=["q2"], overlap=1.0)
    assign(loaded, ["ann"], actor="lea", questions=["q1"], overlap=0)
    view = labeling.open_question(loaded, "q2", "ann")
    for candidate in view.candidates:
        labeling.grade(loaded, "q2", candidate.chunk.id, "ann", 1)
        labeling.grade(loaded, "q2", candidate.chunk.id, "ben", 2)
    found = team(loaded, actor="lea")
    rows = {r.reviewer: r for r in found.reviewers}
    assert set(rows) == {"ann", "ben"}
    assert (rows["ann"].assigned, rows["ann"].done) == (2, 1)
    assert (rows["ben"].assigned, rows["ben"].done) == (1, 1)
    assert rows["ann"].today == rows["ann"].week == len(view.candidates)
    assert rows["ann"].shared == len(view.candidates)
    assert rows["ann"].kappa is None
    assert rows["ann"].role is None
    assert rows["ann"].last_active is not None
    assert found.overlap_questions == 1
    # Every chunk of q2 is disputed (1 against 2): the question waits for a lead.
    assert [(w.question_id, w.open_chunks, w.reviewers) for w in found.waiting] == [
        ("q2", len(view.candidates), ("ann", "ben"))
    ]


def test_only_a_lead_or_an_owner_sees_the_team(loaded: Store) -> None:
    with shell_authority("root"):
        users.add_user(loaded, "rita", "reviewer", "rita-password", actor="root")
        users.add_user(loaded, "lea", "lead", "lea-password", actor="root")
    with pytest.raises(PermissionDenied, match="a reviewer may not see the team's figures"):
        team(loaded, actor="rita")
    assert {r.reviewer: r.role for r in team(loaded, actor="lea").reviewers} == {
        "lea": "lead",
        "rita": "reviewer",
    }
