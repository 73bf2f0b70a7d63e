"""Rows staged in SQL by the line they came from, when one line may hold several rows.

The store's staging tables key rows by their line (its checks name the line of the first bad
row), but a JSON file holds several rows on one line (a question's ranked list, a question's
labels). The key ``line << SHIFT | n`` keeps file order and is unique; ``file_line`` turns a
key back into the line an error must name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from labeler.errors import LabelerError

SHIFT = 20  # up to a million rows on one line, and 2**43 lines


def keyed(rows: Iterable[tuple]) -> Iterator[tuple]:
    """Each row with its line replaced by a unique key in file order."""
    previous, n = None, 0
    for row in rows:
        line = row[0]
        n = n + 1 if line == previous else 0
        previous = line
        yield ((line << SHIFT) | n, *row[1:])


def file_line(key: int | None) -> int | None:
    return None if key is None else key >> SHIFT


@contextmanager
def lines_named():
    """The store's checks of staged rows, raised inside, name the file's line rather than the
    staging key."""
    try:
        yield
    except LabelerError as error:
        if error.line is None:
            raise
        raise LabelerError(
            error.message, path=error.path, line=file_line(error.line), field=error.field
        ) from None


__all__ = ["SHIFT", "file_line", "keyed", "lines_named"]
