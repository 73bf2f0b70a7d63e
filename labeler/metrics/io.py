"""Qrels, runs, questions and test-set versions from files and DataFrames.

Formats, chosen by extension:

- TREC (any other extension): qrels ``question 0 chunk grade``; runs
  ``question Q0 chunk rank score run-name`` (trailing fields ignored, as trec_eval does).
  Fields are separated by spaces and/or tabs; no comment lines.
- JSONL (``.jsonl``, ``.ndjson``): qrels ``{"question_id", "chunk_id", "grade"}`` per line; runs
  either one result per line ``{"question_id", "chunk_id", "rank"?, "score"?}`` or one question
  per line ``{"question_id", "chunk_ids": [...], "scores": [...]?}``.
- JSON (``.json``): ``{"q1": {"chunk": grade}}`` and ``{"q1": ["chunk", ...]}`` or
  ``{"q1": {"chunk": score}}``, as pytrec_eval takes them.

A big TREC file separated by single spaces or single tabs is parsed by Arrow's multi-threaded
CSV reader straight into columns; anything it cannot read (odd spacing, extra fields, a bad
line) is read again line by line in Python, which either succeeds with the same result or
raises a LabelerError naming the file, the line and the field.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from labeler.errors import LabelerError
from labeler.metrics.strings import Strings
from labeler.metrics.tables import Qrels, Run
from labeler.metrics.types import Order
from labeler.readers import BOM, check_file, iter_jsonl, json_file, lines, text_field

JSONL = (".jsonl", ".ndjson")
_INT = re.compile(r"[+-]?\d+")
_QRELS_SHAPE = "question 0 chunk grade"
_RUN_SHAPE = "question Q0 chunk rank score run-name"


@dataclass(frozen=True, slots=True)
class QuestionInfo:
    """What the engine needs of a test-set question: its id, tags, and the unanswerable flag."""

    id: str
    tags: tuple[str, ...] = ()
    unanswerable: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class TestSet:
    """A version folder written by ``labeler export``: its qrels and questions, and identity."""

    __test__ = False  # not a pytest test class, whatever its name

    path: str
    name: str
    version: Any
    content_hash: str
    qrels: Qrels
    questions: tuple[QuestionInfo, ...]

    def identity(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "content_hash": self.content_hash,
            "path": self.path,
        }


# -- fields --------------------------------------------------------------------------------


def _whole(text: Any, *, path: Path, line: int, field: str) -> int:
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    if isinstance(text, str) and _INT.fullmatch(text.strip()):
        return int(text)
    if isinstance(text, float) and text.is_integer():
        return int(text)
    raise LabelerError(f"expected a whole number, got {text!r}", path=path, line=line, field=field)


def _number(text: Any, *, path: Path, line: int, field: str) -> float:
    value = math.nan
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    elif isinstance(text, str) and "_" not in text:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
    if math.isnan(value):
        raise LabelerError(f"expected a number, got {text!r}", path=path, line=line, field=field)
    return value


# -- TREC, fast ------------------------------------------------------------------------------


def _fast_columns(path: Path, names: list[str], types: dict[str, str]) -> Any:
    """The columns named in ``types`` (a dict the caller pops them from, so each is freed once
    converted), when the file is cleanly single-space or single-tab separated; None when
    anything is unusual (the line-by-line reader then decides)."""
    with path.open("rb") as handle:
        head = handle.read(1 << 16)
    if not head or head.startswith(BOM):
        return None
    tab, space = b"\t" in head, b" " in head
    if tab == space:
        return None
    import pyarrow as pa
    import pyarrow.csv as pcsv

    arrow_types = {
        "string": pa.string(),
        "ids": pa.dictionary(pa.int32(), pa.string()),  # repeated ids: encoded while parsing
        "int": pa.int64(),
        "float": pa.float64(),
    }
    try:
        table = pcsv.read_csv(
            path,
            read_options=pcsv.ReadOptions(column_names=names, block_size=1 << 22),
            parse_options=pcsv.ParseOptions(
                delimiter="\t" if tab else " ", quote_char=False, escape_char=False
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
    if any(table[c].null_count for c in types):
        return None
    table = table.unify_dictionaries()  # one dictionary, in order of first appearance
    return {name: table[name] for name in types}


def _numbers(column: Any, dtype: type) -> np.ndarray:
    """A numeric Arrow column (no nulls) as one numpy array, read from its buffers.

    (``ChunkedArray.to_numpy`` would import pandas, which costs more than the whole read.)
    """
    size = np.dtype(dtype).itemsize
    parts = [
        np.frombuffer(chunk.buffers()[1], dtype=dtype, count=len(chunk), offset=chunk.offset * size)
        for chunk in column.chunks
        if len(chunk)
    ]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


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


def _fast_qrels(path: Path) -> Qrels | None:
    columns = _fast_columns(
        path,
        ["question", "iteration", "chunk", "grade"],
        {"question": "ids", "chunk": "string", "grade": "int"},
    )
    if columns is None:
        return None
    codes, names = _codes(columns.pop("question"))
    grades = _numbers(columns.pop("grade"), np.int64)
    chunks = Strings.from_arrow(columns.pop("chunk"))
    _release()
    return Qrels(tuple(names), codes, chunks, grades, str(path))


def _wanted(order: Order | None) -> tuple[bool, bool]:
    """(read the rank column, read the score column) for runs evaluated in ``order``."""
    return order != "score", order != "rank"


def _fast_run(path: Path, name: str, order: Order | None) -> Run | None:
    want_ranks, want_scores = _wanted(order)
    types = {"question": "ids", "chunk": "string"}
    types |= {"rank": "int"} if want_ranks else {}
    types |= {"score": "float"} if want_scores else {}
    columns = _fast_columns(path, ["question", "q0", "chunk", "rank", "score", "tag"], types)
    if columns is None:
        return None
    scores = _numbers(columns.pop("score"), np.float64) if want_scores else None
    if scores is not None and np.isnan(scores).any():
        return None
    ranks = _numbers(columns.pop("rank"), np.int64) if want_ranks else None
    codes, names = _codes(columns.pop("question"))
    chunks = Strings.from_arrow(columns.pop("chunk"))
    _release()
    return Run(name, tuple(names), codes, chunks, ranks, scores, str(path))


# -- TREC, line by line ----------------------------------------------------------------------


def _fields(text: str, count: int, shape: str, *, path: Path, line: int, exact: bool) -> list[str]:
    fields = text.split()
    if len(fields) < count or (exact and len(fields) != count):
        msg = f"expected {count} fields ({shape}), got {len(fields)}"
        raise LabelerError(msg, path=path, line=line)
    return fields


def _label_once(
    seen: dict[tuple[str, str], int], q: str, chunk: str, *, path: Path, line: int
) -> None:
    """Remember where (question, chunk) was labelled; a second label names both lines."""
    if (q, chunk) in seen:
        msg = f"question {q}: chunk {chunk} is labelled twice (lines {seen[q, chunk]} and {line})"
        raise LabelerError(msg, path=path, line=line)
    seen[q, chunk] = line


def _slow_qrels(path: Path) -> Qrels:
    questions: list[str] = []
    chunks: list[str] = []
    grades: list[int] = []
    seen: dict[tuple[str, str], int] = {}
    for line, text in lines(path):
        q, _, chunk, grade = _fields(text, 4, _QRELS_SHAPE, path=path, line=line, exact=True)
        _label_once(seen, q, chunk, path=path, line=line)
        questions.append(q)
        chunks.append(chunk)
        grades.append(_whole(grade, path=path, line=line, field="grade"))
    return Qrels.from_rows(questions, chunks, grades, source=str(path))


def _slow_run(path: Path, name: str, order: Order | None) -> Run:
    want_ranks, want_scores = _wanted(order)
    questions: list[str] = []
    chunks: list[str] = []
    ranks: list[int] = []
    scores: list[float] = []
    for line, text in lines(path):
        fields = _fields(text, 6, _RUN_SHAPE, path=path, line=line, exact=False)
        questions.append(fields[0])
        chunks.append(fields[2])
        if want_ranks:
            ranks.append(_whole(fields[3], path=path, line=line, field="rank"))
        if want_scores:
            scores.append(_number(fields[4], path=path, line=line, field="score"))
    return Run.from_rows(
        name,
        questions,
        chunks,
        ranks=ranks if want_ranks else None,
        scores=scores if want_scores else None,
        source=str(path),
    )


# -- JSONL -----------------------------------------------------------------------------------


def _jsonl_qrels(path: Path) -> Qrels:
    questions: list[str] = []
    chunks: list[str] = []
    grades: list[int] = []
    seen: dict[tuple[str, str], int] = {}
    for line, record in iter_jsonl(path):
        q = text_field(record, "question_id", path=path, line=line)
        chunk = text_field(record, "chunk_id", path=path, line=line)
        if "grade" not in record:
            raise LabelerError("missing", path=path, line=line, field="grade")
        _label_once(seen, q, chunk, path=path, line=line)
        questions.append(q)
        chunks.append(chunk)
        grades.append(_whole(record["grade"], path=path, line=line, field="grade"))
    return Qrels.from_rows(questions, chunks, grades, source=str(path))


def _jsonl_run(path: Path, name: str) -> Run:
    questions: list[str] = []
    chunks: list[str] = []
    ranks: list[int | None] = []
    scores: list[float | None] = []

    def add(line: int, q: str, chunk: str, rank: int | None, score: float | None) -> None:
        for values, value, field in ((ranks, rank, "rank"), (scores, score, "score")):
            if values and (values[0] is None) != (value is None):
                msg = (
                    "given on some lines and not on others"
                    if value is None
                    else ("given here but not on the lines before")
                )
                raise LabelerError(msg, path=path, line=line, field=field)
        questions.append(q)
        chunks.append(chunk)
        ranks.append(rank)
        scores.append(score)

    for line, record in iter_jsonl(path):
        q = text_field(record, "question_id", path=path, line=line)
        if "chunk_ids" in record:
            ids = record["chunk_ids"]
            given = record.get("scores")
            if not isinstance(ids, list):
                raise LabelerError(
                    "expected a list of chunk ids", path=path, line=line, field="chunk_ids"
                )
            if given is not None and (not isinstance(given, list) or len(given) != len(ids)):
                msg = "expected a list of numbers as long as chunk_ids"
                raise LabelerError(msg, path=path, line=line, field="scores")
            for i, chunk in enumerate(ids):
                if not isinstance(chunk, (str, int)) or isinstance(chunk, bool) or chunk == "":
                    raise LabelerError(
                        f"expected chunk ids, got {chunk!r}",
                        path=path,
                        line=line,
                        field="chunk_ids",
                    )
                score = (
                    None
                    if given is None
                    else _number(given[i], path=path, line=line, field="scores")
                )
                add(line, q, str(chunk), None, score)
        else:
            chunk = text_field(record, "chunk_id", path=path, line=line)
            rank = record.get("rank")
            rank = None if rank is None else _whole(rank, path=path, line=line, field="rank")
            score = record.get("score")
            score = None if score is None else _number(score, path=path, line=line, field="score")
            add(line, q, chunk, rank, score)
    has_ranks = bool(ranks) and ranks[0] is not None
    has_scores = bool(scores) and scores[0] is not None
    return Run.from_rows(
        name,
        questions,
        chunks,
        ranks=ranks if has_ranks else None,
        scores=scores if has_scores else None,
        source=str(path),
    )


# -- public readers --------------------------------------------------------------------------


def read_qrels(path: str | Path) -> Qrels:
    """Labels from a TREC qrels, JSONL or JSON file (by extension; see the module docstring)."""
    path = check_file(path)
    suffix = path.suffix.lower()
    if suffix in JSONL:
        return _jsonl_qrels(path)
    if suffix == ".json":
        data = json_file(path)
        try:
            return Qrels.from_dict(data, source=str(path))
        except LabelerError as error:
            raise LabelerError(error.message, path=path, field=error.field) from None
    qrels = _fast_qrels(path)
    if qrels is None:
        return _slow_qrels(path)
    try:
        qrels.pair_keys()  # the duplicate check, cached for the evaluation
    except LabelerError:
        return _slow_qrels(path)  # raises again, naming both lines
    return qrels


def read_run(path: str | Path, *, name: str | None = None, order: Order | None = None) -> Run:
    """A run from a TREC run, JSONL or JSON file; its name defaults to the file's stem.

    ``order`` ("rank" or "score"): a TREC run is only read for the column that this order of
    evaluation needs (a big run has no memory or time to spare); None reads both.
    """
    path = check_file(path)
    name = name or path.stem
    suffix = path.suffix.lower()
    if suffix in JSONL:
        return _jsonl_run(path, name)
    if suffix == ".json":
        data = json_file(path)
        try:
            return Run.from_dict(data, name=name, source=str(path))
        except LabelerError as error:
            raise LabelerError(error.message, path=path, field=error.field) from None
    return _fast_run(path, name, order) or _slow_run(path, name, order)


def read_questions(path: str | Path) -> tuple[QuestionInfo, ...]:
    """Questions JSONL: ``id`` (or ``question_id``), optional ``tags`` (list of text) and
    ``unanswerable`` (true/false); other fields are ignored."""
    path = check_file(path)
    out: dict[str, QuestionInfo] = {}
    for line, record in iter_jsonl(path):
        field = "id" if "id" in record or "question_id" not in record else "question_id"
        qid = text_field(record, field, path=path, line=line)
        tags = record.get("tags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise LabelerError(
                f"expected a list of text, got {tags!r}", path=path, line=line, field="tags"
            )
        flag = record.get("unanswerable", False)
        if not isinstance(flag, bool):
            raise LabelerError(
                f"expected true or false, got {flag!r}", path=path, line=line, field="unanswerable"
            )
        if qid in out:
            raise LabelerError(f"question {qid} appears twice", path=path, line=line, field=field)
        out[qid] = QuestionInfo(qid, tuple(dict.fromkeys(tags)), flag)
    return tuple(out.values())


def _version_folder(path: Path) -> Path:
    """A version folder, or the latest version inside a test set's folder."""
    from labeler.exporters.layout import MANIFEST, VERSION_DIR

    if (path / MANIFEST).is_file() or not path.is_dir():
        return path
    versions = [
        (int(match.group(1)), child)
        for child in path.iterdir()
        if (match := VERSION_DIR.match(child.name)) and child.is_dir()
    ]
    if not versions:
        raise LabelerError("not a test-set version folder (no manifest.json, no v<N>)", path=path)
    return max(versions)[1]


