"""One exception family for everything a user can get wrong.

Every face translates it once: the CLI prints ``str(error)`` and exits with code 2, the app shows
it with ``st.error``. The message names the file, the line and the field, so a user can fix their
input without reading a traceback.
"""

from __future__ import annotations

from pathlib import Path

SHOWN_CHARACTERS = 80


def shown(value: object, limit: int = SHOWN_CHARACTERS) -> str:
    """A value quoted in an error message, as ``repr`` writes it but cut to its first ``limit``
    characters, saying how long it was: a 50 MB id from a file must not become a 50 MB error
    line, and the start of a value is what finds it in the file."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def cut(value: object, limit: int = SHOWN_CHARACTERS) -> str:
    """A value named without quotes in an error message (``question q1: chunk c7 ...``), cut as
    ``shown`` cuts it."""
    text = str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


class Quoted:
    """A value that quotes itself with ``shown`` under ``{!r}`` and ``{}``: for messages
    written as templates before their value is known (the store's checks of staged rows)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return shown(self.value)

    def __format__(self, spec: str) -> str:
        return format(cut(self.value), spec)


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


class PermissionDenied(LabelerError):
    """The acting account may not do this (its role lacks the right, it is disabled, or its
    session ended): raised by the core, whichever face called it (``labeler.accounts.roles``)."""


class LoginFailed(LabelerError):
    """A login refused: the same message for an unknown name and a wrong password, or the
    account is locked after too many failures (``labeler.accounts.sessions``)."""


__all__ = [
    "SHOWN_CHARACTERS",
    "ConflictError",
    "LabelerError",
    "LoginFailed",
    "NotFoundError",
    "PermissionDenied",
    "Quoted",
    "cut",
    "shown",
]
