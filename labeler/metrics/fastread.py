"""A fast path for big TREC files: numpy splits a plain file where it lies in memory, a block of
whole lines at a time, straight into columns.

It is an optimisation of the one TREC grammar (``labeler.readers.trec``), never a second
grammar: it only takes a file when a scan of its bytes proves that splitting on a single space
(or a single tab) gives exactly what the grammar gives, and every value passes the grammar's
own rules (``labeler.readers.fields``): ids in UTF-8, whole numbers spelt ``[+-]?[0-9]+`` within
their range (up to 18 digits here), scores by the grammar's decimal rule and finite. Anything
unusual (mixed or doubled separators, comments, a byte-order mark, control characters, Unicode
whitespace, invisible formatting characters, another number of fields, a bad value) returns
None, and the caller reads the file with the grammar's line reader, which either gives the same
result or raises the error naming the line and the field.

Why not a CSV library: Arrow's reader (used here until 2026-12) built a table that numpy then
copied, and on a virtual machine, where every fresh page is zeroed first and often fetched
from the host, that memory cost more than the parse. Here a block's temporaries are reused
from block to block, the ids are copied once, and nothing else is made but the columns
(docs/benchmarks.md, "A reader of our own").
"""

from __future__ import annotations

import mmap
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from labeler.metrics.strings import MASKS, Strings, hash64, pad
from labeler.metrics.tables import Qrels, Run, with_hashes
from labeler.readers.fields import GRADE_LIMIT, RANK_LIMIT
from labeler.readers.files import BOM, UTF16_BOMS

BLOCK = 1 << 21  # bytes worked on at a time: their temporaries stay small and are reused
HEAD = 1 << 16  # bytes that decide the separator
DIGITS = 18  # the most digits of a whole number read here (int64 holds them all)
SCORE_BYTES = 64  # the longest score read here; a longer one goes to the line reader
TAB, LF, CR, SPACE, HASH, DEL = 9, 10, 13, 32, 35, 127
PLUS, MINUS, DOT, ZERO = 43, 45, 46, 48
# The UTF-8 forms of C1 controls and Unicode whitespace: characters the grammar treats otherwise
# than a single-separator split, as it does control characters (all but tab, LF and CR).
_UNICODE_SPACE = re.compile(
    rb"\xc2[\x80-\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
)


def _decimal_automaton() -> tuple[np.ndarray, np.ndarray]:
    """The grammar's decimal rule ``[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?`` as
    a table-driven automaton over bytes: (moves, accepting). ``moves[state * 256 + byte]`` is
    the next state times 256, so that a step is one addition and one lookup.

    States: 0 start, 1 sign, 2 whole digits, 3 digits and '.', 4 fraction digits, 5 '.' first,
    6 'e', 7 exponent sign, 8 exponent digits, 9 refused; 10 + s: state s, ended by a
    separator or a line end (a byte up to the space), in which it stays whatever follows."""
    digits, signs, exponents = range(ZERO, ZERO + 10), (PLUS, MINUS), (ord("e"), ord("E"))
    edges = {
        0: [(digits, 2), ((DOT,), 5), (signs, 1)],
        1: [(digits, 2), ((DOT,), 5)],
        2: [(digits, 2), ((DOT,), 3), (exponents, 6)],
        3: [(digits, 4), (exponents, 6)],
        4: [(digits, 4), (exponents, 6)],
        5: [(digits, 4)],
        6: [(digits, 8), (signs, 7)],
        7: [(digits, 8)],
        8: [(digits, 8)],
        9: [],
    }
    moves = np.full((20, 256), 9, dtype=np.int64)
    for state, out in edges.items():
        for chars, to in out:
            moves[state, list(chars)] = to
        moves[state, : SPACE + 1] = 10 + state  # the field ends
        moves[10 + state, :] = 10 + state
    accepting = np.zeros(20, dtype=bool)
    accepting[[12, 13, 14, 18]] = True  # ended after digits (and a '.') or an exponent
    return (moves * 256).reshape(-1), accepting


