"""``labeler import KIND``: one command per kind of file, built from the importer registry.

Each command's argument (a file or a folder), options, help text and example come from its
``ImportKind`` (``labeler.importers.registry``), as the app's Data page does; the command opens
the store, runs the importer through ``run_import`` and prints what it did.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from labeler.cli.base import (
    DB_HELP,
    acting_name,
    database,
    echo,
    echo_json,
    main,
    open_store,
    quote,
)
from labeler.importers.registry import IMPORT_KINDS, ImportKind, ImportOption, run_import

PROGRESS_FROM_BYTES = 8 * 1024 * 1024


class ImportGroup(click.Group):
    """A group whose help names every one of its commands, however it was added."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help_text(ctx, formatter)
        with formatter.indentation():
            formatter.write_paragraph()
            formatter.write_text("Kinds of file: " + ", ".join(self.list_commands(ctx)) + ".")


@main.group("import", cls=ImportGroup)
def import_group() -> None:
    """Import a file into the database: one command per kind of file.

    Every import runs in one transaction (a bad line writes nothing), can be repeated safely
    (the same file twice changes nothing), and reports what it added, updated and skipped.

    \b
    Example:
        labeler import chunks corpus.jsonl --chunking v1
    """


@contextlib.contextmanager
def file_progress(path: Path | None, label: str) -> Iterator:
    """A progress bar on stderr for files big enough to wait for; a no-op for small ones."""
    size = path.stat().st_size if path is not None and path.is_file() else 0
    if size < PROGRESS_FROM_BYTES:
        yield None
        return
    with click.progressbar(length=size, label=label, file=click.get_text_stream("stderr")) as bar:
        yield bar.update


def click_option(option: ImportOption) -> click.Option:
    """The command-line form of an importer option."""
    if option.kind == "flag":
        return click.Option([option.flag, option.name], is_flag=True, help=option.help)
    if option.kind == "tags":
        flag = "--" + option.name.removesuffix("s").replace("_", "-")
        return click.Option([flag, option.name], multiple=True, help=option.help)
    if option.kind == "int":
        return click.Option(
            [option.flag, option.name],
            type=click.IntRange(min=option.minimum),
            default=option.default,
            show_default=True,
            help=option.help,
        )
    return click.Option(
        [option.flag, option.name],
        default=option.default,
        show_default=option.default is not None,
        help=option.help,
    )


def show(outcome: Any, fmt: str) -> None:
    if fmt == "json":
        echo_json(outcome.data)
        return
    for line in outcome.lines:
        echo(line)
    if outcome.unmatched_total:
        echo(
            f"Unmatched contexts (first {len(outcome.unmatched)} of {outcome.unmatched_total}),"
            f" chunking {outcome.chunking!r}:"
        )
        for item in outcome.unmatched:
            echo(f"  line {item.line} ({item.question_id}): {quote(item.preview(90))}")


def import_command(kind: ImportKind) -> click.Command:
    """The ``labeler import <kind>`` command."""
    argument = click.Argument(
        ["path"],
        type=click.Path(file_okay=not kind.folder, dir_okay=kind.folder),
        metavar="FOLDER" if kind.folder else "FILE",
    )
    params: list[click.Parameter] = [argument, *(click_option(o) for o in kind.options)]
    if kind.json:
        params.append(
            click.Option(
                ["--format", "fmt"],
                type=click.Choice(["text", "json"]),
                default="text",
                show_default=True,
            )
        )
    params.append(click.Option(["--db", "db_path"], type=click.Path(dir_okay=False), help=DB_HELP))

    def callback(path: str, db_path: str | None, fmt: str = "text", **values: Any) -> None:
        with (
            open_store(database(db_path)) as store,
            file_progress(kind.progress_file(path), kind.name) as progress,
        ):
            outcome = run_import(kind, store, path, values, actor=acting_name(), progress=progress)
        show(outcome, fmt)

    return click.Command(
        kind.name,
        params=params,
        callback=callback,
        help=f"{kind.help}\n\n\b\nExample:\n    {kind.example}",
        short_help=f"{kind.summary[:1].upper()}{kind.summary[1:]} ({kind.formats}).",
    )


for _kind in IMPORT_KINDS.values():
    import_group.add_command(import_command(_kind))


__all__ = ["file_progress", "import_command", "import_group"]
