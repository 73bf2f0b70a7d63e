"""``evaluate(qrels, run, metrics)``: one run against one test set, per question and averaged.

What it does, in order:

1. Reads each ranking in the order asked for (``Options.order``) and cuts it to ``depth``.
2. Looks up the grade of every result (unlabelled chunks get none and count as not relevant).
3. Computes every metric for every question of the test set at once (``Batch``); a test-set
   question the run has no results for is an empty ranking and scores 0 (trec_eval ``-c``).
4. Averages over the questions that have at least one relevant label at ``min_grade``; the
   others are *unanswerable* and counted apart (trec_eval averages them in as 0s; ask for
   ``trec_eval_mean`` to get its figure). Run questions that are not in the test set are
   ignored and listed in ``RunResult.ignored``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from labeler.errors import LabelerError, cut, shown
from labeler.metrics.batch import Batch, group_positions
from labeler.metrics.keys import (
    HashCollision,
    PairKeys,
    exact_duplicate,
    first_duplicate,
    key_bits,
    match,
    rekeyed,
    sorted_keys,
)
from labeler.metrics.registry import DEFAULT_KS, get, parse_metrics
from labeler.metrics.strings import byte_order, hash64
from labeler.metrics.tables import Qrels, Run, as_qrels, as_run
from labeler.metrics.types import Gains, Metric, Options, Order
from labeler.readers.runs import lines_listing


@dataclass(frozen=True, slots=True, eq=False)
class RunResult:
    """Per-question values of every metric for one run, and what the averages are over.

    ``values[name][i]`` is the value for ``questions[i]``. ``scored`` marks the questions in
    the averages (at least one relevant label); ``labelled`` those with any label line;
    ``retrieved`` those the run returned results for; ``marked`` those a reviewer marked
    unanswerable. A question left out of the averages is either *unanswerable* (marked) or
    has *no relevant label* (not marked, and no label at ``min_grade`` or above).
    """

    run: str
    metrics: tuple[Metric, ...]
    questions: tuple[str, ...]
    values: Mapping[str, np.ndarray]
    scored: np.ndarray
    labelled: np.ndarray
    retrieved: np.ndarray
    ignored: tuple[str, ...]
    options: Options
    marked: np.ndarray | None = None

    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(str(m) for m in self.metrics)

    @property
    def num_scored(self) -> int:
        return int(self.scored.sum())

    @property
    def left_out(self) -> int:
        """Test-set questions without a relevant label: left out of the averages."""
        return int((~self.scored).sum())

    @property
    def unanswerable(self) -> int:
        """Left-out questions a reviewer marked unanswerable."""
        if self.marked is None:
            return 0
        return int((~self.scored & self.marked).sum())

    @property
    def no_relevant_label(self) -> int:
        """Left-out questions nobody marked unanswerable, whose labels are all below
        ``min_grade`` (or that have none)."""
        return self.left_out - self.unanswerable

    @property
    def missing(self) -> int:
        """Test-set questions the run has no results for (each scores 0)."""
        return int((~self.retrieved).sum())

    def _values(self, metric: str | Metric) -> np.ndarray:
        try:
            return self.values[str(metric)]
        except KeyError:
            msg = f"{metric} was not computed; computed: {', '.join(self.metric_names)}"
            raise LabelerError(msg, field="metrics") from None

    def mean_over(self, metric: str | Metric, mask: np.ndarray) -> float | None:
        """Mean over the questions in ``mask`` (None when there are none)."""
        values = self._values(metric)[mask]
        return float(values.mean()) if len(values) else None

    def mean(self, metric: str | Metric) -> float | None:
        """Mean over the scored questions; None when no question has a relevant label."""
        return self.mean_over(metric, self.scored)

    def means(self) -> dict[str, float | None]:
        return {name: self.mean(name) for name in self.metric_names}

    def trec_eval_mean(self, metric: str | Metric, *, complete: bool = False) -> float | None:
        """The figure trec_eval prints on its ``all`` line: the mean over the questions that
        have a label line and results (``complete=False``) or a label line (``-c``), counting
        questions without a relevant label as 0."""
        mask = self.labelled if complete else self.labelled & self.retrieved
        return self.mean_over(metric, mask)

    def per_question(self, metric: str | Metric, *, scored_only: bool = True) -> dict[str, float]:
        values = self._values(metric).tolist()
        keep = self.scored.tolist()
        return {
            q: v
            for q, v, k in zip(self.questions, values, keep, strict=True)
            if k or not scored_only
        }


def _mapped_questions(questions: tuple[str, ...], run: Run) -> tuple[np.ndarray, tuple[str, ...]]:
    """Each run question's index in the test set's ``questions`` (-1: not in it), and the
    ignored ones."""
    index = {q: i for i, q in enumerate(questions)}
    mapped = np.fromiter((index.get(q, -1) for q in run.questions), np.int32, len(run.questions))
    ignored = tuple(q for q, m in zip(run.questions, mapped.tolist(), strict=True) if m < 0)
    return mapped, ignored


def _ranking_order(run: Run, rows: np.ndarray | None, order: Order) -> np.ndarray | None:
    """The permutation of ``rows`` (None: all the run's rows) that groups them by question, each
    group in rank order; None when they already are (files are usually written that way)."""
    if rows is None:
        rows = slice(None)  # every row, without a copy of any column
    elif len(rows) == 0:
        return None
    group = run.question_index[rows]
    if len(group) == 0:
        return None
    same = group[1:] == group[:-1]
    grouped = bool(np.all(group[1:] >= group[:-1]))
    if order == "rank":
        if run.ranks is None:
            return None if grouped else np.argsort(group, kind="stable")
        ranks = run.ranks[rows]
        if grouped and bool(np.all(~same | (ranks[1:] >= ranks[:-1]))):
            return None
        return np.lexsort((ranks, group))  # stable: equal ranks keep the file's order
    if run.scores is None:
        msg = f"run {run.name!r} has no scores; read it with order 'rank' or give it scores"
        raise LabelerError(msg, path=run.source, field="order")
    scores = run.scores[rows]
    if grouped and bool(np.all(~same | (scores[1:] < scores[:-1]))):
        return None
    perm = np.lexsort((-scores, group))
    tied = (group[perm][1:] == group[perm][:-1]) & (scores[perm][1:] == scores[perm][:-1])
    if not tied.any():
        return perm
    # trec_eval breaks score ties by docno, descending, byte-wise (strcmp).
    involved = np.zeros(len(group), dtype=bool)
    involved[perm[1:][tied]] = True
    involved[perm[:-1][tied]] = True
    chunk_rank = np.zeros(len(group), dtype=np.int64)
    chosen = np.flatnonzero(involved) if isinstance(rows, slice) else rows[involved]
    chunk_rank[involved] = byte_order(run.chunks, chosen)
    return np.lexsort((-chunk_rank, -scores, group))


def _listed_twice(run: Run, question: str, chunk: str) -> LabelerError:
    """The error for a chunk a run lists twice for one question, naming the lines of both
    when the run's file is at hand (a run is read into columns, without its lines: the file
    is read again, on this error path only)."""
    lines = lines_listing(run.source, question, chunk) if run.source else []
    msg = f"run {shown(run.name)}: question {cut(question)}: chunk {cut(chunk)} is listed twice"
    if len(lines) >= 2:
        first, second = lines[:2]
        msg += f" (lines {first} and {second})" if first != second else f" (on line {first})"
        return LabelerError(msg, path=run.source, line=lines[1], field="chunk_id")
    return LabelerError(msg, path=run.source, field="chunk_id")


def _result_keys(
    run: Run, mapped: np.ndarray, question: np.ndarray, rows: np.ndarray | None, bits: int
) -> PairKeys:
    """(question, chunk) keys of the results ``rows`` (None: all, in order), by test-set
    question: the run's own sorted keys re-numbered when they cover the rows and hold enough
    bits, else sorted here."""
    if rows is None and bits <= key_bits(len(run.questions)):
        keys = rekeyed(run.pair_keys(), mapped, bits)
        if keys is not None:
            return keys
    chunks = run.chunks if rows is None else run.chunks.take(rows)
    return sorted_keys(question, hash64(chunks), bits)


def _grades(
    qrels: Qrels, run: Run, mapped: np.ndarray, question: np.ndarray, rows: np.ndarray | None
) -> np.ndarray:
    """The grade of each result ``rows`` of the run (None: all, in order; -1 when nobody
    labelled it), whose test-set question is ``question`` (``mapped``: the test-set index of
    each run question); raises if the run lists a chunk twice for one question."""
    labels = qrels.pair_keys()
    chunks = run.chunks if rows is None else run.chunks.take(rows)
    count = len(question)
    twice = None
    if labels is not None:
        results = _result_keys(run, mapped, question, rows, labels.bits)
        try:
            own = results is run.pair_keys()  # the run's own keys, checked when it was read
            twice = run.first_listed_twice() if own else first_duplicate(results, chunks)
            if twice is None:
                result_rows, label_rows = match(labels, qrels.chunks, results, chunks)
                grades = np.full(count, -1, dtype=np.int64)
                grades[result_rows] = qrels.grades[label_rows]
                return grades
        except HashCollision:
            twice = None
    twice = twice or exact_duplicate(question, chunks)  # also the exact path's own check
    if twice is not None:
        raise _listed_twice(run, qrels.questions[int(question[twice[0]])], chunks.get(twice[0]))
    # Exact path: only after two different ids shared a key.
    lookup = {
        (q, chunk): grade
        for q, chunk, grade in zip(
            qrels.question_index.tolist(),
            qrels.chunks.to_list(),
            qrels.grades.tolist(),
            strict=True,
        )
    }
    return np.fromiter(
        (lookup.get(pair, -1) for pair in zip(question.tolist(), chunks.to_list(), strict=True)),
        dtype=np.int64,
        count=count,
    )


@dataclass(frozen=True, slots=True, eq=False)
class RankedRows:
    """A run read against a test set: its results in evaluation order, grouped by question.

    ``rows`` are the run's rows (None: all of them, in the run's own order); ``question`` the
    test-set index of each, ``position`` its 0-based place in the question's ranking (after
    ``Options.order``, cut to ``Options.depth``), ``grade`` its label (-1: nobody labelled it).
    ``ignored`` lists the run's questions that are not in the test set.
    """

    rows: np.ndarray | None
    question: np.ndarray
    position: np.ndarray
    grade: np.ndarray
    ignored: tuple[str, ...]


def ranked_rows(qrels: Qrels, run: Run, options: Options) -> RankedRows:
    """Every ranking of ``run`` in the order ``options`` asks for, with the grade of each
    result: what ``evaluate`` scores, and what label-next reasons about."""
    layout = ranked_layout(qrels.questions, run, options)
    return RankedRows(
        layout.rows,
        layout.question,
        layout.position,
        layout.grades(qrels, run),
        layout.ignored,
    )


@dataclass(frozen=True, slots=True, eq=False)
class RankedLayout:
    """``ranked_rows`` without the grades: what the run and the test set's list of questions
    decide (label next keeps it while only the labels change). ``grades`` adds the labels."""

    mapped: np.ndarray
    ignored: tuple[str, ...]
    rows: np.ndarray | None
    question: np.ndarray
    position: np.ndarray
    graded_rows: np.ndarray | None  # the rows the grades are looked up for (before the depth)
    graded_question: np.ndarray
    kept: np.ndarray | None  # of those, the ones within the depth (None: all)

    def grades(self, qrels: Qrels, run: Run) -> np.ndarray:
        """The grade of each result (-1 when nobody labelled it), for ``qrels`` whose list of
        questions is the one this layout was made for."""
        grade = _grades(qrels, run, self.mapped, self.graded_question, self.graded_rows)
        return grade if self.kept is None else grade[self.kept]


def ranked_layout(questions: tuple[str, ...], run: Run, options: Options) -> RankedLayout:
    """Where each result of ``run`` sits, for a test set of ``questions`` (see
    ``ranked_rows``)."""
    if run.questions == questions:  # the test set lists the run's questions, in its order
        mapped, ignored = np.arange(len(questions), dtype=np.int32), ()
        row_question = run.question_index.astype(np.int32, copy=False).view()  # no copy ...
        row_question.flags.writeable = False  # ... and read only
    else:
        mapped, ignored = _mapped_questions(questions, run)
        row_question = mapped[run.question_index] if len(run) else np.zeros(0, dtype=np.int32)
    # None: every row (every question of the run is in the test set, as is usual).
    rows: np.ndarray | None = np.flatnonzero(row_question >= 0) if ignored else None
    permutation = _ranking_order(run, rows, options.order)
    if permutation is None and rows is None:  # the common case: no copies needed
        question = row_question
    else:
        rows = np.arange(len(run)) if rows is None else rows
        rows = rows if permutation is None else rows[permutation]
        question = row_question[rows]
    graded_rows, graded_question = rows, question
    position = group_positions(question)
    kept = None
    if options.depth is not None:
        kept = position < options.depth
        question, position = question[kept], position[kept]
        rows = np.flatnonzero(kept) if rows is None else rows[kept]
    return RankedLayout(
        mapped, ignored, rows, question, position, graded_rows, graded_question, kept
    )


def _marked(qrels: Qrels) -> np.ndarray:
    """Whether each test-set question is marked unanswerable."""
    marked = qrels.marked_unanswerable
    if not marked:
        return np.zeros(len(qrels.questions), dtype=bool)
    return np.fromiter(
        (q in marked for q in qrels.questions), dtype=bool, count=len(qrels.questions)
    )


def evaluate(
    qrels: Qrels | Mapping[str, Mapping[str, int]],
    run: Run | Mapping[str, Any],
    metrics: str | Sequence[str | Metric] | None = None,
    *,
    ks: Sequence[int] | str = DEFAULT_KS,
    min_grade: int = 1,
    order: Order = "rank",
    depth: int | None = None,
    gains: Gains = "linear",
) -> RunResult:
    """Score one run against a test set: per-question values of every metric, and averages.

    ``qrels`` and ``run`` are ``Qrels``/``Run`` (from ``labeler.metrics.files``) or plain dicts:
    ``{"q1": {"chunk-a": 2}}`` and ``{"q1": ["chunk-a", "chunk-b"]}``. ``metrics`` are names
    such as ``"ndcg@10,recall@k"`` (``@k``: each cutoff of ``ks``).

    >>> result = evaluate({"q1": {"a": 1}}, {"q1": ["b", "a"]}, "mrr,recall@1")
    >>> result.means()
    {'mrr': 0.5, 'recall@1': 0.0}
    """
    options = Options(min_grade=min_grade, order=order, depth=depth, gains=gains)
    parsed = parse_metrics(metrics, ks)
    qrels = as_qrels(qrels)
    run = as_run(run)
    n = len(qrels.questions)

    ranked = ranked_rows(qrels, run, options)
    question, position, grade = ranked.question, ranked.position, ranked.grade
    retrieved = np.zeros(n, dtype=bool)
    retrieved[question] = True
    ignored = ranked.ignored

    relevant = qrels.grades >= options.min_grade
    num_relevant = np.bincount(qrels.question_index[relevant], minlength=n)
    ideal_question, ideal_position, ideal_grade = qrels.ideal_rows()
    batch = Batch(
        num_questions=n,
        question=question,
        position=position,
        grade=grade,
        num_relevant=num_relevant,
        ideal_question=ideal_question,
        ideal_position=ideal_position,
        ideal_grade=ideal_grade,
        min_grade=options.min_grade,
        gains=options.gains,
    )
    values = {
        str(m): np.asarray(get(m.name).vectorised(batch, m.k), dtype=np.float64) for m in parsed
    }
    labelled = np.zeros(n, dtype=bool)
    labelled[qrels.question_index] = True
    return RunResult(
        run=run.name,
        metrics=parsed,
        questions=qrels.questions,
        values=values,
        scored=num_relevant > 0,
        labelled=labelled,
        retrieved=retrieved,
        ignored=ignored,
        options=options,
        marked=_marked(qrels),
    )


__all__ = ["RankedLayout", "RankedRows", "RunResult", "evaluate", "ranked_layout", "ranked_rows"]
