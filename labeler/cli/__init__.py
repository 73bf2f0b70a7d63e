"""The ``labeler`` command: one click group, one short function per command.

Each command parses its options, calls one core function and formats the result. A
``LabelerError`` becomes one line on stderr and exit code 2 (see ``labeler.cli.base``).
Commands live in modules by theme; importing them registers them on the group.
"""

from labeler.cli import (  # noqa: F401  (importing registers the commands)
    corpus,
    evaluate,
    judge,
    pool,
    remap,
    review,
    serve,
    testsets,
)
from labeler.cli.base import main

__all__ = ["main"]
