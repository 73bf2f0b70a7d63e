"""The TREC text grammar: whitespace-separated columns, one record a line, as trec_eval reads
them. One rule for every TREC file (qrels, runs, BEIR qrels, a version's qrels.tsv):

- UTF-8 lines (``labeler.readers.files``); blank lines are skipped;
- a line whose first non-blank character is ``#`` is a comment (trec_eval skips them too);
- fields are separated by runs of spaces and/or tabs; any other whitespace (a no-break space, a
  vertical tab) or control character (NUL) is an error naming the field, since trec_eval and
  this grammar would split it differently; so is an invisible formatting character (a zero
  width space, a bidi override: the id rule of ``labeler.readers.fields``);
- qrels have exactly 4 fields; runs at least 6, fields after the sixth ignored (as trec_eval);
  BEIR qrels exactly 3, after an optional header that is exactly ``query-id corpus-id score``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from labeler.errors import LabelerError, shown
from labeler.readers.fields import character_name, refused_character
from labeler.readers.files import Progress, check_file, lines


@dataclass(frozen=True, slots=True)
class Shape:
    """The columns of one kind of TREC file. ``extra``: fields past the last are ignored."""

    kind: str
    fields: tuple[str, ...]
    ids: tuple[int, ...]
    extra: bool = False
    header: tuple[str, ...] | None = None

    def describe(self) -> str:
        return " ".join(self.fields)


QRELS = Shape("qrels", ("question_id", "0", "chunk_id", "grade"), ids=(0, 2))
RUN = Shape(
    "run", ("question_id", "Q0", "chunk_id", "rank", "score", "run-name"), ids=(0, 2), extra=True
)
BEIR_QRELS = Shape(
    "BEIR qrels",
    ("query-id", "corpus-id", "score"),
    ids=(0, 1),
    header=("query-id", "corpus-id", "score"),
)

# Whitespace other than space and tab, and control characters: the characters on which the
# splitters of different tools disagree.
_UNUSUAL = re.compile(r"[^\S \t]|[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_SEPARATOR = re.compile(r"[ \t]+")


def _unusual(text: str, shape: Shape, *, path: Path, line: int) -> LabelerError | None:
    """The error for a line holding a character the grammar refuses, or None: whitespace other
    than spaces and tabs, control characters, and what the id rule refuses."""
    found = _UNUSUAL.search(text)
    if found is not None:
        start, char = found.start(), found.group()
    else:  # an invisible character, if any, is not ASCII
        odd = (c for c in text if not c.isascii() and refused_character(c) is not None)
        char = next(odd, "")
        if not char:
            return None
        start = text.index(char)
    index = len(_SEPARATOR.split(text[:start].lstrip(" \t"))) - 1
    field = shape.fields[index] if index < len(shape.fields) else None
    what = (
        f"whitespace other than spaces and tabs (U+{ord(char):04X})"
        if char.isspace()
        else character_name(char)
    )
    msg = (
        f"holds {what}; fields are separated by spaces or tabs only, and hold no control or"
        " invisible characters"
    )
    return LabelerError(msg, path=path, line=line, field=field)


def iter_fields(
    path: str | Path, shape: Shape, progress: Progress | None = None, *, data: bytes | None = None
) -> Iterator[tuple[int, list[str]]]:
    """(line, fields) of each record of a TREC file of ``shape``; see the module docstring.
    ``data``: the file's bytes, already read."""
    path = check_file(path) if data is None else Path(path)
    first = True
    for number, text in lines(path, progress, data=data):
        if text.lstrip(" \t").startswith("#"):
            continue
        if _UNUSUAL.search(text) is not None or not text.isascii():
            unusual = _unusual(text, shape, path=path, line=number)
            if unusual is not None:
                raise unusual
        fields = text.split()
        if first and shape.header is not None and tuple(fields) == shape.header:
            first = False
            continue
        first = False
        count = len(shape.fields)
        if len(fields) != count and not (shape.extra and len(fields) > count):
            at_least = "at least " if shape.extra else ""
            msg = f"expected {at_least}{count} fields ({shape.describe()}), got {len(fields)}"
            raise LabelerError(msg, path=path, line=number)
        for index in shape.ids[1:]:  # the first field cannot start with '#': a comment
            if fields[index].startswith("#"):
                msg = (
                    f"the id {shown(fields[index])} starts with '#', which TREC tools read as a"
                    " comment"
                )
                raise LabelerError(msg, path=path, line=number, field=shape.fields[index])
        yield number, fields


__all__ = ["BEIR_QRELS", "QRELS", "RUN", "Shape", "iter_fields"]