def _check_intact(folder: Path, manifest: dict) -> None:
    """The files evaluation reads must be the ones the manifest recorded: a version is
    immutable, and its content hash is quoted beside every figure."""
    import hashlib

    from labeler.exporters.layout import QRELS, QUESTIONS, changed_files

    recorded = manifest.get("files") or {}
    if all(recorded.get(name, {}).get("sha256") for name in (QRELS, QUESTIONS)):
        digests = {
            n: hashlib.sha256((folder / n).read_bytes()).hexdigest() for n in (QRELS, QUESTIONS)
        }
        changed = [name for name, digest in digests.items() if digest != recorded[name]["sha256"]]
    else:  # an older manifest without per-file digests: check the whole content hash
        changed = changed_files(folder, manifest)
    if changed:
        msg = (
            f"modified after export (differs from the manifest: {', '.join(changed)});"
            " a version is immutable: restore it from version control"
        )
        raise LabelerError(msg, path=folder)


def read_testset(path: str | Path) -> TestSet:
    """A version written by ``labeler export``: ``exports/<name>/v<N>`` (or ``exports/<name>``
    for its latest version). Reads manifest.json, questions.jsonl and qrels.tsv (checked
    against the manifest's digests), not the chunk texts."""
    from labeler.exporters.layout import QRELS, QUESTIONS, parse_questions, read_manifest

    path = Path(path)
    if not path.exists():
        raise LabelerError("no such folder", path=path)
    folder = _version_folder(path)
    manifest = read_manifest(folder)
    _check_intact(folder, manifest)
    questions_path = check_file(folder / QUESTIONS)
    entries = parse_questions(questions_path, questions_path.read_bytes())
    questions = tuple(QuestionInfo(q.id, q.tags, q.unanswerable) for q in entries.values())
    qrels = read_qrels(folder / QRELS).with_questions(q.id for q in questions)
    return TestSet(
        path=str(folder),
        name=str(manifest["name"]),
        version=manifest["version"],
        content_hash=str(manifest["content_hash"]),
        qrels=qrels,
        questions=questions,
    )


