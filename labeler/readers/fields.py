"""Field converters: the one rule for what a field of a file may hold, for every reader.

Each takes the raw value (from JSON, a CSV cell, Parquet or a TREC column) and returns a clean
value, or raises a LabelerError naming the file, the line and the field. The rules, once:

- **ids** (question, chunk, document ids): text, or a whole number (JSON ``12`` is the id
  ``"12"``: real files number their items). Never a float (``1.5``, ``3.0``, NaN, infinity: a
  float column is a sign of a broken export), never empty, and never holding whitespace or a
  control character (TREC files separate their columns by whitespace, so such an id could not
  be written out again), nor starting with ``#`` (TREC tools read such a line as a comment).
- **text** (a question, a chunk's text, a title): text only; a number or a list is an error.
- **integers** (grades, ranks, offsets): a JSON integer, or text of plain ASCII digits with an
  optional sign (``"2"``, ``"-1"``); not ``"2.0"``, ``"0_1"``, a full-width digit or a
  float. Grades are any integer here (their scale is the consumer's rule); ranks are 1 or more.
- **scores**: a JSON number, or text of a plain decimal number (``"12.5"``, ``"-3e-2"``);
  finite: NaN and infinities are refused.
- **tags**: a list of text, a JSON list in text, or text separated by ``,``, ``;`` or ``|``.
- **lists** (Ragas and DeepEval contexts): a list, or text holding one as JSON or as a Python
  literal (Ragas' CSVs); items must be text.
- **flags**: JSON true/false, or the text ``true``/``false`` (any case) in a CSV.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from labeler.errors import LabelerError

_BAD_ID = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
INT64 = 2**63
GRADE_LIMIT = 2**31  # trec_eval keeps grades in a C int; any real scale is far smaller
RANK_LIMIT = 2**31


def _fail(message: str, *, path: str | Path | None, line: int | None, field: str | None):
    return LabelerError(message, path=path, line=line, field=field)


def describe(value: Any) -> str:
    """A value as an error message names it: short, typed."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:39] + "…"
        return repr(shown)
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def bad_id_character(text: str) -> str | None:
    """Why ``text`` cannot be an id (None when it can)."""
    if not text:
        return "is empty"
    found = _BAD_ID.search(text)
    if found is not None:
        char = found.group()
        what = "whitespace" if char.isspace() else "a control character"
        names = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a carriage return"}
        named = names.get(char, f"{what} (U+{ord(char):04X})")
        return f"holds {named}, which TREC files cannot carry"
    if text.startswith("#"):
        return "starts with '#', which TREC tools read as a comment"
    return None


def as_id(
    value: Any,
    *,
    path: str | Path | None = None,
    line: int | None = None,
    field: str | None = "id",
) -> str:
    """An id: text or a whole number, without whitespace or control characters."""
    if isinstance(value, str):
        problem = bad_id_character(value)
        if problem is None:
            return value
        raise _fail(f"the id {describe(value)} {problem}", path=path, line=line, field=field)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if value is None:
        raise _fail("missing or empty", path=path, line=line, field=field)
    if isinstance(value, float):
        msg = f"expected an id (text or a whole number), got {describe(value)}: a float"
        raise _fail(msg, path=path, line=line, field=field)
    msg = f"expected an id (text or a whole number), got {describe(value)}"
    raise _fail(msg, path=path, line=line, field=field)


def as_text(
    value: Any,
    *,
    path: str | Path | None = None,
    line: int | None = None,
    field: str | None = None,
    optional: bool = False,
    blank: bool = False,
) -> str | None:
    """Text. ``optional``: None gives None, and so does blank text (an empty CSV cell) unless
    ``blank``. ``blank``: text of only whitespace is accepted as it is."""
    if value is None:
        if optional:
            return None
        raise _fail("missing or empty", path=path, line=line, field=field)
    if not isinstance(value, str):
        raise _fail(f"expected text, got {describe(value)}", path=path, line=line, field=field)
    if not blank and not value.strip():
        if optional:
            return None
        raise _fail("missing or empty", path=path, line=line, field=field)
    return value


