"""``labeler user ...`` (accounts, for an owner at the shell) and ``labeler assign`` (work for
reviewers). Passwords are read from the terminal (asked twice, not shown) or as one line from
standard input (``--password-stdin``): never from an argument or an environment variable, where
they would stay in the shell's history and the process list."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from labeler.cli.base import (
    acting_name,
    db_option,
    echo,
    echo_json,
    format_option,
    main,
    open_store,
)
from labeler.errors import LabelerError

ROLES = ("reviewer", "lead", "owner")

password_stdin = click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the password as one line from standard input (for scripts).",
)


def read_password(from_stdin: bool) -> str:
    """The new password: one line of standard input, or asked twice on a terminal."""
    if from_stdin:
        line = sys.stdin.readline()
        if not line:
            raise LabelerError("no password on standard input", field="password")
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        msg = "not a terminal: give the password on standard input with --password-stdin"
        raise LabelerError(msg, field="password")
    return click.prompt("Password", hide_input=True, confirmation_prompt="Repeat the password")


@main.group()
def user() -> None:
    """Accounts of a team server: add, list, change the password or role, disable, enable.

    With no account, the app serves one person on their own machine (loopback only); the first
    account makes it a team server where everyone logs in. The command acts for you at the shell
    (recorded as --as NAME, else your user name).

    \b
    Example:
        labeler user add ana --role lead
    """


@user.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), default="reviewer", show_default=True)
@click.option("--email", default=None, help="For OpenID Connect logins: the provider's email.")
@click.option(
    "--no-password", is_flag=True, help="No password: the account logs in only by --email."
)
@password_stdin
@db_option
def user_add(
    name: str,
    role: str,
    email: str | None,
    no_password: bool,
    password_stdin: bool,
    db_path: Path,
) -> None:
    """Add an account; a reviewer who already graded under NAME keeps their work under it.

    \b
    Example:
        labeler user add maria --role reviewer
        printf '%s\\n' "$PASSWORD" | labeler user add tom --password-stdin
    """
    from labeler.accounts.users import add_user

    with open_store(db_path) as store:
        actor = acting_name()
        password = None if no_password else read_password(password_stdin)
        added = add_user(store, name, role, password, actor=actor, email=email)
    echo(f"Added {added.account.role} {added.account.name}.")
    if added.adopted:
        work = ", ".join(f"{count} {what}" for what, count in added.adopted.items())
        echo(f"Adopted the work {added.account.name} did before: {work}.")


@user.command("list")
@format_option
@db_option
def user_list(fmt: str, db_path: Path) -> None:
    """The accounts: name, role, created, last login, disabled or locked; and the reviewers who
    graded without an account.

    \b
    Example:
        labeler user list --format json
    """
    from labeler.accounts.users import adoptable, list_users

    with open_store(db_path) as store:
        accounts = list_users(store)
        others = adoptable(store)
    if fmt == "json":
        echo_json(
            {
                "accounts": [a.as_dict() for a in accounts],
                "reviewers_without_account": others,
            }
        )
        return
    if not accounts:
        echo("No accounts: the app serves one person, on this machine only.")
    for a in accounts:
        state = "disabled" if a.disabled else ""
        if a.locked_until:
            state = f"locked until {a.locked_until}"
        echo(
            f"{a.name:<20} {a.role:<9} created {a.created_at[:10]}"
            f"  last login {(a.last_login or 'never')[:16]:<16}"
            + (f"  {a.email}" if a.email else "")
            + (f"  {state}" if state else "")
        )
    if others:
        echo(
            "Graded without an account (labeler user add NAME adopts their work): "
            + ", ".join(f"{name} ({labels} labels)" for name, labels in others.items())
        )


@user.command("passwd")
@click.argument("name")
@password_stdin
@db_option
def user_passwd(name: str, password_stdin: bool, db_path: Path) -> None:
    """Set a new password for NAME; their open sessions end.

    \b
    Example:
        labeler user passwd maria
    """
    from labeler.accounts.users import set_password

    with open_store(db_path) as store:
        actor = acting_name()
        set_password(store, name, read_password(password_stdin), actor=actor)
    echo(f"Password of {name} changed; their sessions ended.")


@user.command("role")
@click.argument("name")
@click.argument("role", type=click.Choice(ROLES))
@db_option
def user_role(name: str, role: str, db_path: Path) -> None:
    """Give NAME another role (reviewer, lead, owner), from their next action.

    \b
    Example:
        labeler user role maria lead
    """
    from labeler.accounts.users import set_role

    with open_store(db_path) as store:
        changed = set_role(store, name, role, actor=acting_name())
    echo(f"{name} is {'now' if changed else 'already'} a {role}.")


@user.command("disable")
@click.argument("name")
@db_option
def user_disable(name: str, db_path: Path) -> None:
    """Disable NAME: no more logins, and their sessions end at their next action.

    \b
    Example:
        labeler user disable tom
    """
    from labeler.accounts.users import disable

    with open_store(db_path) as store:
        changed = disable(store, name, actor=acting_name())
    echo(f"{name} {'disabled' if changed else 'was disabled already'}.")


@user.command("enable")
@click.argument("name")
@db_option
def user_enable(name: str, db_path: Path) -> None:
    """Enable NAME again, and unlock it after too many failed logins.

    \b
    Example:
        labeler user enable tom
    """
    from labeler.accounts.users import enable

    with open_store(db_path) as store:
        changed = enable(store, name, actor=acting_name())
    echo(f"{name} {'enabled' if changed else 'was enabled and unlocked already'}.")


def _question_ids(values: tuple[str, ...]) -> list[str]:
    return [q for value in values for q in value.replace(",", " ").split()]


@main.command()
@click.option("--to", "reviewers", multiple=True, metavar="NAME", help="A reviewer (repeat).")
@click.option("--tag", default=None, help="Only questions with this tag.")
@click.option(
    "--questions",
    multiple=True,
    metavar="IDS",
    help="These questions (comma-separated, or repeat the option).",
)
@click.option("--count", type=click.IntRange(min=1), default=None, help="At most N questions.")
@click.option(
    "--overlap",
    type=click.FloatRange(0, 1),
    default=0.2,
    show_default=True,
    help="Share of the questions given to two reviewers, for agreement.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--list", "listing", is_flag=True, help="Show what is assigned instead.")
@format_option
@db_option
def assign(
    reviewers: tuple[str, ...],
    tag: str | None,
    questions: tuple[str, ...],
    count: int | None,
    overlap: float,
    seed: int,
    listing: bool,
    fmt: str,
    db_path: Path,
) -> None:
    """Split questions among reviewers, a share to two of them (for agreement); --list shows it.

    Without --questions, the accepted questions nobody has been given yet (with --tag), at most
    --count of them, shuffled by --seed. A reviewer's grading queue starts with their own.

    \b
    Example:
        labeler assign --to maria --to tom --tag returns --count 40 --overlap 0.2 --seed 7
        labeler assign --list
    """
    from labeler.accounts.assignments import assign as assign_work
    from labeler.accounts.assignments import assignment_list

    with open_store(db_path) as store:
        if listing:
            rows = assignment_list(store)
        else:
            if questions and (tag or count):
                raise LabelerError("give --questions, or --tag and --count, not both")
            result = assign_work(
                store,
                list(reviewers),
                actor=acting_name(),
                tag=tag,
                questions=_question_ids(questions) or None,
                count=count,
                overlap=overlap,
                seed=seed,
            )
    if listing:
        _show_assignments(rows, fmt)
        return
    if fmt == "json":
        echo_json(result.as_dict())
        return
    echo(
        f"Assigned {result.questions} questions ({result.overlap_questions} to two reviewers)"
        f" as {result.batch}: "
        + ", ".join(f"{name} {n}" for name, n in result.per_reviewer.items())
        + ("" if result.added == len(result.assignments) else f"; {result.added} new")
    )


def _show_assignments(rows: list[dict], fmt: str) -> None:
    if fmt == "json":
        echo_json(rows)
        return
    if not rows:
        echo("Nothing is assigned (labeler assign --to NAME ...).")
        return
    by_reviewer: dict[str, list[dict]] = {}
    for row in rows:
        by_reviewer.setdefault(row["reviewer"], []).append(row)
    for name, mine in by_reviewer.items():
        done = sum(r["done"] for r in mine)
        shared = sum(r["overlap"] for r in mine)
        echo(f"{name}: {len(mine)} questions, {done} done, {shared} shared with another reviewer")
        echo("  " + " ".join(r["question_id"] + ("*" if r["overlap"] else "") for r in mine))
    echo("(* shared with another reviewer)")


__all__ = ["assign", "read_password", "user"]
