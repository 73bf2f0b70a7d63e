"""Accounts an owner manages; a name a reviewer graded under is adopted; a database of round two
(before accounts) opens and its reviewers become adoptable."""

import gzip
import shutil
from pathlib import Path

import pytest

from labeler.accounts import sessions, users
from labeler.accounts.roles import Role, shell_authority
from labeler.errors import (
    ConflictError,
    LabelerError,
    LoginFailed,
    NotFoundError,
    PermissionDenied,
)
from labeler.grading import labeling
from labeler.store import Store

ROUND2 = Path(__file__).resolve().parent / "data" / "round2" / "round2.db.gz"


@pytest.fixture
def round2(tmp_path: Path) -> Path:
    path = tmp_path / "round2.db"
    with gzip.open(ROUND2) as packed, path.open("wb") as out:
        shutil.copyfileobj(packed, out)
    return path


def test_a_round_two_database_opens_and_its_reviewers_are_adoptable(round2: Path) -> None:
    with Store(round2) as store:
        applied = {r[0] for r in store.conn.execute("SELECT name FROM _sqlite_migrations")}
        assert "0012_accounts" in applied
        assert not store.accounts.any()  # still single-person mode
        assert users.adoptable(store) == {"maria": 52, "testset:orders@v1": 55, "tom": 55}
        # maria's hand grade on q005 keeps its history, now with the seen-others mark at 0.
        history = store.labels.history("q005")
        assert [(e["reviewer"], e["action"], e["seen_others"]) for e in history][-1] == (
            "maria",
            "grade",
            0,
        )
        added = users.add_user(store, "maria", "reviewer", "maria-password", actor="owner")
        # 51 labels from her qrels and the one she gave by hand; a history row for each.
        assert added.adopted == {"labels": 52, "history": 52}
        assert users.adoptable(store) == {"testset:orders@v1": 55, "tom": 55}
        # The adopted labels are maria's as she logs in: her queue knows what she graded.
        token = sessions.login(store, "maria", "maria-password")
        assert sessions.resume(store, token).account == "maria"
        view = labeling.open_question(store, "q005", "maria")
        assert view.graded >= 1
        # A name from before the rule stays readable, but no account can take it.
        with shell_authority("x"), pytest.raises(LabelerError, match="holds U\\+003A COLON"):
            users.add_user(store, "testset:orders@v1", "reviewer", "long enough!", actor="x")


def test_user_management_is_an_owners_and_logged(store: Store) -> None:
    with shell_authority("root"):
        users.add_user(store, "olga", "owner", "olga-password", actor="root")
    users.add_user(store, "lea", "lead", "lea-password-1", actor="olga")
    with pytest.raises(PermissionDenied, match="a lead may not manage accounts"):
        users.add_user(store, "rita", "reviewer", "rita-password", actor="lea")
    assert users.set_role(store, "lea", "owner", actor="olga")
    assert not users.set_role(store, "lea", "owner", actor="olga")
    users.add_user(store, "rita", "reviewer", "rita-password", actor="lea")
    listed = {a.name: a for a in users.list_users(store)}
    assert {n: (a.role, a.created_by, a.disabled) for n, a in listed.items()} == {
        "lea": (Role.OWNER, "olga", False),
        "olga": (Role.OWNER, "root", False),
        "rita": (Role.REVIEWER, "lea", False),
    }
    assert [(e["action"], e["actor"]) for e in reversed(store.accounts.events("lea"))] == [
        ("created", "olga"),
        ("role changed", "olga"),
    ]


def test_two_accounts_never_differ_by_case_alone(store: Store) -> None:
    users.add_user(store, "Maria", "reviewer", "maria-password", actor="root")
    with shell_authority("root"), pytest.raises(ConflictError, match="only by case"):
        users.add_user(store, "maria", "reviewer", "maria-password", actor="root")


def test_the_last_owner_can_be_neither_disabled_nor_demoted(store: Store) -> None:
    users.add_user(store, "olga", "owner", "olga-password", actor="root")
    with shell_authority("root"):
        with pytest.raises(ConflictError, match="the last owner"):
            users.disable(store, "olga", actor="root")
        with pytest.raises(ConflictError, match="the last owner"):
            users.set_role(store, "olga", "lead", actor="root")
        users.add_user(store, "ann", "owner", "ann-password", actor="root")
        assert users.disable(store, "olga", actor="root")
        with pytest.raises(NotFoundError, match="no account named 'nobody'"):
            users.enable(store, "nobody", actor="root")


def test_an_account_needs_a_password_or_an_email(store: Store) -> None:
    with pytest.raises(LabelerError, match="needs a password, an email"):
        users.add_user(store, "olga", "owner", None, actor="root")
    users.add_user(store, "olga", "owner", None, actor="root", email="olga@example.org")
    with pytest.raises(LoginFailed):  # no password: no password login
        sessions.login(store, "olga", "anything at all")
