"""A fast path for big TREC files: Arrow's multi-threaded CSV reader, straight into columns.

It is an optimisation of the one TREC grammar (``labeler.readers.trec``), never a second
grammar: it only takes a file when a scan of its bytes proves that splitting on a single space
(or a single tab) gives exactly what the grammar gives, and the parsed values pass the same
rules (grades and ranks in range, scores finite, no '#' id). Anything unusual (mixed or doubled
separators, comments, a byte-order mark, control characters, Unicode whitespace, extra fields, a
bad value) returns None, and the caller reads the file with the grammar's line reader, which
either gives the same result or raises the error naming the line and the field.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from labeler.metrics.strings import Strings
from labeler.metrics.tables import Qrels, Run
from labeler.readers.fields import GRADE_LIMIT
from labeler.readers.files import BOM, UTF16_BOMS

BLOCK = 1 << 20  # bytes scanned at a time: small enough to stay in the CPU cache for every pass
HEAD = 1 << 16  # bytes that decide the separator
RANK_LIMIT = 2**31
# Bytes the grammar treats otherwise than a single-separator split: control characters (all
# but tab, LF and CR), and the UTF-8 forms of C1 controls and Unicode whitespace.
_CONTROL = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
_KEEP = bytes(b for b in range(256) if b not in _CONTROL)
_UNICODE_SPACE = re.compile(
    rb"\xc2[\x80-\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
)


def _separator(path: Path) -> bytes | None:
    """b"\\t" when the file's first 64 KiB hold a tab, else b" "; None when the file starts with
    a byte-order mark (or is empty): the line reader deals with those."""
    with path.open("rb") as handle:
        head = handle.read(HEAD)
    if not head or head.startswith((BOM, *UTF16_BOMS)):
        return None
    return b"\t" if b"\t" in head else b" "


def _plain(path: Path, separator: bytes) -> bool:
    """Whether the whole file splits the same way on ``separator`` as the grammar splits it.
    Reads the file in blocks (no copy of it is kept), with one-byte searches first (memchr
    speed): most files hold no '#', CR or other separator.

    A doubled, leading or trailing separator need not be looked for: it makes an empty field,
    so Arrow finds a line with one column too many and declines the file."""
    other = b" " if separator == b"\t" else b"\t"
    tail = b"\n"
    crs = crlfs = 0
    buffer = bytearray(BLOCK)  # one buffer for every block: no fresh memory per block
    with path.open("rb", buffering=0) as handle:
        while size := handle.readinto(buffer):
            block = buffer if size == BLOCK else buffer[:size]
            if other in block:
                return False
            # The patterns below are at most 3 bytes long: one that spans two blocks lies in
            # ``edge``, every other one in ``block`` (no copy of the block is made).
            edge = tail + block[:3]
            for data in (edge, block):
                if b"#" in data and (b"\n#" in data or separator + b"#" in data):
                    return False  # a comment line, or an id the grammar refuses
                if not data.isascii() and _UNICODE_SPACE.search(data):
                    return False
            if b"\r" in block:
                crs += block.count(b"\r")
                crlfs += block.count(b"\r\n")
            crlfs += tail.endswith(b"\r") and block.startswith(b"\n")  # a CR LF cut in two
            if block.translate(None, _KEEP):
                return False  # control characters
            tail = (tail + block[-3:])[-3:]
    return crs == crlfs


def _parse(path: Path, separator: bytes, names: list[str], types: dict[str, str]) -> Any:
    """Arrow's table of the columns named in ``types``, or None when a line does not parse into
    exactly ``names`` of those types."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    arrow_types = {
        "ids": pa.dictionary(pa.int32(), pa.string()),  # repeated ids: encoded while parsing
        "string": pa.string(),
        "int": pa.int64(),
        "float": pa.float64(),
    }
    try:
        return pcsv.read_csv(
            pa.memory_map(str(path)),  # read in place from the page cache: no copy of the file
            read_options=pcsv.ReadOptions(column_names=names, block_size=1 << 22),
            parse_options=pcsv.ParseOptions(
                delimiter=separator.decode(), quote_char=False, escape_char=False
            ),
            convert_options=pcsv.ConvertOptions(
                column_types={n: arrow_types[t] for n, t in types.items()},
                include_columns=list(types),
                null_values=[],
                strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None


def _columns(path: Path, names: list[str], types: dict[str, str]) -> dict[str, Any] | None:
    """The columns named in ``types`` when the file is plain (``_plain``) and Arrow parses
    every line into exactly ``names``; None when anything is unusual.

    Arrow parses (in its threads, without the GIL) while this thread scans the bytes: the
    scan's verdict decides whether the table is used."""
    separator = _separator(path)
    if separator is None:
        return None
    with ThreadPoolExecutor(max_workers=1) as worker:
        parsing = worker.submit(_parse, path, separator, names, types)
        plain = _plain(path, separator)
        table = parsing.result()
    if not plain or table is None:
        return None
    if table.num_rows == 0 or any(table[c].null_count for c in types):
        return None
    table = table.unify_dictionaries()  # one dictionary, in order of first appearance
    return {name: table[name] for name in types}


def _parts(column: Any, dtype: type) -> list[np.ndarray]:
    """A numeric Arrow column's chunks (no nulls) as numpy views of their buffers (no copy).

    (``ChunkedArray.to_numpy`` would import pandas, which costs more than the whole read.)
    """
    size = np.dtype(dtype).itemsize
    return [
        np.frombuffer(chunk.buffers()[1], dtype=dtype, count=len(chunk), offset=chunk.offset * size)
        for chunk in column.chunks
        if len(chunk)
    ]


def _joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _within(parts: list[np.ndarray], low: int, high: int) -> bool:
    """Every value in [low, high), checked chunk by chunk (no copy of the column)."""
    return all(p.min() >= low and p.max() < high for p in parts)


def _codes(column: Any) -> tuple[np.ndarray, list[str]]:
    """A dictionary-encoded column as (code per row, the distinct values in order of first
    appearance): Arrow assigned the codes while parsing, so no row becomes a Python string."""
    if column.num_chunks == 0:
        return np.zeros(0, dtype=np.int32), []
    names = column.chunk(0).dictionary.to_pylist()
    codes = [
        np.frombuffer(c.indices.buffers()[1], np.int32, len(c), c.indices.offset * 4)
        for c in column.chunks
        if len(c)
    ]
    return (np.concatenate(codes) if codes else np.zeros(0, dtype=np.int32)), names


def _release() -> None:
    """Give Arrow's freed pages back: its allocator would otherwise keep hundreds of MB
    after a big file has been copied into numpy."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def fast_qrels(path: Path) -> Qrels | None:
    """A TREC qrels file as columns, or None (read it with the grammar's line reader)."""
    columns = _columns(
        path,
        ["question", "iteration", "chunk", "grade"],
        {"question": "ids", "chunk": "string", "grade": "int"},
    )
    if columns is None:
        return None
    grades = _parts(columns.pop("grade"), np.int64)
    if not _within(grades, -GRADE_LIMIT, GRADE_LIMIT):
        return None
    codes, names = _codes(columns.pop("question"))
    chunks = Strings.from_arrow(columns.pop("chunk"))
    _release()
    return Qrels(tuple(names), codes, chunks, _joined(grades, np.int64), str(path))


def fast_run(path: Path, name: str, *, keep_ranks: bool, keep_scores: bool) -> Run | None:
    """A TREC run as columns, or None (read it with the grammar's line reader). Both the rank
    and the score columns are checked; only those asked for are kept."""
    columns = _columns(
        path,
        ["question", "q0", "chunk", "rank", "score", "tag"],
        {"question": "ids", "chunk": "string", "rank": "int", "score": "float"},
    )
    if columns is None:
        return None
    scores = _parts(columns.pop("score"), np.float64)
    ranks = _parts(columns.pop("rank"), np.int64)
    if not all(np.isfinite(p).all() for p in scores) or not _within(ranks, 1, RANK_LIMIT):
        return None
    codes, names = _codes(columns.pop("question"))
    chunks = Strings.from_arrow(columns.pop("chunk"))
    _release()
    return Run(
        name,
        tuple(names),
        codes,
        chunks,
        _joined(ranks, np.int64) if keep_ranks else None,
        _joined(scores, np.float64) if keep_scores else None,
        str(path),
    )


__all__ = ["fast_qrels", "fast_run"]
