"""The click group, the shared ``--db`` option and the one translation of LabelerError.

``--db PATH`` is accepted before the command (``labeler --db x.db status``) as well as after
it (``labeler status --db x.db``); the two must agree when both are given.

Which commands may create the database is decided here, once (``CREATES_DATABASE``): those
that bring data in. Any other command given a database that does not exist exits 2 saying how
to make one, where it used to create an empty one and report on it (``labeler --db tpyo.db
status``: exit 0, nothing in it). A command that fails on a database it created removes the
file again, so a failed first import leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import click

from labeler import __version__
from labeler.config import resolve_db_path
from labeler.errors import LabelerError

DB_HELP = "SQLite database (default: $LABELER_DB, else ./labeler.db)."
GROUP_DB = "labeler.db"  # where the group's --db waits for the command (ctx.meta)
# The commands that bring data in, and so may create the database they are given (a group
# names all its commands). Every other command needs a database that exists.
CREATES_DATABASE = ("init", "import", "judge import", "demo")
# Commands that read version folders and use the database only when it exists (as a witness
# of what it exported): they neither create nor require one.
DATABASE_OPTIONAL = ("versions list", "versions verify", "diff", "convert")


class LabelerGroup(click.Group):
    """Turns every LabelerError into one clean line and exit code 2, in one place; and loads a
    command's module only when the command is run or listed (``homes``: command -> module of
    ``labeler.cli``), so ``labeler eval`` does not pay for importing the other commands."""

    homes: Mapping[str, str] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.homes})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.homes:
            importlib.import_module(f"labeler.cli.{self.homes[cmd_name]}")
        return self.commands.get(cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except LabelerError as error:
            click.echo(f"Error: {error}", err=True)
            sys.exit(2)


@click.group(cls=LabelerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="labeler")
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False),
    default=None,
    help=DB_HELP + " Also accepted after the command.",
)
@click.pass_context
def main(ctx: click.Context, db_path: str | None) -> None:
    """Build, version and trust the labelled test sets that RAG retrievers are evaluated against.

    The database is chosen by --db PATH (before or after the command), else $LABELER_DB, else
    labeler.db in this folder.

    \b
    Example:
        labeler import chunks corpus.jsonl && labeler serve
    """
    ctx.meta[GROUP_DB] = db_path


def given_db(explicit: str | Path | None) -> str | Path | None:
    """The --db given after the command, else before it; both given must name one file."""
    ctx = click.get_current_context(silent=True)
    before = ctx.meta.get(GROUP_DB) if ctx is not None else None
    if explicit and before and Path(explicit).resolve() != Path(before).resolve():
        msg = f"--db is given twice, as {before} and as {explicit}: give it once"
        raise click.UsageError(msg)
    return explicit or before


def database(explicit: str | Path | None) -> Path:
    """The database a command works on (see ``labeler.config``)."""
    return resolve_db_path(given_db(explicit))


def db_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--db PATH``: resolved once here so every command agrees on where the database is."""

    @click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None, help=DB_HELP)
    @functools.wraps(func)
    def wrapper(*args: Any, db_path: str | None, **kwargs: Any) -> Any:
        return func(*args, db_path=database(db_path), **kwargs)

    return wrapper


def shown_path(path: str | Path) -> str:
    """A path as a user reads it: relative to the current folder when it lies inside it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def command_name(ctx: click.Context | None = None) -> str | None:
    """The running command as a user types it after ``labeler`` ("import chunks"); None
    outside a command."""
    ctx = ctx or click.get_current_context(silent=True)
    names = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(reversed(names)) or None


def may_create_database(name: str | None) -> bool:
    """Whether the command ``name`` may create its database (see ``CREATES_DATABASE``); code
    that is not a command (a test, a library user) may."""
    if name is None:
        return True
    return any(name == c or name.startswith(c + " ") for c in CREATES_DATABASE)


def missing_database(path: Path) -> LabelerError:
    msg = (
        f"no such database; create it with `labeler --db {path} init`, or by importing a"
        f" file into it (`labeler --db {path} import chunks FILE`)"
    )
    return LabelerError(msg, path=path)


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextlib.contextmanager
def open_store(db_path: str | Path) -> Iterator[Any]:
    """The store of the database at ``db_path``, closed when the block ends. A database that
    does not exist is created only by the commands of ``CREATES_DATABASE``, and removed again
    when the command fails: a failed import leaves no empty database behind."""
    from labeler.store import Store

    path = Path(db_path)
    new = str(path) != ":memory:" and not path.exists()
    if new and not may_create_database(command_name()):
        raise missing_database(path)
    try:
        store = Store(path)
        if store.versions.unsigned():
            # The first open after migration 0009: the versions exported before versions were
            # signed are signed, where intact.
            from labeler.versions.writing import resign_recorded

            resign_recorded(store)
    except BaseException:
        if new:
            _remove_database(path)
        raise
    try:
        yield store
    except BaseException:
        store.close()
        if new:
            _remove_database(path)
        raise
    store.close()


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False))


def quote(text: str | None, width: int = 100) -> str:
    """Untrusted text on a terminal: one line, escaped (no control characters), shortened."""
    if text is None:
        return "(none)"
    flat = " ".join(text.split())
    if len(flat) > width:
        flat = flat[: width - 1] + "…"
    return json.dumps(flat, ensure_ascii=False)


format_option = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)


__all__ = [
    "CREATES_DATABASE",
    "DATABASE_OPTIONAL",
    "command_name",
    "database",
    "db_option",
    "echo_json",
    "format_option",
    "given_db",
    "main",
    "may_create_database",
    "missing_database",
    "open_store",
    "quote",
    "shown_path",
]
