"""The fast reader of plain TREC files (``labeler.metrics.fastread``) against the grammar's line
reader (``labeler.metrics.files``): on any file, it reads what the line reader reads, value for
value and bit for bit, or it declines (None) and leaves the file to the line reader; on the
plain files retrievers write, it never declines."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeler.errors import LabelerError
from labeler.metrics import fastread, files
from labeler.metrics.strings import Strings

QUESTIONS = ["q1", "q2", "q10", "a-rather-long-question-id-17", "\u00fcber", "q2\u00e9x"]
CHUNKS = ["d1", "doc-22", "c\u00e9", "d4724524", "a-chunk-id-of-thirty-one-bytes", "x", "#no"]
RANKS = ["1", "2", "3", "10", "99", "12345678", "123456789", "2147483647", "+4", "007"]
BAD_RANKS = ["0", "-1", "2147483648", "1.0", "1e3", "9999999999999999999", "x"]
SCORES = ["1", "0.5", "-0.0", "87.50", "1.", ".25", "+1.5", "-.5e-3", "1E5", "1e-05", "3.14159"]
SCORES += ["0.87345212936401367", "123456789012345678.5", "1e-320", "9.999e307", "-7"]
BAD_SCORES = ["nan", "inf", "1e999", "1_0", "0x1p3", "1.2.3", "-", "e5", "1e", "."]
GRADES = ["0", "1", "2", "-1", "+2", "007", "2147483647", "-2147483648"]
BAD_GRADES = ["2147483648", "-2147483649", "1.0", "one", "99999999999999999999"]


def _bits(values: list[float] | None) -> list[int] | None:
    """Each float's 64 bits: equal only when bit for bit equal (0.0 is not -0.0)."""
    return (
        None if values is None else [struct.unpack("<q", struct.pack("<d", v))[0] for v in values]
    )


def _slow_run(path: Path):
    try:
        return files._rows_run(path, "r", keep_ranks=True, keep_scores=True)
    except LabelerError:
        return None


def _slow_qrels(path: Path):
    try:
        return files._rows_qrels(path)
    except LabelerError:
        return None


def _in_blocks(block: int, read, *args, **options):
    """``read(*args, **options)`` with the reader's blocks of ``block`` bytes (a fixture cannot
    serve hypothesis' examples, hence no monkeypatch)."""
    original = fastread.BLOCK
    fastread.BLOCK = block
    try:
        return read(*args, **options)
    finally:
        fastread.BLOCK = original


def _same_run(fast, slow) -> None:
    assert fast.questions == slow.questions
    assert fast.to_dict() == slow.to_dict()
    assert fast.ranks.tolist() == slow.ranks.tolist()
    assert _bits(fast.scores.tolist()) == _bits(slow.scores.tolist())


@st.composite
def run_files(draw, *, odd: bool) -> bytes:
    """A TREC run: rows grouped by question (or not), one separator, LF or CR LF; with
    ``odd``, any of the spellings the fast reader must refuse or read exactly too."""
    questions = draw(st.lists(st.sampled_from(QUESTIONS), min_size=1, max_size=4, unique=True))
    rows = []
    for question in questions:
        chunks = draw(st.lists(st.sampled_from(CHUNKS[:-1]), min_size=1, max_size=5, unique=True))
        for chunk in chunks:
            rank = draw(st.sampled_from(RANKS + (BAD_RANKS if odd else [])))
            score = draw(st.sampled_from(SCORES + (BAD_SCORES if odd else [])))
            rows.append([question, "Q0", chunk, rank, score, "run-a"])
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))
    separator = draw(st.sampled_from([" ", "\t"]))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = [separator.join(row) for row in rows]
    if odd:
        for i in range(len(lines)):
            change = draw(st.sampled_from(["", "", "", "blank", "double", "extra", "lead", "#"]))
            if change == "blank":
                lines[i] = "\n" + lines[i] if end == "\n" else "\r\n" + lines[i]
            elif change == "double":
                lines[i] = lines[i].replace(separator, separator * 2, 1)
            elif change == "extra":
                lines[i] += separator + "more"
            elif change == "lead":
                lines[i] = separator + lines[i]
            elif change == "#":
                lines[i] = lines[i].replace("Q0" + separator, "Q0" + separator + "#", 1)
    text = end.join(lines) + ("" if odd and draw(st.booleans()) else end)
    return text.encode("utf-8")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=run_files(odd=True), block=st.sampled_from([16, 64, 1 << 20]))
def test_a_run_reads_as_the_line_reader_reads_it_or_is_declined(
    tmp_path_factory: pytest.TempPathFactory, raw: bytes, block: int
) -> None:
    path = tmp_path_factory.mktemp("run") / "run.trec"
    path.write_bytes(raw)
    fast = _in_blocks(block, fastread.fast_run, path, "r", keep_ranks=True, keep_scores=True)
    slow = _slow_run(path)
    if slow is None:
        assert fast is None
    elif fast is not None:
        _same_run(fast, slow)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=run_files(odd=False), block=st.sampled_from([16, 64, 1 << 20]))
def test_a_plain_run_is_never_declined(
    tmp_path_factory: pytest.TempPathFactory, raw: bytes, block: int
) -> None:
    path = tmp_path_factory.mktemp("run") / "run.trec"
    path.write_bytes(raw)
    fast = _in_blocks(block, fastread.fast_run, path, "r", keep_ranks=True, keep_scores=True)
    assert fast is not None
    _same_run(fast, _slow_run(path))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), block=st.sampled_from([16, 1 << 20]))
