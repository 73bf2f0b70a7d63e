"""One exception family for everything a user can get wrong.

Every face translates it once: the CLI prints ``str(error)`` and exits with code 2, the app shows
it with ``st.error``. The message names the file, the line and the field, so a user can fix their
input without reading a traceback.
"""

from __future__ import annotations

from pathlib import Path


class LabelerError(Exception):
    """A user error: a bad file, an unknown id, an invalid grade.

    ``str()`` gives ``questions.jsonl:17: field "grade": expected 0, 1 or 2, got 3``.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        what = f'field "{self.field}": ' if self.field else ""
        return f"{where}{what}{self.message}"


class NotFoundError(LabelerError):
    """An id that the database does not hold (a question, a chunk, a run, a version)."""


class ConflictError(LabelerError):
    """Someone else changed the thing since it was read (another reviewer decided the same
    question): the write is refused, never applied over theirs."""


__all__ = ["ConflictError", "LabelerError", "NotFoundError"]