_MOVES, _ACCEPTING = _decimal_automaton()
_EXPONENT = 18  # the final state of a decimal that ends in an exponent
_POWERS = 10.0 ** np.arange(23)  # exact in binary: 10^0 .. 10^22


def _separator(data: np.ndarray) -> int | None:
    """The tab (when the file's first 64 KiB hold one) or the space; None when the file starts
    with a byte-order mark (or is empty): the line reader deals with those."""
    head = data[:HEAD].tobytes()
    if not head or head.startswith((BOM, *UTF16_BOMS)):
        return None
    return TAB if b"\t" in head else SPACE


def _plain(data: np.ndarray, separator: int) -> bool:
    """Whether the file (its bytes, ``data``) splits the same way on ``separator`` as the
    grammar splits it: no control character but LF, CR (in CR LF) and the separator; not the
    other separator; no '#' at the start of a line or of a field; no Unicode whitespace; valid
    UTF-8 (``_plain_block``, a block at a time)."""
    return all(_plain_block(data, start, separator) for start in range(0, len(data), BLOCK))


def _plain_block(data: np.ndarray, start: int, separator: int, end: int | None = None) -> bool:
    """``_plain`` for the bytes ``data[start:end]`` (``end``: a ``BLOCK`` further).

    A few vector passes over bytes that stay in the CPU cache; the rare bytes ('#', CR,
    non-ASCII) are then looked at where they are, in the whole file (a CR LF, a '#' after its
    LF or a character may straddle the block's edges). A doubled, leading or trailing
    separator need not be looked for: it makes an empty field, which ``_fields`` declines."""
    block = data[start : start + BLOCK if end is None else end]
    controls = np.count_nonzero(block < SPACE)
    expected = np.count_nonzero(block == LF)
    if separator == TAB:
        expected += np.count_nonzero(block == TAB)
    if controls != expected and not _carriage_returns(data, start, block, controls - expected):
        return False  # a control character, or a tab in a file separated by spaces
    if separator == TAB and (block == SPACE).any():
        return False
    if (block == HASH).any() and _hash_at_field_start(data, start, block, separator):
        return False  # a comment line, or an id the grammar refuses
    return not ((block >= DEL).any() and _unusual_text(data, start, block))


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
    """Whether ``block`` holds DEL, bytes that are not UTF-8, Unicode whitespace or a C1
    control, or an invisible formatting character (a zero width space) the id rule refuses.
    A character the block's edges cut is read whole: the block is widened to the characters'
    first bytes (UTF-8 continuation bytes are 0x80 to 0xBF)."""
    if (block == DEL).any():
        return True
    begin, end = start, start + len(block)
    while begin > 0 and 0x80 <= data[begin] < 0xC0:
        begin -= 1
    while end < len(data) and 0x80 <= data[end] < 0xC0:
        end += 1
    try:
        text = data[begin:end].tobytes().decode("utf-8")
    except UnicodeDecodeError:
        return True
    return _UNICODE_SPACE.search(text.encode("utf-8")) is not None or _invisible(text)


def _invisible(text: str) -> bool:
    """Whether the text holds a character that is neither whitespace nor a control character
    but is not printable: an invisible formatting one (U+200B). Not printable is a superset
    (private-use and unassigned characters too): the line reader then decides."""
    return not text.replace("\n", "").replace("\t", "").replace("\r", "").isprintable()


def _blocks(mapped: mmap.mmap) -> Iterator[tuple[int, int]]:
    """(start, end) of blocks of about ``BLOCK`` bytes, each of whole lines."""
    size, start = len(mapped), 0
    while start < size:
        end = start + BLOCK
        if end >= size:
            end = size
        else:  # after the block's last LF, or the next one when a line is longer than a block
            cut = mapped.rfind(b"\n", start, end)
            end = cut + 1 if cut >= 0 else (mapped.find(b"\n", end) + 1 or size)
        yield start, end
        start = end


