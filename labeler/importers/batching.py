"""What every row-by-row import shares: one id once per file, rows written in batches, and the
refusal of a file that would change a graded question's text in silence."""

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


SHOWN_CHANGES = 20


def refuse_question_text_changes(
    changes: list[tuple[str, int | None, int, bool]], *, path: Path
) -> None:
    """Refuse a file that would change, in silence, the text a question's labels were given
    for (its labels would go on into every export under the new text)."""
    if not changes:
        return
    listed = ", ".join(
        f"{question_id} ({labels} label{'' if labels == 1 else 's'})"
        for question_id, _, labels, _ in changes[:SHOWN_CHANGES]
    )
    if len(changes) > SHOWN_CHANGES:
        listed += f" and {len(changes) - SHOWN_CHANGES} more"
    many = len(changes) != 1
    msg = (
        f"changes the text of {len(changes)} question{'s' if many else ''} already graded:"
        f" {listed}. Their labels were given for the old text: import the new text under a"
        " new id, or pass --replace-text to replace it and mark those labels stale (left out"
        " of exports until a reviewer confirms or changes them)"
    )
    raise LabelerError(msg, path=path, line=changes[0][1], field="question")
