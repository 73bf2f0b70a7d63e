"""Two runs and the chunks that can still change which of them is better: a label-next pool.

For runs A and B compared on a metric at cutoff k, the chunks *in play* for a question are the
union of A's top k and B's top k (for a metric without a cutoff, the whole rankings, cut to
``depth``): the depth-k pool of the two runs. Each is a *slot* with

- its place in A's and in B's top k (0-based, or -1 when that run's top k lacks it),
- its rank anywhere in each run's full ranking (1-based, 0 when the run never returned it),
  which is what the relevance model reads: a chunk A ranks 12th is not a chunk A never found,
- its grade when someone labelled it, else -1.

Labels of chunks outside the pool still count: they raise recall's and MAP's number of relevant
chunks and nDCG's ideal DCG, as in ``evaluate``. Unlabelled chunks outside the pool count as
not relevant, as in ``evaluate``; nothing short of judging the corpus could bound them.

Slots are grouped by question (``starts``), so every per-question figure is a segment sum.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from labeler.errors import LabelerError
from labeler.metrics.evaluation import RankedLayout, ranked_layout
from labeler.metrics.kept import Kept
from labeler.metrics.keys import HashCollision, key_bits, match, sorted_keys
from labeler.metrics.registry import parse_label_next_metric
from labeler.metrics.strings import Strings, hash64
from labeler.metrics.tables import Qrels, Run, as_qrels, as_run
from labeler.metrics.types import DEFAULT_OPTIONS, Metric, Options

GRADES = (0, 1, 2)


@dataclass(frozen=True, slots=True, eq=False)
class Contest:
    """Runs ``run_a`` and ``run_b`` on ``metric`` over their pool (see the module docstring).

    Per slot (grouped by question): ``question``, ``pos_a``/``pos_b``, ``rank_a``/``rank_b``,
    ``grade`` and the chunk id (``chunk_id(i)``). Per question: ``starts`` (slot offsets,
    length Q + 1), ``out_grades`` (Q x 3: labels of each grade on chunks outside the pool).
    ``observations``: (rank in A, rank in B, grade, question) of every labelled chunk either run
    returned, at any depth: what the relevance model learns from.
    """

    run_a: str
    run_b: str
    metric: Metric
    options: Options
    questions: tuple[str, ...]
    cut: int | None
    question: np.ndarray
    pos_a: np.ndarray
    pos_b: np.ndarray
    rank_a: np.ndarray
    rank_b: np.ndarray
    grade: np.ndarray
    starts: np.ndarray
    out_grades: np.ndarray
    observations: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    _chunks: tuple[Strings, np.ndarray]
    _keys: list = field(default_factory=list, repr=False)  # question_keys, once worked out

    @property
    def size(self) -> int:
        """Slots in the pool."""
        return len(self.grade)

    @property
    def num_questions(self) -> int:
        return len(self.questions)

    @property
    def unjudged(self) -> np.ndarray:
        return self.grade < 0

    @property
    def labelled(self) -> int:
        return int((self.grade >= 0).sum())

    def chunk_id(self, slot: int) -> str:
        strings, rows = self._chunks
        return strings.get(int(rows[slot]))

    def chunk_ids(self, slots: np.ndarray | Sequence[int]) -> list[str]:
        strings, rows = self._chunks
        return strings.to_list(rows[np.asarray(slots, dtype=np.int64)])

    def counts(self) -> np.ndarray:
        """Slots per question."""
        return np.diff(self.starts)

    def question_keys(self) -> list[bytes]:
        """``question_key`` of every question, worked out once per contest (label next's
        caches each ask for them)."""
        if len(self._keys) != self.num_questions:
            self._keys[:] = [self.question_key(q) for q in range(self.num_questions)]
        return self._keys

    def question_key(self, q: int) -> bytes:
        """A cache key of everything of question ``q`` that its ``d`` and its bounds read, for
        one metric: its slots' places in A's and B's top k, their grades and its labels outside
        the pool. A 128-bit digest of those bytes (whose length fixes the slot count): two
        different questions share one with odds of 2**-128, and a key stays small however
        long the question's pool."""
        start, end = int(self.starts[q]), int(self.starts[q + 1])
        digest = hashlib.blake2b(digest_size=16)
        digest.update(self.pos_a[start:end].tobytes())
        digest.update(self.pos_b[start:end].tobytes())
        digest.update(self.grade[start:end].tobytes())
        digest.update(self.out_grades[q].tobytes())
        return digest.digest()

    def with_grades(self, grade: np.ndarray) -> Contest:
        """The same pool with more grades (-1: unjudged): the simulations' oracle step. Slots
        judged here for the first time join the relevance model's observations."""
        grade = np.asarray(grade, dtype=np.int8)
        new = (self.grade < 0) & (grade >= 0)
        rank_a, rank_b, grades, question = self.observations
        observations = (
            np.concatenate([rank_a, self.rank_a[new]]),
            np.concatenate([rank_b, self.rank_b[new]]),
            np.concatenate([grades, grade[new]]),
            np.concatenate([question, self.question[new]]),
        )
        return Contest(
            self.run_a,
            self.run_b,
            self.metric,
            self.options,
            self.questions,
            self.cut,
            self.question,
            self.pos_a,
            self.pos_b,
            self.rank_a,
            self.rank_b,
            grade,
            self.starts,
            self.out_grades,
            observations,
            self._chunks,
        )

    def take(self, questions: np.ndarray) -> Contest:
        """The questions at the given (sorted) indices, with their slots."""
        questions = np.asarray(questions, dtype=np.int64)
        counts = self.counts()[questions]
        slots = (
            np.concatenate([np.arange(self.starts[q], self.starts[q + 1]) for q in questions])
            if len(questions)
            else np.zeros(0, dtype=np.int64)
        ).astype(np.int64)
        starts = np.zeros(len(questions) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        renumber = np.repeat(np.arange(len(questions), dtype=np.int32), counts)
        strings, rows = self._chunks
        return Contest(
            self.run_a,
            self.run_b,
            self.metric,
            self.options,
            tuple(self.questions[q] for q in questions.tolist()),
            self.cut,
            renumber,
            self.pos_a[slots],
            self.pos_b[slots],
            self.rank_a[slots],
            self.rank_b[slots],
            self.grade[slots],
            starts,
            self.out_grades[questions],
            self.observations,
            (strings, rows[slots]),
        )


# -- building ------------------------------------------------------------------------------


def _locate(
    question: np.ndarray,
    chunks: Strings,
    other: tuple,
    bits: int,
    hashes: np.ndarray | None = None,
) -> np.ndarray:
    """For each (question, chunk), its row in the other run's ranking (-1: absent).

    ``other`` is (question, chunks, sorted keys) of the other run. Hash keys find candidates;
    a collision falls back to exact Python dictionaries (slower, same answer).
    """
    other_question, other_chunks, other_keys = other
    found = np.full(len(question), -1, dtype=np.int64)
    if len(question) == 0 or len(other_question) == 0:
        return found
    try:
        mine = _keys(question, chunks, bits, hashes)
        rows, other_rows = match(other_keys, other_chunks, mine, chunks)
    except HashCollision:
        index = {
            pair: i
            for i, pair in enumerate(
                zip(other_question.tolist(), other_chunks.to_list(), strict=True)
            )
        }
        for i, pair in enumerate(zip(question.tolist(), chunks.to_list(), strict=True)):
            found[i] = index.get(pair, -1)
        return found
    found[rows] = other_rows
    return found


def _keys(question: np.ndarray, chunks: Strings, bits: int, hashes: np.ndarray | None = None):
    """Sorted (question, chunk) keys; ``hashes`` (of ``chunks``, reused when given) is
    consumed."""
    return sorted_keys(question, hash64(chunks) if hashes is None else hashes, bits)


def _position_of(rows: np.ndarray, side: _Side) -> np.ndarray:
    """0-based position in ``side``'s ranking of the rows found there (-1: absent)."""
    if len(side.position) == 0:
        return np.full(len(rows), -1, dtype=np.int64)
    return np.where(rows >= 0, side.position[np.maximum(rows, 0)], -1)


@dataclass(frozen=True, slots=True)
class _Side:
    """A run's results in ranking order, with their chunk ids (no grades: ``layout.grades``)."""

    layout: RankedLayout
    chunks: Strings

    @property
    def question(self) -> np.ndarray:
        return self.layout.question

    @property
    def position(self) -> np.ndarray:
        return self.layout.position


def _side(questions: tuple[str, ...], run: Run, options: Options) -> _Side:
    layout = ranked_layout(questions, run, options)
    return _Side(layout, run.chunks if layout.rows is None else run.chunks.take(layout.rows))


def _check_grades(qrels: Qrels) -> None:
    high = np.flatnonzero(qrels.grades > GRADES[-1])
    if len(high):
        i = int(high[0])
        question = qrels.questions[int(qrels.question_index[i])]
        msg = (
            f"question {question}, chunk {qrels.chunks.get(i)}: grade {int(qrels.grades[i])};"
            " label next works on grades 0, 1 and 2"
        )
        raise LabelerError(msg, path=qrels.source, field="grade")


def build_contest(
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    run_a: Run | Mapping,
    run_b: Run | Mapping,
    metric: str | Metric,
    *,
    questions: Iterable[str] | None = None,
    unanswerable: Iterable[str] = (),
    options: Options = DEFAULT_OPTIONS,
) -> Contest:
    """The pool of ``run_a`` and ``run_b`` for ``metric``, with what the labels say of it.

    ``questions``: the questions compared (default: every question of the qrels and of either
    run); run results for other questions are ignored. ``unanswerable``: questions a reviewer
    marked as having no relevant chunk (besides those the qrels mark), so every chunk of theirs
    is known not to be relevant.
    """
    parsed = parse_label_next_metric(metric)
    if options.min_grade not in (1, 2):
        raise LabelerError(f"expected 1 or 2, got {options.min_grade!r}", field="min-grade")
    qrels, run_a, run_b = as_qrels(qrels), as_run(run_a, name="A"), as_run(run_b, name="B")
    _check_grades(qrels)
    wanted = list(dict.fromkeys(questions)) if questions is not None else None
    everything = qrels.with_questions(
        wanted if wanted is not None else (*run_a.questions, *run_b.questions)
    )
    key = (
        id(run_a),
        id(run_b),
        everything.questions,
        None if wanted is None else tuple(wanted),
        parsed.k,
        options,
    )
    pool = _POOLS.get(
        key, lambda: _make_pool(everything.questions, wanted, run_a, run_b, parsed.k, options)
    )
    a_grade = pool.a.layout.grades(everything, run_a)
    b_grade = pool.b.layout.grades(everything, run_b)
    grade = np.concatenate([a_grade[pool.from_a], b_grade[pool.from_b]]).astype(np.int8)
    grade[grade < 0] = -1
    grade = grade[pool.order]
    question, renumber = pool.question, pool.renumber
    keep = renumber >= 0

    marked = set(unanswerable) | set(everything.marked_unanswerable)
    closed = [renumber[i] for i, q in enumerate(everything.questions) if keep[i] and q in marked]
    if closed:
        grade[np.isin(question, np.asarray(closed, dtype=np.int32)) & (grade < 0)] = 0

    n = len(pool.starts) - 1
    labelled = everything.grades >= 0
    label_question = renumber[everything.question_index[labelled]]
    label_grade = everything.grades[labelled]
    on_kept = label_question >= 0
    totals = np.zeros((n, 3), dtype=np.int64)
    np.add.at(totals, (label_question[on_kept], label_grade[on_kept]), 1)
    in_pool_counts = np.zeros((n, 3), dtype=np.int64)
    judged_slot = grade >= 0
    np.add.at(in_pool_counts, (question[judged_slot], grade[judged_slot]), 1)
    out_grades = np.maximum(totals - in_pool_counts, 0)
    out_grades[:, 0] = 0  # a grade 0 outside the pool changes no figure

    return Contest(
        run_a=run_a.name,
        run_b=run_b.name,
        metric=parsed,
        options=options,
        questions=pool.questions,
        cut=parsed.k,
        question=question,
        pos_a=pool.pos_a,
        pos_b=pool.pos_b,
        rank_a=pool.rank_a,
        rank_b=pool.rank_b,
        grade=grade,
        starts=pool.starts,
        out_grades=out_grades,
        observations=_observations(pool, a_grade, b_grade),
        _chunks=pool.chunks,
    )


@dataclass(frozen=True, slots=True, eq=False)
class _Pool:
    """What two runs decide of a contest whatever the labels: the slots in order, with their
    places, ranks and chunk ids, and where each run's results sit in the other's ranking.

    ``from_a`` are A's rows of the slots and ``from_b`` B's rows of the slots only B has, in
    the order the slots were found; ``order`` puts them in the contest's order. ``a_in_b`` is
    the 0-based position in B's ranking of each of A's results on a compared question (-1:
    not there, or not compared), ``b_in_a`` the same the other way.
    """

    run_a: Run  # kept alive with the pool (its key holds their ids)
    run_b: Run
    a: _Side
    b: _Side
    questions: tuple[str, ...]
    renumber: np.ndarray
    from_a: np.ndarray
    from_b: np.ndarray
    order: np.ndarray
    question: np.ndarray
    pos_a: np.ndarray
    pos_b: np.ndarray
    rank_a: np.ndarray
    rank_b: np.ndarray
    starts: np.ndarray
    chunks: tuple[Strings, np.ndarray]
    a_in_b: np.ndarray
    b_in_a: np.ndarray


# Pools kept while their runs and questions stay: label next asks again after every grade, when
# only the labels changed; matching the two runs' chunk ids took most of building a contest.
# A pool holds its runs, so the ids in its key cannot pass to other runs while it is kept.
_POOLS = Kept(4)  # a pool of two 1M-line runs holds about 50 MB


def _make_pool(
    questions: tuple[str, ...],
    wanted: list[str] | None,
    run_a: Run,
    run_b: Run,
    cut: int | None,
    options: Options,
) -> _Pool:
    a, b = _side(questions, run_a, options), _side(questions, run_b, options)
    total = len(questions)
    keep = np.ones(total, dtype=bool)
    if wanted is not None:
        keep[:] = False
        index = {q: i for i, q in enumerate(questions)}
        keep[[index[q] for q in wanted]] = True

    bits = key_bits(total)
    hash_a, hash_b = hash64(a.chunks), hash64(b.chunks)
    full_a = (a.question, a.chunks, _keys(a.question, a.chunks, bits, hash_a.copy()))
    full_b = (b.question, b.chunks, _keys(b.question, b.chunks, bits, hash_b.copy()))

    def elsewhere(side: _Side, hashes: np.ndarray, other: tuple, other_side: _Side):
        """Each compared result's position in the other run's ranking, at any depth."""
        found = np.full(len(side.question), -1, dtype=np.int64)
        rows = np.flatnonzero(keep[side.question])
        located = _locate(side.question[rows], side.chunks.take(rows), other, bits, hashes[rows])
        found[rows] = _position_of(located, other_side)
        return found

    a_in_b, b_in_a = elsewhere(a, hash_a, full_b, b), elsewhere(b, hash_b, full_a, a)

    def in_pool(side: _Side) -> np.ndarray:
        mask = keep[side.question]
        if cut is not None:
            mask &= side.position < cut
        return np.flatnonzero(mask)

    pool_a, pool_b = in_pool(a), in_pool(b)
    chunks_a, chunks_b = a.chunks.take(pool_a), b.chunks.take(pool_b)
    b_full_pos, a_full_pos = a_in_b[pool_a], b_in_a[pool_b]
    in_a_pool = (a_full_pos >= 0) if cut is None else (a_full_pos >= 0) & (a_full_pos < cut)
    only_b = np.flatnonzero(~in_a_pool)

    def in_cut(pos: np.ndarray) -> np.ndarray:
        return pos if cut is None else np.where(pos < cut, pos, -1)

    question = np.concatenate([a.question[pool_a], b.question[pool_b][only_b]]).astype(np.int32)
    pos_a = np.concatenate([a.position[pool_a], np.full(len(only_b), -1)]).astype(np.int32)
    pos_b = np.concatenate([in_cut(b_full_pos), b.position[pool_b][only_b]]).astype(np.int32)
    rank_a = np.concatenate([a.position[pool_a] + 1, a_full_pos[only_b] + 1]).astype(np.int32)
    rank_b = np.concatenate([b_full_pos + 1, b.position[pool_b][only_b] + 1]).astype(np.int32)

    # One strings column for every slot: A's pool rows, then B's.
    both = Strings(
        np.concatenate([chunks_a.starts, chunks_b.starts[only_b] + len(chunks_a.data)]),
        np.concatenate([chunks_a.lengths, chunks_b.lengths[only_b]]),
        np.concatenate([chunks_a.data, chunks_b.data]),
    )
    rows = np.arange(len(question), dtype=np.int64)

    # Compact to the kept questions, slots grouped by question, A's order first.
    kept = np.flatnonzero(keep)
    renumber = np.full(total, -1, dtype=np.int32)
    renumber[kept] = np.arange(len(kept), dtype=np.int32)
    question = renumber[question]
    big = np.iinfo(np.int32).max
    key_a, key_b = np.where(pos_a >= 0, pos_a, big), np.where(pos_b >= 0, pos_b, big)
    # By question, then by the better of the two positions: the runs' top chunks alternate.
    order = np.lexsort((key_b, key_a, np.minimum(key_a, key_b), question))
    counts = np.bincount(question, minlength=len(kept))
    starts = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return _Pool(
        run_a=run_a,
        run_b=run_b,
        a=a,
        b=b,
        questions=tuple(questions[i] for i in kept.tolist()),
        renumber=renumber,
        from_a=pool_a,
        from_b=pool_b[only_b],
        order=order,
        question=question[order],
        pos_a=pos_a[order],
        pos_b=pos_b[order],
        rank_a=rank_a[order],
        rank_b=rank_b[order],
        starts=starts,
        chunks=(both, rows[order]),
        a_in_b=a_in_b,
        b_in_a=b_in_a,
    )


def _observations(
    pool: _Pool, a_grade: np.ndarray, b_grade: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rank in A, rank in B, grade, question) of every labelled chunk either run returned."""
    a, b, keep = pool.a, pool.b, pool.renumber >= 0
    judged_a = np.flatnonzero((a_grade >= 0) & keep[a.question])
    judged_b = np.flatnonzero((b_grade >= 0) & keep[b.question])
    only_b = pool.b_in_a[judged_b] < 0
    rank_a = np.concatenate([a.position[judged_a] + 1, np.zeros(int(only_b.sum()))])
    rank_b = np.concatenate([pool.a_in_b[judged_a] + 1, b.position[judged_b][only_b] + 1])
    grade = np.concatenate([a_grade[judged_a], b_grade[judged_b][only_b]])
    question = pool.renumber[np.concatenate([a.question[judged_a], b.question[judged_b][only_b]])]
    return (
        rank_a.astype(np.int32),
        rank_b.astype(np.int32),
        grade.astype(np.int8),
        question.astype(np.int32),
    )


__all__ = ["GRADES", "Contest", "build_contest"]