def _fields(
    block: np.ndarray, separator: int, count: int, wanted: tuple[int, ...]
) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """(starts, ends) of the fields ``wanted`` of each line of ``block`` (whole lines of a plain
    file of ``count`` fields): offsets in ``block``, one pair of arrays a field; blank lines are
    left out. None when a line has another number of fields or an empty one (a doubled,
    leading or trailing separator)."""
    # In a plain file the bytes up to the space are the separator, LF and CR (before LF only).
    cuts = np.flatnonzero(block <= SPACE)
    kinds = np.take(block, cuts)
    if len(block) and block[-1] != LF:  # the file's last line, without its LF
        cuts = np.append(cuts, len(block))
        kinds = np.append(kinds, np.uint8(LF))
    starts = np.empty(len(cuts), dtype=np.int64)
    starts[:1] = 0
    np.add(cuts[:-1], 1, out=starts[1:])
    crs = kinds == CR
    if crs.any():  # CR LF ends a line at the CR; its LF is no cut of its own
        keep = np.ones(len(cuts), dtype=bool)
        keep[1:] = ~crs[:-1]
        cuts, kinds, starts = cuts[keep], kinds[keep], starts[keep]
    empty = starts == cuts
    if empty.any():  # blank lines are left out; any other empty field declines the file
        ends = kinds != separator
        after_end = np.ones(len(cuts), dtype=bool)
        after_end[1:] = ends[:-1]
        blank = empty & ends & after_end
        if (empty & ~blank).any():
            return None
        cuts, kinds, starts = cuts[~blank], kinds[~blank], starts[~blank]
    lines = len(cuts) // count
    separators = np.count_nonzero(kinds == separator)
    # Every count-th cut ends a line, and no other: then each line has count fields.
    if lines * count != len(cuts) or separators != len(cuts) - lines:
        return None
    if (kinds[count - 1 :: count] == separator).any():
        return None
    return [(starts[k::count].copy(), cuts[k::count].copy()) for k in wanted]


