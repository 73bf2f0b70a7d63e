"""JSON and JSON lines, strictly: one parser for every JSON file users bring.

Strict means: standard JSON only (``NaN`` and ``Infinity`` are not JSON numbers), and a key
given twice in one object is an error (Python's json would silently keep the last value).
One file kind bends the first rule: IBM's MTRAG task files write a missing tag as a bare ``NaN``
(pandas' ``to_json`` of an empty cell). Its importer alone reads with ``nan_as_missing``, which
gives such a ``NaN`` as the ``MISSING`` marker (no number: every field converter refuses it,
naming it "NaN", where the importer does not take it for a missing tag); ``Infinity`` stays an
error there too.
Every error names the file and the line: a JSON lines file by its line; a JSON document by the
line the parser stopped on, or the line where the item in question starts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from labeler.errors import LabelerError, shown
from labeler.readers.fields import LONE_SURROGATE, SURROGATE_ESCAPE, TOO_DEEP, lone_surrogate
from labeler.readers.files import Progress, check_file, empty_file, line_of, lines, text_of


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _NotANumber(Exception):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return record


def _constant(name: str) -> Any:
    raise _NotANumber(name)


class NaN:
    """A bare ``NaN`` read with ``nan_as_missing``: a missing value, not a number. Error
    messages name it by its class, "NaN"."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NaN"


MISSING = NaN()


def _missing(name: str) -> Any:
    if name == "NaN":
        return MISSING
    raise _NotANumber(name)


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant)
_NAN_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_missing)
_SPACE = " \t\r\n"


def _error(
    error: json.JSONDecodeError | _DuplicateKey | _NotANumber,
    text: str,
    position: int,
    *,
    path: Path | str,
    line: int,
):
    """The LabelerError for a parse failure at ``position`` of ``text`` (whose first line is
    line ``line`` of the file)."""
    if isinstance(error, _DuplicateKey):
        msg = f"the key {shown(error.key)} appears twice in one object"
        return LabelerError(msg, path=path, line=line, field=error.key)
    if isinstance(error, _NotANumber):
        msg = f"not valid JSON: {error} is not a JSON number"
        return LabelerError(msg, path=path, line=line)
    pos = min(error.pos, len(text.rstrip("\r\n")))  # a line's ending is not a place to point at
    at = line + line_of(text, pos) - 1
    column = pos - text.rfind("\n", 0, pos)
    # Some of json's messages end in "at" ("Unterminated string starting at"): one "at" only.
    said = error.msg.removesuffix(" at")
    return LabelerError(f"not valid JSON: {said} at column {column}", path=path, line=at)


# The tokens that matter for nesting: strings (skipped whole, brackets inside them are text),
# brackets and colons.
_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:]')


def _too_deep(text: str, start: int, *, path: Path | str, line: int) -> LabelerError:
    """The error for a value at ``text[start]`` nested deeper than the parser follows: it
    names the line where the nesting is deepest and, for an object, the member it is in
    (``line`` is the file line ``text`` starts on)."""
    depth = deepest = 0
    where, key, last_string, field = start, None, None, None
    for token in _NESTING.finditer(text, start):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
            if depth > deepest:
                deepest, where, field = depth, token.start(), key
        elif mark in ("]", "}"):
            depth -= 1
            if depth <= 0:
                break
        elif mark == ":":
            if depth == 1:
                key = last_string
        else:
            last_string = mark
    if field is not None:
        try:
            field = json.loads(field)
        except json.JSONDecodeError:
            field = field[1:-1]
    at = line + line_of(text, where) - 1
    msg = f"{TOO_DEEP}: {deepest:,} levels, more than Python's JSON parser can follow"
    return LabelerError(msg, path=path, line=at, field=field)