def test_qrels_read_as_the_line_reader_reads_them_or_are_declined(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject, block: int
) -> None:
    odd = data.draw(st.booleans())
    lines = []
    for question in data.draw(st.lists(st.sampled_from(QUESTIONS), min_size=1, unique=True)):
        for chunk in data.draw(st.lists(st.sampled_from(CHUNKS[:-1]), min_size=1, unique=True)):
            grade = data.draw(st.sampled_from(GRADES + (BAD_GRADES if odd else [])))
            lines.append(f"{question} 0 {chunk} {grade}")
    path = tmp_path_factory.mktemp("qrels") / "qrels.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fast = _in_blocks(block, fastread.fast_qrels, path)
    slow = _slow_qrels(path)
    if slow is None:
        assert fast is None
        return
    if not odd:
        assert fast is not None
    if fast is not None:
        assert fast.questions == slow.questions
        assert fast.to_dict() == slow.to_dict()


def test_scores_are_the_floats_python_reads_bit_for_bit(tmp_path: Path) -> None:
    """Decimals of every length and form: Clinger's fast path (up to 15 digits, no exponent)
    and numpy's parser (the rest) both give Python's ``float``."""
    rng = np.random.default_rng(7)
    spellings = list(SCORES)
    for value in rng.standard_normal(300) * 10.0 ** rng.integers(-8, 9, 300):
        spellings += [repr(float(value)), f"{value:.4f}", f"{value:.15g}", f"{value:.6e}"]
    spellings += ["0", "-0", "00.100", "123456789012345", "1234567890123456", "0.000000000000001"]
    path = tmp_path / "run.trec"
    path.write_text(
        "".join(f"q1 Q0 d{i} {i + 1} {s} r\n" for i, s in enumerate(spellings)), encoding="utf-8"
    )
    fast = fastread.fast_run(path, "r", keep_ranks=False, keep_scores=True)
    assert fast is not None
    assert _bits(fast.scores.tolist()) == _bits([float(s) for s in spellings])


@pytest.mark.parametrize(
    ("rank", "expected"),
    [
        *[("1", 1), ("+7", 7), ("0012", 12), ("12345678", 12345678), ("123456789", 123456789)],
        *[("2147483647", 2147483647), ("2147483648", None), ("0", None), ("1.5", None)],
    ],
)
def test_ranks_of_every_length(tmp_path: Path, rank: str, expected: int | None) -> None:
    path = tmp_path / "run.trec"
    path.write_text(f"q1 Q0 a 1 2.0 r\nq1 Q0 b {rank} 1.0 r\n", encoding="utf-8")
    fast = fastread.fast_run(path, "r", keep_ranks=True, keep_scores=False)
    assert (None if fast is None else fast.ranks.tolist()[1]) == expected


@pytest.mark.parametrize(
    ("grade", "expected"),
    [("2", 2), ("-2147483648", -2147483648), ("-2147483649", None), ("+3", 3), ("2.0", None)],
)
def test_grades_in_the_grammars_range(tmp_path: Path, grade: str, expected: int | None) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(f"q1 0 a 1\nq1 0 b {grade}", encoding="utf-8")  # no final LF
    fast = fastread.fast_qrels(path)
    assert (None if fast is None else fast.grades.tolist()) == (
        None if expected is None else [1, expected]
    )


def test_the_chunk_ids_do_not_keep_the_file(tmp_path: Path) -> None:
    """The ids are copied: the file can be rewritten shorter while the run is in use."""
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 first 1 2.0 r\nq1 Q0 second 2 1.0 r\n", encoding="utf-8")
    run = fastread.fast_run(path, "r", keep_ranks=True, keep_scores=False)
    path.write_text("", encoding="utf-8")
    assert run.to_dict() == {"q1": ["first", "second"]}


def test_words_are_read_up_to_the_end_of_data_without_padding() -> None:
    data = np.frombuffer(b"ab xyz123456789", dtype=np.uint8)  # 15 bytes, no zeros after
    ids = Strings(np.array([0, 3, 14]), np.array([2, 12, 1], dtype=np.int32), data)
    first = ids.word(0)[0].tolist()
    assert first == [
        int.from_bytes(b"ab", "little"),
        int.from_bytes(b"xyz12345", "little"),
        int.from_bytes(b"9", "little"),
    ]
    assert ids.word(1)[0].tolist() == [0, int.from_bytes(b"6789", "little"), 0]
    assert ids.to_list() == ["ab", "xyz123456789", "9"]


def test_ids_copied_into_slots_or_one_after_another() -> None:
    data = np.frombuffer(b"aaaaaa bbbbbbb cccccccc " + b"d" * 20, dtype=np.uint8)
    even = Strings(np.array([0, 7, 15]), np.array([6, 7, 8], dtype=np.int32), data)
    buffer = np.zeros(64, dtype=np.uint8)
    starts, used = even.copy_into(buffer, 8)
    assert (starts.tolist(), used) == ([8, 16, 24], 24)  # one word a slot: 24 bytes for 21
    assert Strings(starts, even.lengths, buffer).to_list() == ["aaaaaa", "bbbbbbb", "cccccccc"]
    uneven = Strings(np.array([0, 24]), np.array([2, 20], dtype=np.int32), data)
    starts, used = uneven.copy_into(buffer, 0)
    assert (starts.tolist(), used) == ([0, 2], 24)  # slots would take 48 bytes for 22
    assert Strings(starts, uneven.lengths, buffer).to_list() == ["aa", "d" * 20]