def _whole_numbers(block: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """The whole numbers spelt in the fields (the grammar's ``[+-]?[0-9]+``), or None when a
    field is spelt otherwise or has more than ``DIGITS`` digits."""
    if len(starts) == 0:
        return np.zeros(0, dtype=np.int64)
    first = block[starts]
    signs = (first == PLUS) | (first == MINUS)
    signed = bool(signs.any())
    begin = starts + signs if signed else starts
    digits = (ends - begin).astype(np.int32)
    longest = int(digits.max())
    if int(digits.min()) < 1 or longest > DIGITS:
        return None
    # A digit at a time costs a few operations a digit; a word at a time, about twenty.
    few = longest <= 3 or longest > 8
    value = _digits(block, begin, digits) if few else _eight_digits(block, begin, digits)
    if value is None:
        return None
    return np.where(first == MINUS, -value, value) if signed else value


_ZEROS = np.uint64(0x3030303030303030)  # eight '0' characters
_HIGH_NIBBLES = np.uint64(0xF0F0F0F0F0F0F0F0)
_SIXES = np.uint64(0x0606060606060606)
_POWERS_OF_TEN = 10 ** np.arange(9, dtype=np.int64)


def _eight_digits(block: np.ndarray, begin: np.ndarray, digits: np.ndarray) -> np.ndarray | None:
    """Numbers of one to eight digits, read a word at a time (eight digits in a handful of
    integer operations: the classic SWAR parse). The bytes after a number are read as '0's,
    which multiplies it by a power of ten that is then divided out."""
    words, _ = Strings(begin, digits, block).word(0)
    words |= _ZEROS & ~MASKS[digits]  # past the number: '0'
    # Every byte a digit: its high nibble is 3, and adding 6 leaves it 3 (no carry past 9).
    if ((words & _HIGH_NIBBLES) != _ZEROS).any():
        return None
    if (((words + _SIXES) & _HIGH_NIBBLES) != _ZEROS).any():
        return None
    v = words - _ZEROS  # byte i: digit i, the first digit in the lowest byte
    v = (v * np.uint64(10) + (v >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    v = (v * np.uint64(100) + (v >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    v = (v * np.uint64(10000) + (v >> np.uint64(32))) & np.uint64(0xFFFFFFFF)
    return v.astype(np.int64) // _POWERS_OF_TEN[8 - digits]


def _digits(block: np.ndarray, begin: np.ndarray, digits: np.ndarray) -> np.ndarray | None:
    """Numbers of up to ``DIGITS`` digits, a digit at a time."""
    value = np.zeros(len(begin), dtype=np.int64)
    last = len(block) - 1
    for k in range(int(digits.max())):
        active = digits > k
        digit = block[np.minimum(begin + k, last)].astype(np.int64) - ZERO
        if ((digit.astype(np.uint64) > 9) & active).any():
            return None
        value = np.where(active, value * 10 + digit, value)
    return value


def _within(values: np.ndarray, low: int, high: int) -> bool:
    return len(values) == 0 or (int(values.min()) >= low and int(values.max()) < high)


def _scores(
    block: np.ndarray, starts: np.ndarray, ends: np.ndarray, *, keep: bool
) -> np.ndarray | None:
    """The scores spelt in the fields when each is a finite decimal by the grammar's rule
    (``_decimal_automaton``, a byte at a time), else None; their values only when ``keep``
    (an empty array otherwise)."""
    lengths = ends - starts
    if len(lengths) == 0:
        return np.zeros(0, dtype=np.float64)
    longest = int(lengths.max())
    if longest > SCORE_BYTES or int(ends.max()) >= len(block):
        return None  # too long, or the file's last field without a line end after it
    last = len(block) - 1
    near_end = int(starts.max()) + longest > last
    state = np.zeros(len(starts), dtype=np.int64)
    for k in range(longest + 1):  # the byte after the longest field ends it too
        at = starts + k
        if near_end:
            np.minimum(at, last, out=at)
        state += block[at]
        state = _MOVES[state]
    state >>= 8
    if not _ACCEPTING[state].all():
        return None
    exponent = state == _EXPONENT
    if not keep:
        if exponent.any() and not np.isfinite(_parsed(block, starts, lengths, exponent)).all():
            return None
        return np.zeros(0, dtype=np.float64)
    return _decimals(block, starts, lengths, exponent)


def _decimals(
    block: np.ndarray, starts: np.ndarray, lengths: np.ndarray, exponent: np.ndarray
) -> np.ndarray | None:
    """The values of decimals the grammar accepts (``exponent``: those with one), or None
    when one is not finite.

    A decimal of at most 15 digits and no exponent is its digits, a whole number exactly held
    by a float, divided by a power of ten up to 10^22, also exact: one correctly rounded
    division gives what Python's ``float`` gives (Clinger's fast path). Anything else (an
    exponent, more digits) is converted by numpy's parser, which rounds as Python does, and
    checked to be finite (a decimal without an exponent always is)."""
    last = len(block) - 1
    mantissa = np.zeros(len(starts), dtype=np.int64)  # its first DIGITS digits
    digits = np.zeros(len(starts), dtype=np.int64)  # (an exponent's too: those are parsed)
    fraction = np.zeros(len(starts), dtype=np.int64)  # digits after the '.'
    after_dot = np.zeros(len(starts), dtype=bool)
    for k in range(int(lengths.max())):
        byte = block[np.minimum(starts + k, last)]
        present = lengths > k
        digit = present & (byte >= ZERO) & (byte <= ZERO + 9)
        after_dot |= present & (byte == DOT)
        digits += digit
        fraction += digit & after_dot
        more = digit & (digits <= DIGITS)
        mantissa = np.where(more, mantissa * 10 + (byte.astype(np.int64) - ZERO), mantissa)
    fast = ~exponent & (digits <= 15) & (fraction <= 22)
    values = mantissa / _POWERS[np.where(fast, fraction, 0)]
    values = np.where(block[starts] == MINUS, -values, values)
    if not fast.all():
        slow = ~fast
        values[slow] = _parsed(block, starts, lengths, slow)
        if not np.isfinite(values[slow]).all():
            return None
    return values


def _parsed(
    block: np.ndarray, starts: np.ndarray, lengths: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """The decimals of the fields ``rows`` (a mask) by numpy's parser."""
    fields = Strings(starts[rows], lengths[rows].astype(np.int32), block)
    return fields.fixed_width().astype(np.float64)


def _groups(
    block: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[list[str], np.ndarray]:
    """The question ids of a block's lines as (the first id of each group of lines with the
    same id, the group of each line).

    Files are grouped by question: a line's id is compared with the line before's, byte for
    byte where it lies, and only the first line of each group becomes a Python string."""
    ids = Strings(starts, (ends - starts).astype(np.int32), block)
    same = np.zeros(len(starts), dtype=bool)
    same[1:] = ids.lengths[1:] == ids.lengths[:-1]
    for j in range(ids.max_words()):
        word = ids.word(j)[0]
        same[1:] &= word[1:] == word[:-1]
    new = ~same
    heads = ids.to_list(np.flatnonzero(new))  # the scan checked that they are UTF-8
    group = np.cumsum(new, dtype=np.int32)
    group -= 1
    return heads, group


@dataclass(frozen=True, slots=True, eq=False)
class _Columns:
    """What ``_read`` gives: the fields a format keeps, as columns."""

    questions: tuple[str, ...]
    question_index: np.ndarray
    chunks: Strings
    hashes: np.ndarray  # of the chunk ids (``hash64``)
    numbers: dict[int, np.ndarray]  # field -> values (scores only when kept)


class _Reader:
    """The columns of one file, filled a block of whole lines at a time (``add``)."""

    def __init__(self, room: int, lines: int, numbers: dict[int, str], keep_scores: bool):
        self.numbers = numbers
        self.keep_scores = keep_scores
        self.question = np.empty(lines, dtype=np.int32)
        self.hashes = np.empty(lines, dtype=np.uint64)
        self.chunk_starts = np.empty(lines, dtype=np.int64)  # in ``chunk_bytes``
        self.lengths = np.empty(lines, dtype=np.int32)
        self.columns = {
            field: np.empty(lines, dtype=np.float64 if kind == "score" else np.int64)
            for field, kind in numbers.items()
            if kind != "score" or keep_scores
        }
        # The chunk ids' bytes, copied out of the file (so that its memory map can go: a map
        # kept while the table is used would crash the process if the file were cut short).
        # ``room``: bytes enough for any (``Strings.copy_into``), of which only the pages
        # written are ever given memory.
        self.chunk_bytes = np.empty(room, dtype=np.uint8)
        self.names: dict[str, int] = {}
        self.rows = self.copied = 0

    def add(self, block: np.ndarray, separator: int, count: int) -> bool:
        """Read the lines of ``block``; False when anything is unusual."""
        split = _fields(block, separator, count, (0, 2, *self.numbers))
        if split is None:
            return False
        (question_starts, question_ends), (chunk_begins, chunk_ends), *spans = split
        start, end = self.rows, self.rows + len(question_starts)
        for (field, kind), (starts, ends) in zip(self.numbers.items(), spans, strict=True):
            if kind == "score":
                values = _scores(block, starts, ends, keep=self.keep_scores)
            else:
                values = _whole_numbers(block, starts, ends)
                low, high = (-GRADE_LIMIT, GRADE_LIMIT) if kind == "grade" else (1, RANK_LIMIT)
                values = values if values is not None and _within(values, low, high) else None
            if values is None:
                return False
            if field in self.columns:
                self.columns[field][start:end] = values
        heads, group = _groups(block, question_starts, question_ends)
        numbered = [self.names.setdefault(head, len(self.names)) for head in heads]
        self.question[start:end] = np.array(numbered, dtype=np.int32)[group]
        self.lengths[start:end] = chunk_ends - chunk_begins
        chunks = Strings(chunk_begins, self.lengths[start:end], block)
        self.hashes[start:end] = hash64(chunks)  # while the ids are in the CPU's cache
        self.chunk_starts[start:end], used = chunks.copy_into(self.chunk_bytes, self.copied)
        self.copied += used
        self.rows = end
        return True

    def _chunks(self) -> Strings:
        lengths = self.lengths[: self.rows]
        end = self.copied + pad(lengths)
        if len(self.chunk_bytes) < end:  # no room for the zeros after the last id
            self.chunk_bytes = np.concatenate(
                [self.chunk_bytes[: self.copied], np.zeros(end - self.copied, np.uint8)]
            )
        data = self.chunk_bytes[:end]
        data[self.copied :] = 0
        return Strings(self.chunk_starts[: self.rows], lengths, data)

    def columns_read(self) -> _Columns:
        rows = self.rows
        return _Columns(
            tuple(self.names),
            self.question[:rows],
            self._chunks(),
            self.hashes[:rows],
            {field: column[:rows] for field, column in self.columns.items()},
        )


def _read(path: Path, count: int, numbers: dict[int, str], keep_scores: bool) -> _Columns | None:
    """The question ids (field 0), chunk ids (field 2) and the numbers of the fields
    ``numbers`` (field -> "grade", "rank" or "score") of a plain TREC file of ``count`` fields,
    or None when anything is unusual (see the module docstring).

    One thread reads a file: ``labeler eval`` reads its files side by side, and on two cores
    a second thread for one file cost more time than it saved (GIL and cache contention)."""
    if path.stat().st_size == 0:
        return None
    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    data = np.frombuffer(mapped, dtype=np.uint8)
    separator = _separator(data)
    if separator is None:
        return None
    blocks = list(_blocks(mapped))
    lines = sum(int(np.count_nonzero(data[start:end] == LF)) for start, end in blocks)
    # Ids in slots take at most twice their bytes, ids one after another a word more a block.
    room = 2 * len(data) + 8 * len(blocks)
    reader = _Reader(room, lines + 1, numbers, keep_scores)  # the last line may have no LF
    for start, end in blocks:
        if not _plain_block(data, start, separator, end):
            return None
        if not reader.add(data[start:end], separator, count):
            return None
    return reader.columns_read() if reader.rows else None


def fast_qrels(path: Path) -> Qrels | None:
    """A TREC qrels file as columns, or None (read it with the grammar's line reader)."""
    read = _read(path, 4, {3: "grade"}, keep_scores=False)
    if read is None:
        return None
    qrels = Qrels(read.questions, read.question_index, read.chunks, read.numbers[3], str(path))
    return with_hashes(qrels, read.hashes)


def fast_run(path: Path, name: str, *, keep_ranks: bool, keep_scores: bool) -> Run | None:
    """A TREC run as columns, or None (read it with the grammar's line reader). Both the rank
    and the score columns are checked; only those asked for are kept."""
    read = _read(path, 6, {3: "rank", 4: "score"}, keep_scores=keep_scores)
    if read is None:
        return None
    run = Run(
        name,
        read.questions,
        read.question_index,
        read.chunks,
        read.numbers[3] if keep_ranks else None,
        read.numbers[4] if keep_scores else None,
        str(path),
    )
    return with_hashes(run, read.hashes)


__all__ = ["fast_qrels", "fast_run"]
