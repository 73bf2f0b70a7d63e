"""Field converters: the one rule for what a field of a file may hold, for every reader.

Each takes the raw value (from JSON, a CSV cell, Parquet or a TREC column) and returns a clean
value, or raises a LabelerError naming the file, the line and the field. The rules, once:

- **ids** (question, chunk, document ids): text, or a whole number (JSON ``12`` is the id
  ``"12"``: real files number their items). Never a float (``1.5``, ``3.0``, NaN, infinity: a
  float column is a sign of a broken export), never empty, and never holding whitespace or a
  control character (TREC files separate their columns by whitespace, so such an id could not
  be written out again), nor an invisible formatting character (Unicode category Cf: a zero
  width space U+200B, a bidi override U+202E; two ids that look the same would differ), nor
  starting with ``#`` (TREC tools read such a line as a comment).
- **names** (a chunking's, from an option, a form field or a version's manifest): the rule of
  ids, so a name can be typed, shown and written to a file as it is.
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

Values quoted in an error are cut to their first characters (``labeler.errors.shown``).
"""

from __future__ import annotations

import ast
import json
import math
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from labeler.errors import LabelerError, shown

# What an id or a name may not hold, by Unicode category: whitespace (Zs, Zl, Zp), control
# characters (Cc), invisible formatting characters (Cf) and lone surrogates (Cs, which no
# UTF-8 file can carry, but a JSON escape can).
REFUSED_CATEGORIES = {
    "Zs": "whitespace",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Cs": "a lone surrogate",
}
_NAMED = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a carriage return"}
MAX_DEPTH = 100  # objects and lists inside an object field (metadata): far beyond any real one
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
        return shown(value)
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def refused_character(text: str) -> str | None:
    """The first character of ``text`` that an id or a name may not hold (see
    ``REFUSED_CATEGORIES``), or None. The usual id is settled by one C-speed test."""
    if text.isprintable() and " " not in text:
        return None
    for char in text:
        if char.isspace() or unicodedata.category(char) in REFUSED_CATEGORIES:
            return char
    return None


def character_name(char: str) -> str:
    """``a tab``, ``an invisible formatting character (U+200B ZERO WIDTH SPACE)``."""
    if char in _NAMED:
        return _NAMED[char]
    if char.isspace():
        return f"whitespace (U+{ord(char):04X})"
    what = REFUSED_CATEGORIES.get(unicodedata.category(char), "a character")
    name = unicodedata.name(char, "")  # what tells an invisible character apart
    return f"{what} (U+{ord(char):04X}{' ' + name if name else ''})"


def _id_problem(text: str) -> tuple[str, str] | None:
    """(what is wrong, why it matters) for text that cannot be an id or a name."""
    if not text:
        return "is empty", ""
    char = refused_character(text)
    if char is not None:
        if unicodedata.category(char) == "Cf":
            return f"holds {character_name(char)}", ": two ids that look the same would differ"
        return f"holds {character_name(char)}", ", which TREC files cannot carry"
    if text.startswith("#"):
        return "starts with '#'", ", which TREC tools read as a comment"
    return None


def bad_id_character(text: str) -> str | None:
    """Why ``text`` cannot be an id (None when it can)."""
    problem = _id_problem(text)
    return None if problem is None else problem[0] + problem[1]


NAME_RULE = "not empty, without whitespace, control or invisible characters, not starting with '#'"


def as_name(
    value: Any,
    *,
    what: str,
    field: str | None = None,
    path: str | Path | None = None,
    line: int | None = None,
) -> str:
    """A name (``what`` names its kind: "chunking") by the rule of ids, wherever it comes
    from: an option, a form field, a file."""
    problem = _id_problem(value) if isinstance(value, str) else ("is not text", "")
    if problem is None:
        return value
    msg = f"a {what} name is {NAME_RULE}; {describe(value)} {problem[0]}"
    raise _fail(msg, path=path, line=line, field=field or what)


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
    raises ValueError, saying why, when it is neither."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        pass
    except RecursionError:
        raise ValueError(TOO_DEEP) from None
    else:
        if SURROGATE_ESCAPE.search(text) and lone_surrogate(value) is not None:
            raise ValueError(LONE_SURROGATE)
        return value
    strings = _string_list(text)
    if strings is not None:
        return strings
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError) as error:
        if isinstance(error, RecursionError) or "too many nested" in str(error):
            raise ValueError(TOO_DEEP) from None
        msg = "neither JSON nor a Python literal"
        raise ValueError(msg) from None
    if "\\" in text and lone_surrogate(value) is not None:
        raise ValueError(LONE_SURROGATE)
    return value


TOO_DEEP = "lists or objects nested too deep"

