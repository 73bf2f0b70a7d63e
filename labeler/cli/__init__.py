"""The ``labeler`` command: one click group, one short function per command.

Each command parses its options, calls one core function and formats the result. A
``LabelerError`` becomes one line on stderr and exit code 2 (see ``labeler.cli.base``).
Commands live in modules by concept; importing them registers them on the group.
"""

from labeler.cli import (  # noqa: F401  (registers commands)
    accounts,
    adjudicate,
    convert,
    corpus,
    decide,
    evaluate,
    export,
    imports,
    judge,
    pool,
    remap,
    review,
    serve,
    versions,
)
from labeler.cli.base import main
from labeler.cli.reference import commands_table_markdown

__all__ = ["commands_table_markdown", "main"]
