"""Accounts, managed by an owner (``labeler user ...``; every change is in ``account_events``
with who made it).

An account's name is a reviewer name (``labeler.names``): an account named like a reviewer who
already graded adopts that reviewer's labels, marks and history, which are kept under the name.
Two accounts never differ by case alone. The last enabled owner can be neither disabled nor
demoted, so a team server always has someone who can manage it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from labeler.accounts import passwords
from labeler.accounts.roles import Right, Role, require, role_of
from labeler.accounts.sessions import lock_of
from labeler.errors import ConflictError, LabelerError, NotFoundError
from labeler.names import check_name
from labeler.store import Store


@dataclass(frozen=True, slots=True)
class Account:
    name: str
    role: Role
    email: str | None
    disabled: bool
    created_at: str
    created_by: str
    last_login: str | None
    last_active: str | None
    locked_until: str | None

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "role": str(self.role),
            "email": self.email,
            "created": self.created_at,
            "created_by": self.created_by,
            "last_login": self.last_login,
            "last_active": self.last_active,
            "disabled": self.disabled,
            "locked_until": self.locked_until,
        }


@dataclass(frozen=True, slots=True)
class Added:
    account: Account
    adopted: dict[str, int]  # what a reviewer of this name had already done


def _stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _account(store: Store, row: dict) -> Account:
    until = lock_of(store, row["name"])
    return Account(
        name=row["name"],
        role=Role(row["role"]),
        email=row["email"],
        disabled=bool(row["disabled"]),
        created_at=row["created_at"],
        created_by=row["created_by"],
        last_login=row["last_login"],
        last_active=row["last_active"],
        locked_until=until.isoformat(timespec="seconds") if until else None,
    )


def _existing(store: Store, name: str) -> dict:
    row = store.accounts.get(name)
    if row is None:
        msg = f"no account named {name!r} (labeler user list)"
        raise NotFoundError(msg, field="name")
    return row


def _email(value: str | None) -> str | None:
    if value is None:
        return None
    email = value.strip().lower()
    local, at, domain = email.partition("@")
    if not (local and at and domain) or any(c.isspace() for c in email) or len(email) > 254:
        msg = f"not an email address: {value!r}"
        raise LabelerError(msg, field="email")
    return email


def add_user(
    store: Store,
    name: str,
    role: str,
    password: str | None,
    *,
    actor: str,
    email: str | None = None,
) -> Added:
    """A new account. ``password`` None: the account logs in only through OpenID Connect, by
    its ``email``. A name a reviewer already graded under is adopted (``Added.adopted``)."""
    require(store, actor, Right.ACCOUNTS)
    name = check_name(name, field="name", what="account")
    role = role_of(role)
    email = _email(email)
    if password is None and email is None:
        raise LabelerError("an account needs a password, an email (OpenID Connect), or both")
    same = store.accounts.by_folded(name)
    if same is not None:
        msg = (
            f"an account named {same['name']!r} exists already"
            if same["name"] == name
            else f"{name!r} differs from the account {same['name']!r} only by case"
        )
        raise ConflictError(msg, field="name")
    if email is not None and store.accounts.by_email(email) is not None:
        msg = f"another account has the email {email!r}"
        raise ConflictError(msg, field="email")
    hashed = (
        None
        if password is None
        else passwords.hash_password(passwords.check_policy(password, name=name))
    )
    adopted = {k: v for k, v in store.accounts.work_of(name).items() if v}
    detail = f"role {role}" + (
        "; adopted " + ", ".join(f"{v} {k}" for k, v in adopted.items()) if adopted else ""
    )
    store.accounts.add(name, str(role), hashed, email, actor=actor, at=_stamp(), detail=detail)
    return Added(_account(store, _existing(store, name)), adopted)


def list_users(store: Store) -> list[Account]:
    return [_account(store, row) for row in store.accounts.all()]


def adoptable(store: Store) -> dict[str, int]:
    """{reviewer: labels} of the reviewers who graded and have no account yet."""
    return store.accounts.reviewers_without_account()


def set_password(store: Store, name: str, password: str, *, actor: str) -> None:
    """A new password; the account's open sessions end (log in again with it)."""
    require(store, actor, Right.ACCOUNTS)
    _existing(store, name)
    hashed = passwords.hash_password(passwords.check_policy(password, name=name))
    at = _stamp()
    store.accounts.update(name, "password changed", actor=actor, at=at, password_hash=hashed)
    store.accounts.end_sessions(name, "password changed", at=at)


def _owners_left(store: Store, without: str) -> int:
    return sum(
        1
        for row in store.accounts.all()
        if row["role"] == Role.OWNER and not row["disabled"] and row["name"] != without
    )


def set_role(store: Store, name: str, role: str, *, actor: str) -> bool:
    """Change the role; True if it changed. Takes effect at the account's next action."""
    require(store, actor, Right.ACCOUNTS)
    row = _existing(store, name)
    role = role_of(role)
    if row["role"] == role:
        return False
    if row["role"] == Role.OWNER and not row["disabled"] and not _owners_left(store, name):
        msg = f"{name!r} is the last owner: make another account owner first"
        raise ConflictError(msg, field="role")
    store.accounts.update(
        name,
        "role changed",
        actor=actor,
        at=_stamp(),
        detail=f"{row['role']} -> {role}",
        role=str(role),
    )
    return True


def set_email(store: Store, name: str, email: str | None, *, actor: str) -> None:
    require(store, actor, Right.ACCOUNTS)
    _existing(store, name)
    email = _email(email)
    other = store.accounts.by_email(email) if email else None
    if other is not None and other["name"] != name:
        msg = f"another account has the email {email!r}"
        raise ConflictError(msg, field="email")
    store.accounts.update(name, "email changed", actor=actor, at=_stamp(), email=email)


def disable(store: Store, name: str, *, actor: str) -> bool:
    """Disable the account: it cannot log in, and its sessions end at once (at its next
    action, for a page already open). True if it changed."""
    require(store, actor, Right.ACCOUNTS)
    row = _existing(store, name)
    if row["disabled"]:
        return False
    if row["role"] == Role.OWNER and not _owners_left(store, name):
        msg = f"{name!r} is the last owner: make another account owner first"
        raise ConflictError(msg, field="name")
    store.accounts.update(name, "disabled", actor=actor, at=_stamp(), disabled=1)
    return True


def enable(store: Store, name: str, *, actor: str) -> bool:
    """Enable the account, and unlock it after failed logins. True if anything changed."""
    require(store, actor, Right.ACCOUNTS)
    row = _existing(store, name)
    locked = lock_of(store, name) is not None
    store.accounts.clear_failures(name)
    if not row["disabled"] and not locked:
        return False
    store.accounts.update(
        name,
        "enabled",
        actor=actor,
        at=_stamp(),
        detail="unlocked" if locked else None,
        disabled=0,
    )
    return True


__all__ = [
    "Account",
    "Added",
    "add_user",
    "adoptable",
    "disable",
    "enable",
    "list_users",
    "set_email",
    "set_password",
    "set_role",
]