# A Python string literal as ``repr`` writes one (no prefix, no line break inside), matched as
# runs of ordinary characters between escapes (one character at a time is 10x slower).
_PY_STRING = re.compile(r"""('[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*")""")
_OTHER_ESCAPE = re.compile(r"\\[^'\"ntr]", re.S)  # all but those JSON reads the same (\' made ')
_LAST = re.compile(r"\s*,?\s*\]")


def _string_list(text: str) -> list[str] | None:
    """A list of texts written as Python writes one (``str(list)``: Ragas' CSV cells), read
    by rewriting each item as a JSON string and decoding them all at once; None when the text
    is anything else, or uses an escape JSON reads otherwise (then ``ast`` reads it). For a
    cell of 200,000 short contexts this is 0.7 s where ``ast.literal_eval`` takes 2 s, and it
    needs no syntax tree of 200,000 nodes (``tests/benchmarks/bench_ragas_cells.py``)."""
    if not text.startswith("[") or "\0" in text:  # Python's parser refuses a NUL: so do we
        return None
    parts = _PY_STRING.split(text)
    separators, tokens = parts[0::2], parts[1::2]
    if not tokens or separators[0].strip() != "[" or not _LAST.fullmatch(separators[-1]):
        return None
    between = separators[1:-1]
    if not set(between) <= {", ", ","} and any(s.strip() != "," for s in between):
        return None
    # Backslashes occur only inside items, so the escapes are checked on the whole text at
    # once: with the escaped backslashes taken out, every backslash left starts an escape.
    if "\\" in text and _OTHER_ESCAPE.search(text.replace("\\\\", "")):
        return None
    items = [
        token[1:-1] if token[0] == '"' else token[1:-1].replace('"', '\\"') for token in tokens
    ]
    if any(token[0] == "'" and '\\"' in token for token in tokens):
        return None  # an escaped double quote in single quotes: ast reads it
    try:
        return json.loads(('["' + '","'.join(items) + '"]').replace("\\'", "'"), strict=False)
    except json.JSONDecodeError:  # a quote after an escaped backslash ("\\\\'"): ast reads it
        return None


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
            except ValueError as error:
                msg = (
                    f"expected a list (as JSON or a Python literal) and could not read it: {error}"
                )
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
            except (json.JSONDecodeError, RecursionError) as error:
                why = TOO_DEEP if isinstance(error, RecursionError) else "not valid JSON"
                msg = f"expected a JSON list of texts and could not read it: {why}"
                raise _fail(msg, path=path, line=line, field=field) from None
            if SURROGATE_ESCAPE.search(text) and lone_surrogate(value) is not None:
                raise _fail(LONE_SURROGATE, path=path, line=line, field=field)
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
        except ValueError as error:
            msg = f"expected an object (as JSON or a Python literal) and could not read it: {error}"
            raise _fail(msg, path=path, line=line, field=field) from None
    if not isinstance(value, dict):
        raise _fail(f"expected an object, got {describe(value)}", path=path, line=line, field=field)
    if nesting(value) > MAX_DEPTH:
        msg = f"{TOO_DEEP}: more than {MAX_DEPTH} levels"
        raise _fail(msg, path=path, line=line, field=field)
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
LONE_SURROGATE = (
    "holds a lone surrogate (an unpaired \\uD800 to \\uDFFF escape), which is not text: no"
    " UTF-8 file or database can hold it"
)


def lone_surrogate(value: Any) -> tuple[str | None] | None:
    """``(field,)`` when a text in ``value`` (a decoded JSON value) holds a lone surrogate,
    with the member of the top-level object it is in (None for a value that is not an
    object); None when there is none. JSON's ``\\ud800`` escape decodes to one, and the
    database would refuse it with a traceback."""
    stack: list[tuple[Any, str | None]] = [(value, None)]
    while stack:
        item, field = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return (field,)
        elif isinstance(item, dict):
            for key, child in item.items():
                here = key if field is None and item is value else field
                if _SURROGATE.search(key):
                    return (here,)
                stack.append((child, here))
        elif isinstance(item, (list, tuple)):
            stack.extend((child, field) for child in item)
    return None


def nesting(value: Any) -> int:
    """How deep lists and objects nest in ``value`` (0 for a text or a number), counted
    without recursion, stopping once past ``MAX_DEPTH``: a value stored as JSON must be
    written out again by a recursive encoder."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if not isinstance(item, (dict, list, tuple)):
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


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
    "LONE_SURROGATE",
    "MAX_DEPTH",
    "NAME_RULE",
    "REFUSED_CATEGORIES",
    "TOO_DEEP",
    "as_bool",
    "as_grade",
    "as_id",
    "as_ids",
    "as_int",
    "as_name",
    "as_object",
    "as_rank",
    "as_score",
    "as_tags",
    "as_text",
    "as_texts",
    "bad_id_character",
    "character_name",
    "describe",
    "first_of",
    "lone_surrogate",
    "nesting",
    "parse_literal",
    "present",
    "refused_character",
    "require",
    "text_field",
]
