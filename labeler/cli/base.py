"""The click group, the shared ``--db`` option and the one translation of LabelerError.

``--db PATH`` is accepted before the command (``labeler --db x.db status``) as well as after
it (``labeler status --db x.db``); the two must agree when both are given.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from labeler import __version__
from labeler.config import resolve_db_path
from labeler.errors import LabelerError

DB_HELP = "SQLite database (default: $LABELER_DB, else ./labeler.db)."
GROUP_DB = "labeler.db"  # where the group's --db waits for the command (ctx.meta)


class LabelerGroup(click.Group):
    """Turns every LabelerError into one clean line and exit code 2, in one place."""

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


def open_store(db_path):
    """The project's store. On the first open after migration 0009, the versions it exported
    before versions were signed are signed (where intact: ``resign_recorded``)."""
    from labeler.store import Store

    store = Store(db_path)
    if store.versions.unsigned():
        from labeler.versions.writing import resign_recorded

        resign_recorded(store)
    return store


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
    "database",
    "db_option",
    "echo_json",
    "format_option",
    "given_db",
    "main",
    "open_store",
    "quote",
    "shown_path",
]
