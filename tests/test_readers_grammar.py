"""One grammar per format: the same good and bad qrels and run files through every consumer
(``labeler import qrels``/``run``, ``labeler eval``'s readers with and without their fast
path, and the version reader), which must all read the same rows or raise the same error (the
same line and field)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeler.errors import LabelerError
from labeler.importers import import_qrels, import_run
from labeler.metrics import fastread, files
from labeler.metrics.files import read_qrels, read_run
from labeler.store import Store
from labeler.versions.reading import parse_qrels
from tests.test_importers_runs import results

Q = "q1 0 rate-limits 2\nq1 0 pagination 0\nq2 0 pagination 1\n"
EXPECTED_Q = {"q1": {"rate-limits": 2, "pagination": 0}, "q2": {"pagination": 1}}
QRELS_CASES = [
    ("spaces", "qrels.txt", Q, EXPECTED_Q),
    ("tabs, .tsv is TREC", "qrels.tsv", Q.replace(" ", "\t"), EXPECTED_Q),
    ("mixed spacing", "qrels.txt", Q.replace(" ", " \t  "), EXPECTED_Q),
    ("CRLF", "qrels.txt", Q.replace("\n", "\r\n"), EXPECTED_Q),
    ("byte-order mark", "qrels.txt", "\ufeff" + Q, EXPECTED_Q),
    ("comments and blank lines", "qrels.txt", "# judged by ana\n\n" + Q + "  # end\n", EXPECTED_Q),
    (
        "leading and trailing blanks",
        "qrels.txt",
        Q.replace("\n", "  \n").replace("q", " q"),
        EXPECTED_Q,
    ),
    (
        "JSON lines",
        "qrels.jsonl",
        "".join(
            f'{{"question_id": "{q}", "chunk_id": "{c}", "grade": {g}}}\n'
            for q, cs in EXPECTED_Q.items()
            for c, g in cs.items()
        ),
        EXPECTED_Q,
    ),
    (
        "JSON",
        "qrels.json",
        '{"q1": {"rate-limits": 2, "pagination": 0},\n "q2": {"pagination": 1}}',
        EXPECTED_Q,
    ),
    ("3 fields", "qrels.txt", Q + "q2 0 webhooks\n", (4, None)),
    ("5 fields", "qrels.txt", Q + "q2 0 webhooks 1 extra\n", (4, None)),
    ("a grade in words", "qrels.txt", Q + "q2 0 webhooks one\n", (4, "grade")),
    ("a grade 1.0", "qrels.txt", Q + "q2 0 webhooks 1.0\n", (4, "grade")),
    ("a grade 0_1", "qrels.txt", Q + "q2 0 webhooks 0_1\n", (4, "grade")),
    ("a no-break space in an id", "qrels.txt", Q + "q2 0 web\u00a0hooks 1\n", (4, "chunk_id")),
    ("a NUL in an id", "qrels.txt", Q + "q2 0 web\0hooks 1\n", (4, "chunk_id")),
    ("an id starting with #", "qrels.txt", Q + "q2 0 #webhooks 1\n", (4, "chunk_id")),
    ("labelled twice", "qrels.txt", Q + "q1 0 rate-limits 1\n", (4, "chunk_id")),
    ("empty", "qrels.txt", "\n# nothing\n", (None, None)),
]

R = "q1 Q0 pagination 1 3.5 bm25\nq1 Q0 rate-limits 2 2.5 bm25\nq2 Q0 webhooks 1 9 bm25\n"
EXPECTED_R = {"q1": [("pagination", 1), ("rate-limits", 2)], "q2": [("webhooks", 1)]}
RUN_CASES = [
    ("spaces", "r.trec", R, EXPECTED_R),
    ("tabs, .tsv is TREC", "r.tsv", R.replace(" ", "\t"), EXPECTED_R),
    ("mixed spacing", "r.trec", R.replace(" ", "  "), EXPECTED_R),
    ("CRLF", "r.trec", R.replace("\n", "\r\n"), EXPECTED_R),
    ("a seventh field (ignored, as trec_eval)", "r.trec", R.replace("\n", " extra\n"), EXPECTED_R),
    ("comments", "r.trec", "# bm25, k1=0.9\n" + R, EXPECTED_R),
    (
        "JSON lines, one result a line",
        "r.jsonl",
        '{"question_id": "q1", "chunk_id": "pagination", "rank": 1}\n'
        '{"question_id": "q1", "chunk_id": "rate-limits", "rank": 2}\n'
        '{"question_id": "q2", "chunk_id": "webhooks", "rank": 1}\n',
        EXPECTED_R,
    ),
    (
        "JSON lines, one question a line",
        "r.jsonl",
        '{"question_id": "q1", "chunk_ids": ["pagination", "rate-limits"]}\n'
        '{"question_id": "q2", "chunk_ids": ["webhooks"]}\n',
        EXPECTED_R,
    ),
    (
        "JSON lines, scores only",
        "r.jsonl",
        '{"question_id": "q1", "chunk_id": "rate-limits", "score": 1}\n'
        '{"question_id": "q1", "chunk_id": "pagination", "score": 2}\n'
        '{"question_id": "q2", "chunk_id": "webhooks", "score": 5}\n',
        EXPECTED_R,
    ),
    ("JSON", "r.json", '{"q1": ["pagination", "rate-limits"],\n "q2": ["webhooks"]}', EXPECTED_R),
    ("5 fields", "r.trec", R + "q2 Q0 pagination 2 1\n", (4, None)),
    ("rank 0", "r.trec", R + "q2 Q0 pagination 0 1 bm25\n", (4, "rank")),
    ("score nan", "r.trec", R + "q2 Q0 pagination 2 nan bm25\n", (4, "score")),
    ("score inf", "r.trec", R + "q2 Q0 pagination 2 -inf bm25\n", (4, "score")),
    ("rank 2.0", "r.trec", R + "q2 Q0 pagination 2.0 1 bm25\n", (4, "rank")),
    ("a no-break space", "r.trec", R + "q2 Q0 pagi\u00a0nation 2 1 bm25\n", (4, "chunk_id")),
    (
        "ranks on some lines only",
        "r.jsonl",
        '{"question_id": "q1", "chunk_id": "pagination", "rank": 1}\n'
        '{"question_id": "q1", "chunk_id": "rate-limits", "score": 1}\n',
        (2, "rank"),
    ),
    ("empty", "r.trec", "\n", (None, None)),
]


def outcome(read) -> object:
    """What a consumer made of a file: its rows, or (line, field) of its error."""
    try:
        return read()
    except LabelerError as error:
        return (error.line, error.field)


@pytest.fixture
def no_fast_path(monkeypatch):
    def use_line_reader() -> None:
        monkeypatch.setattr(files, "fast_qrels", lambda path: None)
        monkeypatch.setattr(files, "fast_run", lambda *a, **k: None)

    return use_line_reader


@pytest.mark.parametrize(
    ("name", "file", "text", "expected"), QRELS_CASES, ids=[c[0] for c in QRELS_CASES]
)
def test_every_consumer_reads_a_qrels_file_the_same(
    loaded: Store, tmp_path: Path, no_fast_path, name, file, text, expected
) -> None:
    path = tmp_path / file
    path.write_text(text, encoding="utf-8")

    def engine() -> dict:
        return {q: c for q, c in read_qrels(path).to_dict().items() if c}

    def version() -> dict:
        return parse_qrels(path)[0]

    def imported() -> dict:
        import_qrels(loaded, path, reviewer="grammar")
        labels: dict = {}
        for question in ("q1", "q2", "q3"):
            for row in loaded.labels.question_labels(question, "default"):
                if row["reviewer"] == "grammar":
                    labels.setdefault(question, {})[row["chunk_id"]] = row["grade"]
        return labels

    found = {"eval": outcome(engine), "import qrels": outcome(imported)}
    if file.endswith((".txt", ".tsv")) and name != "empty":  # a version's qrels may be empty
        found["version reader"] = outcome(version)
    no_fast_path()
    found["eval, line reader"] = outcome(engine)
    assert found == dict.fromkeys(found, expected)


@pytest.mark.parametrize(
    ("name", "file", "text", "expected"), RUN_CASES, ids=[c[0] for c in RUN_CASES]
)
def test_every_consumer_reads_a_run_file_the_same(
    loaded: Store, tmp_path: Path, no_fast_path, name, file, text, expected
) -> None:
    path = tmp_path / file
    path.write_text(text, encoding="utf-8")

    def engine() -> dict:
        run = read_run(path, order="rank")
        ranked: dict = {}
        for question, rows in run.records().items():
            for chunk, _rank, _ in sorted(rows, key=lambda r: r[1]):
                ranked.setdefault(question, []).append(chunk)
        return {q: [(c, i) for i, c in enumerate(cs, start=1)] for q, cs in ranked.items()}

    def imported() -> dict:
        import_run(loaded, path, name="grammar")
        ranked: dict = {}
        for question, position, chunk, *_ in results(loaded, "grammar"):
            ranked.setdefault(question, []).append((chunk, position))
        return ranked

    found = {"eval": outcome(engine), "import run": outcome(imported)}
    no_fast_path()
    found["eval, line reader"] = outcome(engine)
    assert found == dict.fromkeys(found, expected)


def test_the_fast_path_takes_plain_files_only(tmp_path: Path) -> None:
    """The fast path is an optimisation: it reads a plain file, and declines anything the
    grammar treats otherwise than a single-separator split (the line reader then decides)."""
    plain = tmp_path / "plain.trec"
    plain.write_text(R, encoding="utf-8")
    assert fastread.fast_run(plain, "r", keep_ranks=True, keep_scores=True) is not None
    for variant in (
        "# c\n" + R,
        R.replace(" ", "  ", 1),
        R + "q2 Q0 a\tb 1 1 x\n",
        "\ufeff" + R,
        R.replace("pagination", "pagi\u00a0nation"),
        R.replace("webhooks", "#w"),
    ):
        odd = tmp_path / "odd.trec"
        odd.write_text(variant, encoding="utf-8")
        assert fastread.fast_run(odd, "r", keep_ranks=True, keep_scores=True) is None, variant


@pytest.mark.parametrize("block", [1, 2, 3, 4, 5, 7])
def test_the_fast_path_scan_sees_across_its_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """The scan reads the file a block at a time: a comment, a '#' id, a lone CR or a no-break
    space that a block boundary cuts in two is still found, at every boundary, and a plain file
    (CRLF line ends cut between CR and LF included) is still taken."""
    monkeypatch.setattr(fastread, "BLOCK", block)
    plain = tmp_path / "plain.trec"
    for text in (R, R.replace("\n", "\r\n")):
        plain.write_bytes(text.encode("utf-8"))
        run = fastread.fast_run(plain, "r", keep_ranks=True, keep_scores=True)
        assert run is not None
        assert run.to_dict() == {"q1": ["pagination", "rate-limits"], "q2": ["webhooks"]}
    for variant in (
        R + "# end\n",
        R.replace("webhooks", "#w"),
        R.replace("\n", "\r", 1),
        R.replace("pagination", "pagi\u00a0nation"),
        R.replace("webhooks", "web\x01hooks"),
    ):
        odd = tmp_path / "odd.trec"
        odd.write_bytes(variant.encode("utf-8"))
        assert fastread.fast_run(odd, "r", keep_ranks=True, keep_scores=True) is None, variant


def _plain_by_the_rule(raw: bytes, separator: int) -> bool:
    """The fast path's condition, stated directly: no other separator, no control character
    but LF, CR in CR LF and the separator, no '#' opening a line or a field, no Unicode
    whitespace or C1 control."""
    other = b"\t" if separator == fastread.SPACE else b" "
    controls = bytes([*range(0, 9), 11, 12, *range(14, 32), 127])
    text = b"\n" + raw
    return not (
        other in raw
        or any(bytes([c]) in raw for c in controls)
        or raw.replace(b"\r\n", b"").count(b"\r")
        or b"\n#" in text
        or bytes([separator]) + b"#" in text
        or fastread._UNICODE_SPACE.search(raw)
    )


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(
        st.sampled_from(
            [b"a", b"1", b" ", b"\t", b"\n", b"\r", b"\r\n", b"#", b"\x00", b"\x7f", b"\xc2\xa0",
             b"\xc3\xa9", b"\xe2\x80\x83"]
        ),
        max_size=40,
    ),
    separator=st.sampled_from([9, 32]),
    block=st.integers(1, 9),
)  # fmt: skip
def test_the_fast_path_scan_follows_its_rule(
    parts: list[bytes], separator: int, block: int
) -> None:
    """The vectorised scan, a block at a time, says what the rule says on any bytes."""
    raw = b"".join(parts)
    original = fastread.BLOCK
    fastread.BLOCK = block
    try:
        scanned = fastread._plain(np.frombuffer(raw, dtype=np.uint8), separator)
    finally:
        fastread.BLOCK = original
    assert scanned == _plain_by_the_rule(raw, separator)
