"""Files as lines: the one rule for encodings, line endings and blank lines, and for which
reader a file's extension selects.

Every text file users bring is UTF-8 (a byte-order mark is accepted and dropped); a UTF-16
file, or a byte that is not UTF-8, is an error naming the line. Lines end with LF or CRLF; the
ending is not part of the line. Line numbers count from 1 and count every line, blank or not,
so an error points where an editor does.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path

from labeler.errors import LabelerError

Progress = Callable[[int], None]

BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")

# Extensions, one rule for every reader. A table (chunks, questions) is read by its extension;
# a qrels or run file is JSON lines or JSON by extension and TREC columns otherwise.
JSONL = (".jsonl", ".ndjson")
JSON = (".json",)
CSV = (".csv",)
TSV = (".tsv", ".tab")
PARQUET = (".parquet", ".pq")


def check_file(path: str | Path) -> Path:
    """The path, when it names a readable file; else a LabelerError."""
    path = Path(path)
    if not path.exists():
        raise LabelerError("no such file", path=path)
    if not path.is_file():
        raise LabelerError("not a file", path=path)
    return path


def file_size(path: str | Path) -> int:
    return Path(path).stat().st_size


def decode(raw: bytes, *, path: str | Path, line: int) -> str:
    """One line's bytes as text, strictly UTF-8, or an error naming the line and the byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        msg = f"not valid UTF-8 (byte {error.start + 1} of the line); save the file as UTF-8"
        raise LabelerError(msg, path=path, line=line) from None


def check_start(raw: bytes, *, path: str | Path) -> bytes:
    """The first line's bytes without a UTF-8 byte-order mark; a UTF-16 file is refused."""
    if raw.startswith(UTF16_BOMS):
        raise LabelerError("the file is UTF-16; save it as UTF-8", path=path, line=1)
    return raw.removeprefix(BOM)


def lines(
    path: str | Path,
    progress: Progress | None = None,
    *,
    keep_blank: bool = False,
    keep_ending: bool = False,
    data: bytes | None = None,
) -> Iterator[tuple[int, str]]:
    """Decoded lines, numbered from 1, without their line ending (LF, CRLF) unless
    ``keep_ending`` (a JSON parser skips it, and not cutting it spares a copy of a long line).
    Blank lines (nothing but whitespace) are skipped unless ``keep_blank`` (CSV needs them
    inside quoted cells). One line at a time, so a file is never read whole. ``data``: the
    file's bytes, already read (``path`` then only names it in errors)."""
    path = Path(path)
    with io.BytesIO(data) if data is not None else path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if progress is not None:
                progress(len(raw))
            if number == 1:
                raw = check_start(raw, path=path)
            text = decode(raw, path=path, line=number)
            del raw  # a long line is not kept twice while its text is used
            if not keep_ending and text.endswith(("\n", "\r")):
                text = text[:-2] if text.endswith("\r\n") else text[:-1]
            if keep_blank or (text and not text.isspace()):
                yield number, text


def text_of(path: str | Path) -> str:
    """A whole file as text, by the rules of ``lines`` (an undecodable byte names its line)."""
    path = Path(path)
    data = path.read_bytes()
    data = check_start(data, path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        start = data.rfind(b"\n", 0, error.start) + 1
        msg = (
            f"not valid UTF-8 (byte {error.start - start + 1} of the line); save the file as UTF-8"
        )
        raise LabelerError(msg, path=path, line=line) from None


def line_of(text: str, position: int) -> int:
    """The 1-based line of a character position in ``text``."""
    return text.count("\n", 0, position) + 1


def empty_file(path: str | Path, what: str) -> LabelerError:
    """The one error for a file that holds nothing to import: every importer raises it."""
    return LabelerError(f"the file is empty: it holds no {what}", path=path)


__all__ = [
    "BOM",
    "CSV",
    "JSON",
    "JSONL",
    "PARQUET",
    "TSV",
    "Progress",
    "check_file",
    "check_start",
    "decode",
    "empty_file",
    "file_size",
    "line_of",
    "lines",
    "text_of",
]