def as_int(
    value: Any,
    *,
    path: str | Path | None = None,
    line: int | None = None,
    field: str | None = None,
    minimum: int = -INT64,
    limit: int = INT64,
    optional: bool = True,
) -> int | None:
    """A whole number: a JSON integer, or plain ASCII digits with an optional sign.
    ``optional``: None and an empty cell give None."""
    if value is None or value == "":
        if optional:
            return None
        raise _fail("missing", path=path, line=line, field=field)
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _INTEGER.fullmatch(value):
        number = int(value)
    if number is None:
        msg = f"expected a whole number, got {describe(value)}"
        raise _fail(msg, path=path, line=line, field=field)
    if not minimum <= number < limit:
        msg = f"expected a whole number from {minimum} to {limit - 1}, got {number}"
        raise _fail(msg, path=path, line=line, field=field)
    return number


def as_grade(
    value: Any, *, path: str | Path | None = None, line: int | None = None, field: str = "grade"
) -> int:
    """A grade as a file states it: any whole number (the consumer decides the scale)."""
    grade = as_int(
        value,
        path=path,
        line=line,
        field=field,
        minimum=-GRADE_LIMIT,
        limit=GRADE_LIMIT,
        optional=False,
    )
    return int(grade)  # type: ignore[arg-type]


def as_rank(
    value: Any, *, path: str | Path | None = None, line: int | None = None, field: str = "rank"
) -> int:
    """A rank: a whole number, 1 or more (rank 1 is the top result)."""
    number = as_int(value, path=path, line=line, field=field, minimum=-INT64, optional=False)
    if number is None or number < 1 or number >= RANK_LIMIT:
        msg = f"expected a rank of 1 or more, got {number}"
        raise _fail(msg, path=path, line=line, field=field)
    return number


def as_score(
    value: Any,
    *,
    path: str | Path | None = None,
    line: int | None = None,
    field: str = "score",
    optional: bool = False,
) -> float | None:
    """A finite number: a JSON number or plain decimal text (NaN and infinities refused)."""
    if value is None or value == "":
        if optional:
            return None
        raise _fail("missing", path=path, line=line, field=field)
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
    elif isinstance(value, str) and _DECIMAL.fullmatch(value):
        number = float(value)
    if number is None:
        raise _fail(f"expected a number, got {describe(value)}", path=path, line=line, field=field)
    if not math.isfinite(number):
        msg = f"expected a finite number, got {describe(value)}"
        raise _fail(msg, path=path, line=line, field=field)
    return number


def as_bool(
    value: Any,
    *,
    path: str | Path | None = None,
    line: int | None = None,
    field: str | None = None,
    default: bool = False,
) -> bool:
    """true or false (JSON), or the text "true"/"false" (a CSV cell); missing gives
    ``default``."""
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    msg = f"expected true or false, got {describe(value)}"
    raise _fail(msg, path=path, line=line, field=field)


def parse_literal(text: str) -> Any:
    """A list or object written as JSON or as a Python literal (as Ragas' CSVs hold them);
    raises ValueError when it is neither."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        msg = "neither JSON nor a Python literal"
        raise ValueError(msg) from None


def _listed(
    value: Any,
    *,
    path: str | Path | None,
    line: int | None,
    field: str | None,
    separator: str | None,
) -> list:
    """A list from a list, or from text holding one (JSON or a Python literal), or
    ``separator``-joined text, or a single text."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = parse_literal(text)
            except ValueError:
                msg = "expected a list (as JSON or a Python literal) and could not read it"
                raise _fail(msg, path=path, line=line, field=field) from None
        elif separator is not None:
            return [part for part in value.split(separator) if part.strip()]
        else:
            return [value]
    if not isinstance(value, (list, tuple)):
        msg = f"expected a list, got {describe(value)}"
        raise _fail(msg, path=path, line=line, field=field)
    return list(value)


