"""A fast path for big TREC files: Arrow's multi-threaded CSV reader, straight into columns.

It is an optimisation of the one TREC grammar (``labeler.readers.trec``), never a second
grammar: it only takes a file when a scan of its bytes proves that splitting on a single space
(or a single tab) gives exactly what the grammar gives, and the parsed values pass the same
rules (grades and ranks in range, scores finite, no '#' id). Anything unusual (mixed or doubled
separators, comments, a byte-order mark, control characters, Unicode whitespace, invisible
formatting characters, extra fields, a bad value) returns None, and the caller reads the file
with the grammar's line reader, which either gives the same result or raises the error naming
the line and the field.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from labeler.allocator import MMAP_THRESHOLD_MAX, give_back
from labeler.metrics.strings import Strings
from labeler.metrics.tables import Qrels, Run
from labeler.readers.fields import GRADE_LIMIT
from labeler.readers.files import BOM, UTF16_BOMS

BLOCK = 1 << 20  # bytes scanned at a time: small enough to stay in the CPU cache for every pass
HEAD = 1 << 16  # bytes that decide the separator
RANK_LIMIT = 2**31
T = TypeVar("T")
RELEASE_BYTES = 2 * MMAP_THRESHOLD_MAX  # a table this big is handed back once copied
TAB, LF, CR, SPACE, HASH, DEL = 9, 10, 13, 32, 35, 127
# The UTF-8 forms of C1 controls and Unicode whitespace: characters the grammar treats otherwise
# than a single-separator split, as it does control characters (all but tab, LF and CR).
_UNICODE_SPACE = re.compile(
    rb"\xc2[\x80-\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
)


def _separator(data: np.ndarray) -> int | None:
    """The tab (when the file's first 64 KiB hold one) or the space; None when the file starts
    with a byte-order mark (or is empty): the line reader deals with those."""
    head = data[:HEAD].tobytes()
    if not head or head.startswith((BOM, *UTF16_BOMS)):
        return None
    return TAB if b"\t" in head else SPACE


def _plain(data: np.ndarray, separator: int) -> bool:
    """Whether the whole file (its bytes, ``data``) splits the same way on ``separator`` as the
    grammar splits it: no control character but LF, CR (in CR LF) and the separator; not the
    other separator; no '#' at the start of a line or of a field; no Unicode whitespace.

    numpy counts a block at a time (a few vector passes over bytes that stay in the CPU cache,
    without the GIL, so the scan runs beside Arrow's parse); the rare bytes ('#', CR, non-ASCII)
    are then looked at where they are. A doubled, leading or trailing separator need not be
    looked for: it makes an empty field, so Arrow finds a line with one column too many and
    declines the file."""
    other = SPACE if separator == TAB else TAB
    for start in range(0, len(data), BLOCK):
        block = data[start : start + BLOCK]
        controls = np.count_nonzero(block < SPACE)
        expected = np.count_nonzero(block == LF) + (
            np.count_nonzero(block == TAB) if separator == TAB else 0
        )
        if controls != expected and not _carriage_returns(data, start, block, controls - expected):
            return False  # a control character, or a tab in a file separated by spaces
        if separator == TAB and (block == other).any():
            return False
        if (block == HASH).any() and _hash_at_field_start(data, start, block, separator):
            return False  # a comment line, or an id the grammar refuses
        if (block >= DEL).any() and _unusual_text(data, start, block):
            return False
    return True


def _carriage_returns(data: np.ndarray, start: int, block: np.ndarray, unexplained: int) -> bool:
    """Whether the ``unexplained`` control bytes of ``block`` are all CRs that end a line (CR
    LF; the LF may open the next block)."""
    crs = np.flatnonzero(block == CR)
    if len(crs) != unexplained:
        return False
    after = crs + start + 1
    return bool(after[-1] < len(data) and (data[after] == LF).all())


def _hash_at_field_start(data: np.ndarray, start: int, block: np.ndarray, separator: int) -> bool:
    """Whether a '#' of ``block`` opens a line or a field."""
    at = np.flatnonzero(block == HASH) + start
    if at[0] == 0:
        return True
    before = data[at - 1]
    return bool(((before == LF) | (before == separator)).any())


def _unusual_text(data: np.ndarray, start: int, block: np.ndarray) -> bool:
    """Whether ``block`` holds DEL, Unicode whitespace or a C1 control (whose UTF-8 bytes may
    begin in the block before or end in the next), or an invisible formatting character (a
    zero width space) the id rule refuses."""
    if (block == DEL).any():
        return True
    around = data[max(start - 2, 0) : start + len(block) + 2].tobytes()
    return _UNICODE_SPACE.search(around) is not None or _invisible(around)


def _invisible(data: bytes) -> bool:
    """Whether the bytes hold a character that is neither whitespace nor a control character
    but is not printable: an invisible formatting one (U+200B). Not printable is a superset
    (private-use and unassigned characters too): the line reader then decides."""
    text = data.decode("utf-8", "ignore")  # a character cut at either end is dropped
    return not text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable()


def _parse(source: Any, separator: int, names: list[str], types: dict[str, str]) -> Any:
    """Arrow's table of the columns named in ``types``, or None when a line does not parse into
    exactly ``names`` of those types.

    Arrow allocates from the C library's allocator here (as numpy does), not from its own
    mimalloc pool: the table lives only until its columns are copied into numpy, and memory
    it frees is then reused by numpy's arrays instead of being faulted in afresh. mimalloc
    commits its arena in transparent huge pages: parsing a 20 MB qrels file had the kernel
    zero 90 MB, and an evaluation of 10,000 x 100 about 320 MB in all (190 MB with one
    allocator; see docs/benchmarks.md, "Fresh memory")."""
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
            source,
            memory_pool=pa.system_memory_pool(),
            read_options=pcsv.ReadOptions(column_names=names, block_size=1 << 22),
            parse_options=pcsv.ParseOptions(
                delimiter=chr(separator), quote_char=False, escape_char=False
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

    The file is mapped into memory once (read in place from the page cache, no copy): Arrow
    parses it (in its threads, without the GIL) while this thread scans the same bytes, and the
    scan's verdict decides whether the table is used."""
    import pyarrow as pa

    if path.stat().st_size == 0:
        return None
    mapped = pa.memory_map(str(path)).read_buffer()
    data = np.frombuffer(mapped, dtype=np.uint8)
    separator = _separator(data)
    if separator is None:
        return None
    with ThreadPoolExecutor(max_workers=1) as worker:
        parsing = worker.submit(_parse, pa.BufferReader(mapped), separator, names, types)
        plain = _plain(data, separator)
        table = parsing.result()
    if not plain or table is None:
        return None
    if table.num_rows == 0 or any(table[c].null_count for c in types):
        return None
    # one dictionary, in order of first appearance
    table = table.unify_dictionaries(memory_pool=pa.system_memory_pool())
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


def _copied(columns: dict[str, Any], convert: Callable[[dict[str, Any]], T]) -> T:
    """``convert(columns)``, which copies the columns into numpy, taking each from ``columns``;
    then the memory of a big table is handed back to the operating system.

    A small table's is left with the C allocator, whose next arrays reuse it without a page
    fault. The arrays made from a big file are each larger than glibc serves from its heap
    (``MMAP_THRESHOLD_MAX``), so they are mapped afresh and could not reuse it: kept, it would
    only add to the peak (about 300 MB at 100,000 questions x 100 results)."""
    freed = sum(column.nbytes for column in columns.values())
    out = convert(columns)
    if freed >= RELEASE_BYTES:
        give_back()
    return out


def fast_qrels(path: Path) -> Qrels | None:
    """A TREC qrels file as columns, or None (read it with the grammar's line reader)."""
    columns = _columns(
        path,
        ["question", "iteration", "chunk", "grade"],
        {"question": "ids", "chunk": "string", "grade": "int"},
    )
    return None if columns is None else _copied(columns, lambda c: _qrels_of(c, path))


def _qrels_of(columns: dict[str, Any], path: Path) -> Qrels | None:
    """``fast_qrels``'s columns in numpy (see ``_copied``)."""
    grades = _parts(columns.pop("grade"), np.int64)
    if not _within(grades, -GRADE_LIMIT, GRADE_LIMIT):
        return None
    codes, names = _codes(columns.pop("question"))
    chunks = Strings.from_arrow(columns.pop("chunk"))
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
    return _copied(
        columns, lambda c: _run_of(c, path, name, keep_ranks=keep_ranks, keep_scores=keep_scores)
    )


def _run_of(
    columns: dict[str, Any], path: Path, name: str, *, keep_ranks: bool, keep_scores: bool
) -> Run | None:
    """``fast_run``'s columns in numpy (see ``_copied``)."""
    scores = _parts(columns.pop("score"), np.float64)
    ranks = _parts(columns.pop("rank"), np.int64)
    if not all(np.isfinite(p).all() for p in scores) or not _within(ranks, 1, RANK_LIMIT):
        return None
    codes, names = _codes(columns.pop("question"))
    chunks = Strings.from_arrow(columns.pop("chunk"))
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
