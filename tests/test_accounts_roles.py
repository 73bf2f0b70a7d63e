"""The one table of rights, and the core's check of it whichever face calls."""

import pytest

from labeler.accounts import users
from labeler.accounts.roles import (
    RIGHTS,
    Right,
    Role,
    least_role,
    may,
    require,
    rights_table_markdown,
    shell_authority,
    shell_user,
)
from labeler.errors import PermissionDenied
from labeler.grading import disputes, labeling
from labeler.store import Store


def test_each_role_has_the_rights_of_the_one_below_and_more() -> None:
    assert RIGHTS[Role.REVIEWER] == {Right.GRADE, Right.REVIEW, Right.REMAP, Right.SPOT_CHECK}
    assert RIGHTS[Role.LEAD] - RIGHTS[Role.REVIEWER] == {
        Right.ADJUDICATE,
        Right.ASSIGN,
        Right.EXPORT,
        Right.JUDGE,
        Right.BATCH_REVIEW,
        Right.TEAM,
    }
    assert RIGHTS[Role.OWNER] - RIGHTS[Role.LEAD] == {Right.ACCOUNTS, Right.IMPORT}
    assert least_role(Right.IMPORT) == Role.OWNER
    assert may("lead", Right.EXPORT)
    assert not may("reviewer", Right.EXPORT)


def test_the_table_in_the_readme_is_the_registry() -> None:
    table = rights_table_markdown()
    assert table.splitlines()[0] == "| right | reviewer | lead | owner |"
    assert "| adjudicate |  | yes | yes |" in table
    assert len(table.splitlines()) == 2 + len(Right)


def test_without_accounts_anyone_may_do_anything(loaded: Store) -> None:
    require(loaded, "whoever", Right.IMPORT)
    disputes.adjudicate(loaded, "q1", "rate-limits", 2, "whoever")


@pytest.fixture
def team(loaded: Store) -> Store:
    with shell_authority("setup"):
        for name, role in (("olga", "owner"), ("lea", "lead"), ("rita", "reviewer")):
            users.add_user(loaded, name, role, f"{name}-password-1", actor="setup")
    return loaded


def test_a_reviewer_is_refused_a_lead_action_by_the_core(team: Store) -> None:
    with pytest.raises(PermissionDenied) as caught:
        disputes.adjudicate(team, "q1", "rate-limits", 2, "rita")
    assert str(caught.value) == (
        'field "role": a reviewer may not adjudicate (a lead may; ask an owner:'
        " labeler user role rita ...)"
    )
    assert not team.adjudications.rows("default")
    disputes.adjudicate(team, "q1", "rate-limits", 2, "lea")
    labeling.grade(team, "q1", "rate-limits", "rita", 1)


def test_a_name_without_an_account_may_do_nothing_on_a_team_server(team: Store) -> None:
    with pytest.raises(PermissionDenied, match="'maria' has no account on this project"):
        labeling.grade(team, "q1", "rate-limits", "maria", 1)
    assert team.labels.question_labels("q1", "default") == []


def test_a_disabled_account_is_refused_at_its_next_action(team: Store) -> None:
    labeling.grade(team, "q1", "rate-limits", "rita", 1)
    users.disable(team, "rita", actor="olga")
    with pytest.raises(PermissionDenied, match="the account 'rita' is disabled"):
        labeling.grade(team, "q1", "rate-limits", "rita", 2)


def test_a_role_change_counts_at_once(team: Store) -> None:
    users.set_role(team, "rita", "lead", actor="olga")
    disputes.adjudicate(team, "q1", "rate-limits", 2, "rita")


def test_the_shell_may_do_anything_and_only_inside_its_scope(team: Store) -> None:
    assert shell_user() is None
    with shell_authority("root"):
        assert shell_user() == "root"
        disputes.adjudicate(team, "q1", "rate-limits", 2, "root")
    assert shell_user() is None
    with pytest.raises(PermissionDenied):
        disputes.adjudicate(team, "q1", "rate-limits", 1, "root")
