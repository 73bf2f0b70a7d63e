"""The ``labeler`` command: one click group, one short function per command.

Each command parses its options, calls one core function and formats the result. A
``LabelerError`` becomes one line on stderr and exit code 2 (see ``labeler.cli.base``).
Commands live in modules by concept; a module is imported, and so registers its commands on the
group, only when one of its commands is run or listed (``COMMANDS``, the one list of which
module holds which command; tests/test_cli_base.py holds it to what the modules register).
"""

import click

from labeler.cli.base import main
from labeler.cli.reference import commands_table_markdown

# command -> the module of labeler.cli that defines it.
COMMANDS = {
    "adjudicate": "adjudicate",
    "agreement": "judge",
    "convert": "convert",
    "demo": "serve",
    "diff": "versions",
    "embed": "embed",
    "eval": "evaluate",
    "export": "export",
    "faithfulness": "evaluate",
    "import": "imports",
    "init": "corpus",
    "judge": "judge",
    "key": "keys",
    "next": "decide",
    "pool": "pool",
    "remap": "remap",
    "review": "review",
    "search": "corpus",
    "serve": "serve",
    "status": "corpus",
    "versions": "versions",
}
main.homes = COMMANDS


def all_commands() -> dict[str, click.Command]:
    """Every command of the group, each module loaded (for the docs and the tests, which list
    them all: ``main.commands`` holds only those loaded so far)."""
    ctx = click.Context(main, info_name="labeler")
    return {name: main.get_command(ctx, name) for name in main.list_commands(ctx)}


__all__ = ["COMMANDS", "all_commands", "commands_table_markdown", "main"]
