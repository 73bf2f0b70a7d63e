"""What every row-by-row import shares: one id once per file, rows written in batches."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from labeler.errors import LabelerError, shown


def upsert_unique(
    rows: Iterable[tuple[int, dict]],
    upsert: Callable[[Sequence[dict]], tuple[int, int]],
    *,
    path: Path,
    what: str,
    batch: int,
) -> tuple[int, int, int]:
    """Write ``(line, row)`` pairs through ``upsert`` in batches; returns (added, updated,
    unchanged). An id seen twice in the file is an error naming the second line."""
    seen: set[str] = set()
    pending: list[dict] = []
    added = updated = total = 0
    for line, row in rows:
        if row["id"] in seen:
            msg = f"duplicate {what} id {shown(row['id'])} in this file"
            raise LabelerError(msg, path=path, line=line, field="id")
        seen.add(row["id"])
        pending.append(row)
        if len(pending) >= batch:
            a, u = upsert(pending)
            added, updated, total = added + a, updated + u, total + len(pending)
            pending = []
    if pending:
        a, u = upsert(pending)
        added, updated, total = added + a, updated + u, total + len(pending)
    return added, updated, total - added - updated