# -- DataFrames ------------------------------------------------------------------------------


def _column(df: Any, name: str | None, *, text: bool) -> list | None:
    if name is None:
        return None
    if name not in df.columns:
        raise LabelerError(
            f"no column {name!r}; columns: {', '.join(map(str, df.columns))}", field=name
        )
    column = df[name]
    if column.isna().any():
        raise LabelerError("has empty values", field=name)
    return column.astype(str).tolist() if text else column.tolist()


def qrels_from_dataframe(
    df: Any, *, question: str = "question_id", chunk: str = "chunk_id", grade: str = "grade"
) -> Qrels:
    """Labels from a pandas DataFrame, one row per (question, chunk, grade)."""
    grades = _column(df, grade, text=False)
    for i, g in enumerate(grades):
        if isinstance(g, bool) or not float(g).is_integer():
            raise LabelerError(f"row {i}: expected a whole number, got {g!r}", field=grade)
    return Qrels.from_rows(
        _column(df, question, text=True), _column(df, chunk, text=True), [int(g) for g in grades]
    )


def run_from_dataframe(
    df: Any,
    *,
    name: str = "run",
    question: str = "question_id",
    chunk: str = "chunk_id",
    rank: str | None = "rank",
    score: str | None = "score",
) -> Run:
    """A run from a pandas DataFrame, one row per result; ``rank``/``score`` columns are used
    when present (pass None to ignore one), otherwise the row order is the ranking."""
    rank = rank if rank is not None and rank in df.columns else None
    score = score if score is not None and score in df.columns else None
    return Run.from_rows(
        name,
        _column(df, question, text=True),
        _column(df, chunk, text=True),
        ranks=_column(df, rank, text=False),
        scores=_column(df, score, text=False),
    )


__all__ = [
    "QuestionInfo",
    "TestSet",
    "qrels_from_dataframe",
    "read_qrels",
    "read_questions",
    "read_run",
    "read_testset",
    "run_from_dataframe",
]
