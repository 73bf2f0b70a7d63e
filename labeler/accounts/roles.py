"""Roles and the one table of what each may do, checked by the core.

Every core call that changes the project on behalf of a person names that person; ``require``
checks the name against this table before the change, so a reviewer's request to adjudicate is
refused the same way from the app, from a crafted request or from a library call. Three ways
to be allowed:

- **an account** with the right, enabled: the app's logged-in user (a team server);
- **no account at all** in the database: single-person mode, one person on their own machine
  (the app serves loopback only then), who may do everything under any name;
- **the shell**: the CLI acts for the person at the shell, who can read and write the database
  file anyway; it runs inside ``shell_authority`` (recording ``--as NAME`` or the operating
  system's user). Streamlit's script threads never run inside it.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from enum import StrEnum
from typing import TYPE_CHECKING

from labeler.errors import LabelerError, PermissionDenied

if TYPE_CHECKING:
    from labeler.store import Store


class Role(StrEnum):
    REVIEWER = "reviewer"
    LEAD = "lead"
    OWNER = "owner"


class Right(StrEnum):
    """What a person may do; the value is how a refusal names it ("may not adjudicate")."""

    GRADE = "grade"
    REVIEW = "review generated questions"
    REMAP = "work the remap queue"
    SPOT_CHECK = "spot-check the judge"
    ADJUDICATE = "adjudicate"
    ASSIGN = "assign work"
    EXPORT = "export versions"
    JUDGE = "run the judge and define its metrics and sample plans"
    BATCH_REVIEW = "run batch review actions"
    TEAM = "see the team's figures"
    ACCOUNTS = "manage accounts"
    IMPORT = "import data"


_REVIEWER = frozenset({Right.GRADE, Right.REVIEW, Right.REMAP, Right.SPOT_CHECK})
_LEAD = _REVIEWER | {
    Right.ADJUDICATE,
    Right.ASSIGN,
    Right.EXPORT,
    Right.JUDGE,
    Right.BATCH_REVIEW,
    Right.TEAM,
}
RIGHTS: dict[Role, frozenset[Right]] = {
    Role.REVIEWER: _REVIEWER,
    Role.LEAD: _LEAD,
    Role.OWNER: _LEAD | {Right.ACCOUNTS, Right.IMPORT},
}
"""The one table: each role's rights (a lead has a reviewer's and more, an owner a lead's)."""


def role_of(value: str) -> Role:
    """A role by name, or the user error listing the roles."""
    try:
        return Role(value)
    except ValueError:
        msg = f"unknown role {value!r}; choose one of: {', '.join(Role)}"
        raise LabelerError(msg, field="role") from None


def may(role: Role | str, right: Right) -> bool:
    return right in RIGHTS[Role(role)]


def least_role(right: Right) -> Role:
    """The first role (reviewer, lead, owner) that has ``right``."""
    return next(role for role in Role if right in RIGHTS[role])


def rights_table_markdown() -> str:
    """The table in the README, from ``RIGHTS``."""
    lines = ["| right | " + " | ".join(Role) + " |", "| --- |" + " --- |" * len(Role)]
    for right in Right:
        marks = " | ".join("yes" if right in RIGHTS[role] else "" for role in Role)
        lines.append(f"| {right.value} | {marks} |")
    return "\n".join(lines) + "\n"


# who is asking --------------------------------------------------------------------------------

_SHELL: contextvars.ContextVar[str | None] = contextvars.ContextVar("labeler_shell", default=None)


@contextlib.contextmanager
def shell_authority(name: str) -> Iterator[None]:
    """Everything inside runs for ``name``, the person at the shell (the CLI): they hold the
    database file, so no account's role limits them. Scoped to this thread's context."""
    token = _SHELL.set(name)
    try:
        yield
    finally:
        _SHELL.reset(token)


def shell_user() -> str | None:
    """The name the CLI acts as, inside ``shell_authority``; else None."""
    return _SHELL.get()


def require(store: Store, name: str, right: Right) -> None:
    """Refuse (PermissionDenied) unless ``name`` may do ``right`` on this project now: read
    from the database at each call, so a role changed or an account disabled a moment ago
    counts at once."""
    if _SHELL.get() is not None:
        return
    account = store.accounts.get(name)
    if account is None:
        if not store.accounts.any():
            return
        msg = f"{name!r} has no account on this project: log in to {right.value}"
        raise PermissionDenied(msg, field="account")
    if account["disabled"]:
        msg = f"the account {name!r} is disabled"
        raise PermissionDenied(msg, field="account")
    if not may(account["role"], right):
        msg = (
            f"a {account['role']} may not {right.value}"
            f" (a {least_role(right)} may; ask an owner: labeler user role {name} ...)"
        )
        raise PermissionDenied(msg, field="role")


__all__ = [
    "RIGHTS",
    "Right",
    "Role",
    "least_role",
    "may",
    "require",
    "rights_table_markdown",
    "role_of",
    "shell_authority",
    "shell_user",
]
