"""What every row-by-row import shares: one id once per file, rows written in batches, a file
read a batch ahead of the writing, and the refusal of a file that would change a graded
question's text in silence."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from labeler.errors import LabelerError, shown


def unique_batches(
    rows: Iterable[tuple[int, dict]], *, path: Path, what: str, batch: int
) -> Iterator[list[dict]]:
    """The rows of ``(line, row)`` pairs in lists of ``batch``. An id seen twice in the file is
    an error naming the second line."""
    seen: set[str] = set()
    pending: list[dict] = []
    for line, row in rows:
        if row["id"] in seen:
            msg = f"duplicate {what} id {shown(row['id'])} in this file"
            raise LabelerError(msg, path=path, line=line, field="id")
        seen.add(row["id"])
        pending.append(row)
        if len(pending) >= batch:
            yield pending
            pending = []
    if pending:
        yield pending


def upsert_unique(
    rows: Iterable[tuple[int, dict]],
    upsert: Callable[[Sequence[dict]], tuple[int, int]],
    *,
    path: Path,
    what: str,
    batch: int,
) -> tuple[int, int, int]:
    """Write ``(line, row)`` pairs through ``upsert`` in batches (``unique_batches``); returns
    (added, updated, unchanged)."""
    return upsert_batches(unique_batches(rows, path=path, what=what, batch=batch), upsert)


def upsert_batches(
    batches: Iterable[Sequence[Any]], upsert: Callable[[Sequence[Any]], tuple[int, int]]
) -> tuple[int, int, int]:
    """Each batch through ``upsert``; returns (added, updated, unchanged)."""
    added = updated = total = 0
    for rows in batches:
        a, u = upsert(rows)
        added, updated, total = added + a, updated + u, total + len(rows)
    return added, updated, total - added - updated


T = TypeVar("T")
Counted = Callable[[int], None]


def batched(
    read: Callable[[Counted], Iterable[T]], size: int
) -> Callable[[Counted], Iterator[list[T]]]:
    """``read(progress)`` (an iterable of items, reporting bytes read to ``progress``) as
    lists of ``size`` items, for ``read_ahead``."""

    def batches(counted: Counted) -> Iterator[list[T]]:
        batch: list[T] = []
        for item in read(counted):
            batch.append(item)
            if len(batch) >= size:
                yield batch
                batch = []
        if batch:
            yield batch

    return batches


def read_ahead(
    batches: Callable[[Counted], Iterable[T]], progress: Callable[[int], None] | None = None
) -> Iterator[T]:
    """The batches of ``batches(counted)``, each read in a thread while the caller writes the
    one before: SQLite works outside Python's lock, so on two cores reading a file and writing
    the database overlap. The reading thread touches no database; an error it meets is raised
    here, in the caller's thread, when its batch is due (so nothing after it is written, and
    the caller's transaction rolls back). ``progress`` gets the bytes read, in the caller's
    thread (a page's progress bar may only be drawn there). If the caller stops early, the
    thread is stopped too."""
    handoff: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    read = [0]
    end = object()

    def counted(size: int) -> None:
        read[0] += size

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                handoff.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for batch in batches(counted):
                if not put(batch):
                    return
            put(end)
        except BaseException as error:  # raised again in the caller's thread
            put(error)

    thread = threading.Thread(target=produce, name="labeler-read-ahead", daemon=True)
    thread.start()
    reported = 0
    try:
        while True:
            item = handoff.get()
            if progress is not None and read[0] > reported:
                progress(read[0] - reported)
                reported = read[0]
            if item is end:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()


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
