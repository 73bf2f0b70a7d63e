"""Qrels and runs: the two inputs of an evaluation, as columns.

``Qrels`` is question -> {chunk id: grade}; ``Run`` is question -> ranked chunk ids, with ranks
and scores when the source states them. Both are built from dicts here and from files in
``labeler.metrics.files``; they hold one row per label or result in flat arrays (so a million lines
need no million Python objects) and give the plain-dict view back with ``to_dict()``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from labeler.errors import LabelerError, cut
from labeler.metrics.batch import group_positions
from labeler.metrics.keys import (
    HashCollision,
    PairKeys,
    exact_duplicate,
    first_duplicate,
    key_bits,
    sort_kind,
    sorted_keys,
)
from labeler.metrics.strings import Strings, hash64


def _label(value: object, *, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise LabelerError(f"{what} must be text, got {value!r}")


def _codes(questions: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    codes_of: dict[str, int] = {}
    codes = np.fromiter(
        (codes_of.setdefault(q, len(codes_of)) for q in questions),
        dtype=np.int32,
        count=len(questions),
    )
    return codes, list(codes_of)


@dataclass(frozen=True, slots=True, eq=False)
class Qrels:
    """Labels: for every row, a question (index into ``questions``), a chunk and a grade.

    ``questions`` lists every question of the test set in order, including those without a
    label (a question marked unanswerable has none). Grades are whole numbers; a negative grade
    (TREC's "in the pool, not judged") counts as no label, as in trec_eval.
    """

    questions: tuple[str, ...]
    question_index: np.ndarray
    chunks: Strings
    grades: np.ndarray
    source: str | None = None
    marked_unanswerable: frozenset[str] = frozenset()
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.grades)

    @classmethod
    def from_rows(
        cls,
        questions: Sequence[str],
        chunks: Sequence[str],
        grades: Sequence[int],
        *,
        source: str | None = None,
    ) -> Qrels:
        codes, names = _codes(questions)
        return cls(
            tuple(names),
            codes,
            Strings.from_list(chunks),
            np.asarray(grades, dtype=np.int64).reshape(-1),
            source,
        )

    @classmethod
    def from_dict(
        cls, qrels: Mapping[str, Mapping[str, int]], *, source: str | None = None
    ) -> Qrels:
        """``{"q1": {"chunk-a": 2, "chunk-b": 0}}``; a question with ``{}`` has no label."""
        if isinstance(qrels, Qrels):
            return qrels
        if not isinstance(qrels, Mapping):
            raise LabelerError(
                f"qrels must map question -> {{chunk: grade}}, got {type(qrels).__name__}"
            )
        questions: list[str] = []
        chunks: list[str] = []
        grades: list[int] = []
        for question, labels in qrels.items():
            q = _label(question, what="a question id")
            if not isinstance(labels, Mapping):
                raise LabelerError(f"question {q!r}: labels must map chunk -> grade")
            for chunk, grade in labels.items():
                if isinstance(grade, bool) or not isinstance(grade, int):
                    msg = f"question {q!r}, chunk {chunk!r}: expected a whole number, got {grade!r}"
                    raise LabelerError(msg, field="grade")
                questions.append(q)
                chunks.append(_label(chunk, what="a chunk id"))
                grades.append(grade)
        made = cls.from_rows(questions, chunks, grades, source=source)
        return made.with_questions(_label(q, what="a question id") for q in qrels)

    def with_questions(
        self, questions: Iterable[str], *, unanswerable: Iterable[str] = ()
    ) -> Qrels:
        """The same labels with more test-set questions (those not here yet have no label), and
        ``unanswerable``: questions a reviewer marked unanswerable (a version's flag). Both
        kinds of question without a relevant label are left out of the averages; the marked
        ones are counted as *unanswerable*, the others as having *no relevant label*."""
        known = set(self.questions)
        extra = [q for q in dict.fromkeys(questions) if q not in known]
        marked = self.marked_unanswerable | frozenset(unanswerable)
        if not extra and marked == self.marked_unanswerable:
            return self
        return Qrels(
            self.questions + tuple(extra),
            self.question_index,
            self.chunks,
            self.grades,
            self.source,
            marked,
        )

    def to_dict(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {q: {} for q in self.questions}
        for q, chunk, grade in zip(
            self.question_index.tolist(), self.chunks.to_list(), self.grades.tolist(), strict=True
        ):
            out[self.questions[q]][chunk] = grade
        return out

    def pair_keys(self) -> PairKeys | None:
        """Sorted (question, chunk) keys for matching runs (``labeler.metrics.keys``); None
        after a hash collision, when matching works exactly. Computed once; raises if a chunk
        is labelled twice for one question."""
        if "keys" not in self._cache:
            keys: PairKeys | None = sorted_keys(
                self.question_index, _chunk_hashes(self), key_bits(len(self.questions))
            )
            try:
                twice = first_duplicate(keys, self.chunks)
            except HashCollision:
                keys, twice = None, exact_duplicate(self.question_index, self.chunks)
            if twice is not None:
                question = self.questions[int(self.question_index[twice[0]])]
                chunk = self.chunks.get(twice[0])
                msg = f"question {cut(question)}: chunk {cut(chunk)} is labelled twice"
                raise LabelerError(msg, path=self.source)
            self._cache["keys"] = keys
        return self._cache["keys"]

    def ideal_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The labels with a positive grade, grouped by question, highest grade first: the ideal
        ranking nDCG divides by. Returns (question, 0-based position, grade)."""
        if "ideal" not in self._cache:
            rows = np.flatnonzero(self.grades > 0)
            grades = self.grades[rows]
            top = int(grades.max()) if len(rows) else 0
            if top < 2**30 and len(self.questions) < 2**31:
                # Equal grades of one question are interchangeable: any order of them will do.
                key = self.question_index[rows].astype(np.int64) * (top + 1) + (top - grades)
                rows = rows[np.argsort(key, kind=sort_kind(self.question_index))]
            else:
                rows = rows[np.lexsort((-grades, self.question_index[rows]))]
            question = self.question_index[rows]
            self._cache["ideal"] = (question, group_positions(question), self.grades[rows])
        return self._cache["ideal"]


@dataclass(frozen=True, slots=True, eq=False)
class Run:
    """A retriever's output: for every row, a question (index into ``questions``, the run's own
    list in order of appearance), a chunk, and the rank and score when the source states them.
    Rows are in the source's order, which is the ranking when there is no rank column."""

    name: str
    questions: tuple[str, ...]
    question_index: np.ndarray
    chunks: Strings
    ranks: np.ndarray | None = None
    scores: np.ndarray | None = None
    source: str | None = None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.question_index)

    @classmethod
    def from_rows(
        cls,
        name: str,
        questions: Sequence[str],
        chunks: Sequence[str],
        *,
        ranks: Sequence[int] | None = None,
        scores: Sequence[float] | None = None,
        source: str | None = None,
    ) -> Run:
        codes, names = _codes(questions)
        rank_array = None if ranks is None else np.asarray(ranks, dtype=np.int64).reshape(-1)
        score_array = None if scores is None else np.asarray(scores, dtype=np.float64).reshape(-1)
        if score_array is not None and np.isnan(score_array).any():
            raise LabelerError(
                f"run {name!r}: a score is not a number (NaN)", path=source, field="score"
            )
        return cls(
            name, tuple(names), codes, Strings.from_list(chunks), rank_array, score_array, source
        )

    @classmethod
    def from_dict(
        cls,
        run: Mapping[str, Sequence[str] | Mapping[str, float]],
        *,
        name: str = "run",
        source: str | None = None,
    ) -> Run:
        """``{"q1": ["chunk-a", "chunk-b"]}`` (ranked) or ``{"q1": {"chunk-a": 12.5}}`` (scored).

        A mapping of scores is read in its insertion order unless evaluated with
        ``order="score"``; trec_eval and pytrec_eval always sort by score.
        """
        if isinstance(run, Run):
            return run
        if not isinstance(run, Mapping):
            raise LabelerError(
                f"a run must map question -> ranked chunk ids, got {type(run).__name__}"
            )
        questions: list[str] = []
        chunks: list[str] = []
        scores: list[float] = []
        scored = None
        for question, results in run.items():
            q = _label(question, what="a question id")
            is_mapping = isinstance(results, Mapping)
            if isinstance(results, (str, bytes)) or not isinstance(results, (Mapping, Sequence)):
                raise LabelerError(
                    f"question {q!r}: expected a list of chunk ids or {{chunk: score}}"
                )
            if results and scored is not None and scored != is_mapping:
                raise LabelerError(f"question {q!r}: mix of ranked lists and scored mappings")
            if results:
                scored = is_mapping
            for chunk in results:
                questions.append(q)
                chunks.append(_label(chunk, what="a chunk id"))
                if is_mapping:
                    score = results[chunk]
                    if (
                        isinstance(score, bool)
                        or not isinstance(score, (int, float))
                        or math.isnan(score)
                    ):
                        raise LabelerError(
                            f"question {q!r}, chunk {chunk!r}: expected a number, got {score!r}",
                            field="score",
                        )
                    scores.append(float(score))
        return cls.from_rows(
            name, questions, chunks, scores=scores if scored else None, source=source
        )

    def to_dict(self) -> dict[str, list[str]]:
        """Question -> chunk ids in the source's row order."""
        out: dict[str, list[str]] = {q: [] for q in self.questions}
        for q, chunk in zip(self.question_index.tolist(), self.chunks.to_list(), strict=True):
            out[self.questions[q]].append(chunk)
        return out

    def pair_keys(self) -> PairKeys:
        """Sorted (question, chunk) keys of every row, the questions numbered as in the run
        (``labeler.metrics.keys``). Computed once: a reader computes them while the test set
        is read, and the evaluation re-numbers them by the test set's questions
        (``keys.rekeyed``) instead of sorting the rows again."""
        if "keys" not in self._cache:
            bits = key_bits(len(self.questions))
            self._cache["keys"] = sorted_keys(self.question_index, _chunk_hashes(self), bits)
        return self._cache["keys"]

    def first_listed_twice(self) -> tuple[int, int] | None:
        """The first two rows that list the same chunk for one question (``first_duplicate``
        of ``pair_keys``), or None. Computed once: a reader checks while the test set is read;
        raises ``HashCollision`` (each time) when two ids share a key."""
        if "twice" not in self._cache:
            try:
                self._cache["twice"] = first_duplicate(self.pair_keys(), self.chunks)
            except HashCollision:
                self._cache["twice"] = HashCollision
        if self._cache["twice"] is HashCollision:
            raise HashCollision
        return self._cache["twice"]

    def records(self) -> dict[str, list[tuple[str, int | None, float | None]]]:
        """Question -> (chunk, rank, score) in the source's row order: the plain view."""
        out: dict[str, list[tuple[str, int | None, float | None]]] = {q: [] for q in self.questions}
        n = len(self)
        ranks = self.ranks.tolist() if self.ranks is not None else [None] * n
        scores = self.scores.tolist() if self.scores is not None else [None] * n
        for q, chunk, rank, score in zip(
            self.question_index.tolist(), self.chunks.to_list(), ranks, scores, strict=True
        ):
            out[self.questions[q]].append((chunk, rank, score))
        return out


T = TypeVar("T", "Qrels", "Run")


def with_hashes(table: T, hashes: np.ndarray) -> T:
    """``table`` (a ``Qrels`` or a ``Run``) given its chunk ids' hashes (``hash64``), as its
    reader computed them while the ids were at hand: ``pair_keys`` uses them (once) instead of
    hashing every id again."""
    table._cache["hashes"] = hashes
    return table


def _chunk_hashes(table: Qrels | Run) -> np.ndarray:
    hashes = table._cache.pop("hashes", None)
    return hash64(table.chunks) if hashes is None else hashes


def as_qrels(qrels: Qrels | Mapping[str, Mapping[str, int]]) -> Qrels:
    return qrels if isinstance(qrels, Qrels) else Qrels.from_dict(qrels)


def as_run(run: Run | Mapping[str, Any], *, name: str = "run") -> Run:
    return run if isinstance(run, Run) else Run.from_dict(run, name=name)


__all__ = ["Qrels", "Run", "as_qrels", "as_run", "with_hashes"]