def loads(text: str, *, path: Path | str, line: int = 1, nan_as_missing: bool = False) -> Any:
    """One JSON value, strictly; errors name ``path`` and the line (``line`` is the file line
    ``text`` starts on). ``nan_as_missing``: a bare ``NaN`` is ``MISSING`` (MTRAG's files)."""
    try:
        value = (_NAN_DECODER if nan_as_missing else _DECODER).decode(text)
    except (json.JSONDecodeError, _DuplicateKey, _NotANumber) as error:
        raise _error(error, text, getattr(error, "pos", 0), path=path, line=line) from None
    except RecursionError:
        start = len(text) - len(text.lstrip())
        raise _too_deep(text, start, path=path, line=line) from None
    _text_only(value, text, path=path, line=line)
    return value


def _text_only(value: Any, text: str, *, path: Path | str, line: int) -> None:
    """Refuse a value whose texts hold a lone surrogate (see ``lone_surrogate``); only text
    with such an escape is looked through, and most lines have no ``\\u`` at all."""
    if "\\u" in text and SURROGATE_ESCAPE.search(text):
        found = lone_surrogate(value)
        if found is not None:
            raise LabelerError(LONE_SURROGATE, path=path, line=line, field=found[0])


def _decode_at(text: str, position: int, *, path: Path | str) -> tuple[Any, int]:
    """The value starting at ``position`` and where it ends; errors name the line."""
    try:
        return _DECODER.raw_decode(text, position)
    except RecursionError:
        raise _too_deep(text, position, path=path, line=1) from None
    except json.JSONDecodeError as error:
        if error.pos >= len(text.rstrip()):
            msg = (
                f"not valid JSON: the file ends inside the value that starts on line"
                f" {line_of(text, position)} (a list or object is not closed)"
            )
            raise LabelerError(msg, path=path, line=line_of(text, len(text.rstrip()))) from None
        raise _error(error, text, error.pos, path=path, line=1) from None
    except (_DuplicateKey, _NotANumber) as error:
        raise _error(error, text, position, path=path, line=line_of(text, position)) from None


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in _SPACE:
        position += 1
    return position


def iter_jsonl(
    path: str | Path, progress: Progress | None = None, *, nan_as_missing: bool = False
) -> Iterator[tuple[int, dict]]:
    """(line, object) of a JSON lines file; blank lines are skipped, anything else must be
    one JSON object on its line. ``nan_as_missing``: see the module docstring."""
    path = check_file(path)
    for number, text in lines(path, progress, keep_ending=True):
        record = loads(text, path=path, line=number, nan_as_missing=nan_as_missing)
        del text  # the parsed record holds the line's content: not kept twice
        if type(record) is not dict:
            msg = f"expected a JSON object, got {_kind(record)}"
            raise LabelerError(msg, path=path, line=number)
        yield number, record


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false"}
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def json_document(path: str | Path) -> Any:
    """A whole JSON file, strictly. An empty file is an error."""
    path = check_file(path)
    text = text_of(path)
    if not text.strip():
        raise empty_file(path, "JSON value")
    return loads(text, path=path)


def json_file(path: str | Path) -> Any:
    """A whole JSON file (``json_document``); kept under its first name."""
    return json_document(path)


def array_items(text: str, start: int, *, path: Path | str) -> Iterator[tuple[int, Any]]:
    """The values of the JSON array opening at ``text[start]``, each with its first line."""
    position = _skip(text, start + 1)
    if position < len(text) and text[position] == "]":
        return
    while True:
        if position >= len(text):
            msg = f"not valid JSON: the list opened on line {line_of(text, start)} is not closed"
            raise LabelerError(msg, path=path, line=line_of(text, len(text.rstrip())))
        line = line_of(text, position)
        item, position = _decode_at(text, position, path=path)
        yield line, item
        position = _skip(text, position)
        if position < len(text) and text[position] == "]":
            return
        if position < len(text) and text[position] != ",":
            msg = "not valid JSON: expected ',' or ']' after an item of a list"
            raise LabelerError(msg, path=path, line=line_of(text, position))
        position = _skip(text, position + 1)


