"""The click group, the shared ``--db`` option and the one translation of LabelerError."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click

from labeler import __version__
from labeler.config import resolve_db_path
from labeler.errors import LabelerError


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
def main() -> None:
    """Build, version and trust the labelled test sets that RAG retrievers are evaluated against.

    The database is chosen by --db PATH, else $LABELER_DB, else labeler.db in this folder.

    \b
    Example:
        labeler import chunks corpus.jsonl && labeler serve
    """


def db_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--db PATH``: resolved once here so every command agrees on where the database is."""

    @click.option(
        "--db",
        "db_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="SQLite database (default: $LABELER_DB, else ./labeler.db).",
    )
    @functools.wraps(func)
    def wrapper(*args: Any, db_path: str | None, **kwargs: Any) -> Any:
        return func(*args, db_path=resolve_db_path(db_path), **kwargs)

    return wrapper


def open_store(db_path):
    from labeler.store import Store

    return Store(db_path)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False))


__all__ = ["db_option", "echo_json", "main", "open_store"]