def as_texts(
    value: Any,
    *,
    path: str | Path | None = None,
    line: int | None = None,
    field: str | None = None,
    separator: str | None = None,
) -> list[str]:
    """A list of texts (see ``_listed`` for what holds one); every item must be text."""
    items = _listed(value, path=path, line=line, field=field, separator=separator)
    for number, item in enumerate(items, start=1):
        if not isinstance(item, str):
            msg = f"expected a list of texts; item {number} is {describe(item)}"
            raise _fail(msg, path=path, line=line, field=field)
    return items


def as_ids(
    value: Any,
    *,
    path: str | Path | None = None,
    line: int | None = None,
    field: str | None = None,
    separator: str | None = None,
) -> list[str]:
    """A list of ids (each by the rule of ``as_id``)."""
    items = _listed(value, path=path, line=line, field=field, separator=separator)
    return [as_id(item, path=path, line=line, field=field) for item in items]


def as_tags(
    value: Any, *, path: str | Path | None = None, line: int | None = None, field: str = "tags"
) -> list[str]:
    """Tags: a list of text, a JSON list in text, or text separated by ``,``, ``;`` or ``|``
    (CSV cells). Surrounding spaces are dropped, empty tags and repeats left out."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                msg = "expected a JSON list of texts and could not read it"
                raise _fail(msg, path=path, line=line, field=field) from None
        else:
            for separator in ("|", ";"):
                text = text.replace(separator, ",")
            value = text.split(",")
    if not isinstance(value, (list, tuple)):
        raise _fail(
            f"expected a list of texts, got {describe(value)}", path=path, line=line, field=field
        )
    tags: dict[str, None] = {}
    for item in value:
        if not isinstance(item, str):
            msg = f"expected a list of texts; found {describe(item)}"
            raise _fail(msg, path=path, line=line, field=field)
        if item.strip():
            tags[item.strip()] = None
    return list(tags)


def as_object(
    value: Any,
    *,
    path: str | Path | None = None,
    line: int | None = None,
    field: str | None = None,
) -> dict:
    """An object, or text holding one as JSON or a Python literal; missing gives {}."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = parse_literal(value.strip())
        except ValueError:
            msg = "expected an object (as JSON or a Python literal) and could not read it"
            raise _fail(msg, path=path, line=line, field=field) from None
    if not isinstance(value, dict):
        raise _fail(f"expected an object, got {describe(value)}", path=path, line=line, field=field)
    return value


def present(value: Any) -> bool:
    """Whether a field holds something (not missing, not null, not empty or blank text)."""
    return value is not None and not (isinstance(value, str) and not value.strip())


def require(record: dict, field: str, *, path: str | Path | None = None, line: int | None = None):
    """The value of a field that must be present and not empty."""
    value = record.get(field)
    if not present(value):
        raise _fail("missing or empty", path=path, line=line, field=field)
    return value


def first_of(record: dict, fields: Iterable[str]) -> tuple[str | None, Any]:
    """The first of several accepted names that the record fills: (name, value)."""
    for name in fields:
        value = record.get(name)
        if present(value):
            return name, value
    return None, None


def text_field(
    record: dict, field: str, *, path: str | Path | None = None, line: int | None = None
):
    """A required text field of a record, a whole number being accepted as its text (for ids
    use ``as_id``, which also refuses whitespace)."""
    value = record.get(field)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return as_text(value, path=path, line=line, field=field)


__all__ = [
    "GRADE_LIMIT",
    "as_bool",
    "as_grade",
    "as_id",
    "as_ids",
    "as_int",
    "as_object",
    "as_rank",
    "as_score",
    "as_tags",
    "as_text",
    "as_texts",
    "bad_id_character",
    "describe",
    "first_of",
    "parse_literal",
    "present",
    "require",
    "text_field",
]