def object_members(
    text: str, start: int, *, path: Path | str
) -> Iterator[tuple[int, str, Any, int]]:
    """(line, key, value, position of the value) of each member of the JSON object opening at
    ``text[start]``, strictly (a key given twice is an error naming its line)."""
    position = _skip(text, start + 1)
    if position < len(text) and text[position] == "}":
        return
    seen: set[str] = set()
    while True:
        if position >= len(text):
            msg = f"not valid JSON: the object opened on line {line_of(text, start)} is not closed"
            raise LabelerError(msg, path=path, line=line_of(text, len(text.rstrip())))
        line = line_of(text, position)
        if text[position] != '"':
            raise LabelerError(
                "not valid JSON: expected a key in double quotes", path=path, line=line
            )
        key, position = _decode_at(text, position, path=path)
        if key in seen:
            raise _error(_DuplicateKey(key), text, position, path=path, line=line)
        seen.add(key)
        position = _skip(text, position)
        if position >= len(text) or text[position] != ":":
            msg = f"not valid JSON: expected ':' after the key {shown(key)}"
            raise LabelerError(msg, path=path, line=line_of(text, min(position, len(text) - 1)))
        position = _skip(text, position + 1)
        value, end = _decode_at(text, position, path=path)
        yield line, key, value, position
        position = _skip(text, end)
        if position < len(text) and text[position] == "}":
            return
        if position < len(text) and text[position] != ",":
            msg = "not valid JSON: expected ',' or '}' after a member of an object"
            raise LabelerError(msg, path=path, line=line_of(text, position))
        position = _skip(text, position + 1)


def iter_json_items(
    path: str | Path, *, list_keys: tuple[str, ...] = ()
) -> Iterator[tuple[int, dict]]:
    """The records of a JSON file: a list of objects, an object holding that list under one
    of ``list_keys``, one object, or objects one per line (JSON lines under a .json name);
    each with the line it starts on."""
    path = check_file(path)
    text = text_of(path)
    start = _skip(text, 0)
    if start >= len(text):
        return
    if text[start] == "[":
        yield from _objects(array_items(text, start, path=path), path=path, text=text)
        _nothing_after(text, start, path=path)
        return
    if text[start] != "{":
        value = loads(text, path=path)
        msg = f"expected a JSON list or object, got {_kind(value)}"
        raise LabelerError(msg, path=path, line=line_of(text, start))
    if _more_than_one_value(text, start):
        yield from iter_jsonl(path)
        return
    members = list(object_members(text, start, path=path))
    for _, key, value, position in members:
        if key in list_keys and type(value) is list:
            yield from _objects(array_items(text, position, path=path), path=path, text=text)
            return
    record = {key: value for _, key, value, _ in members}
    _text_only(record, text, path=path, line=line_of(text, start))
    yield line_of(text, start), record


def _objects(
    items: Iterator[tuple[int, Any]], *, path: Path | str, text: str
) -> Iterator[tuple[int, dict]]:
    check = "\\u" in text and SURROGATE_ESCAPE.search(text) is not None
    for line, item in items:
        if type(item) is not dict:
            msg = f"expected a JSON object, got {_kind(item)}"
            raise LabelerError(msg, path=path, line=line)
        if check:
            found = lone_surrogate(item)
            if found is not None:
                raise LabelerError(LONE_SURROGATE, path=path, line=line, field=found[0])
        yield line, item


def _more_than_one_value(text: str, start: int) -> bool:
    """Whether JSON text follows the first value (JSON lines in a file named .json)."""
    try:
        end = json.JSONDecoder().raw_decode(text, start)[1]
    except (json.JSONDecodeError, RecursionError):
        return False  # the strict walk reports the error with its line
    return _skip(text, end) < len(text)


def _nothing_after(text: str, start: int, *, path: Path | str) -> None:
    try:
        end = json.JSONDecoder().raw_decode(text, start)[1]
    except RecursionError:  # the items were read one by one; the whole is deeper by one
        raise _too_deep(text, start, path=path, line=1) from None
    rest = _skip(text, end)
    if rest < len(text):
        msg = "not valid JSON: more text after the list"
        raise LabelerError(msg, path=path, line=line_of(text, rest))


__all__ = [
    "MISSING",
    "NaN",
    "array_items",
    "iter_json_items",
    "iter_jsonl",
    "json_document",
    "json_file",
    "loads",
    "object_members",
]
