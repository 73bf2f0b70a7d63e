"""The README's command table, generated from the click group (tests/test_docs.py holds the
README to it, as it does the metric table)."""

from __future__ import annotations

import click

from labeler.cli.base import main


def command_rows(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(command path, one-line summary) of every command and group, in help order."""
    ctx = click.Context(group, info_name="labeler")
    rows = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        path = (*prefix, name)
        rows.append((" ".join(path), command.get_short_help_str(limit=200)))
        if isinstance(command, click.Group):
            rows += command_rows(command, path)
    return rows


def commands_table_markdown() -> str:
    lines = ["| command | what it does |", "| --- | --- |"]
    lines += [f"| `labeler {path}` | {summary} |" for path, summary in command_rows()]
    return "\n".join(lines) + "\n"


__all__ = ["command_rows", "commands_table_markdown"]
