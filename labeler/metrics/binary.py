"""Binary-relevance metrics: a result is relevant when its grade is at least ``min_grade``.

Each metric is stated twice, on purpose. ``*_reference`` is the definition over one question in
plain Python, read straight off the formula; the lambda beside it computes the same for every
question at once from a ``Batch``'s vectorised primitives (``labeler.metrics.batch``). The tests
hold the two to each other, and both to trec_eval.

Shared conventions: ``k=None`` means the whole ranking; chunks nobody labelled are not relevant;
an empty ranking (a question missing from the run) scores 0 on every metric; a question with
no relevant label scores 0 here and is left out of the averages by ``evaluate``.
"""

from __future__ import annotations

from labeler.metrics.types import MetricDef, QuestionInput


def _top(q: QuestionInput, k: int | None) -> tuple[int | None, ...]:
    return q.ranked if k is None else q.ranked[:k]


def _relevant_in(q: QuestionInput, grades: tuple[int | None, ...]) -> int:
    return sum(1 for g in grades if q.relevant(g))


def hit_rate_reference(q: QuestionInput, k: int | None) -> float:
    """1 if any of the top k is relevant, else 0 (trec_eval ``success_k``)."""
    return 1.0 if _relevant_in(q, _top(q, k)) else 0.0


def recall_reference(q: QuestionInput, k: int | None) -> float:
    """Relevant results in the top k / relevant labels of the question (trec_eval
    ``recall_k``)."""
    total = q.num_relevant
    return _relevant_in(q, _top(q, k)) / total if total else 0.0


def precision_reference(q: QuestionInput, k: int | None) -> float:
    """Relevant results in the top k / k, even when the run returned fewer than k (trec_eval
    ``P_k``): with one relevant chunk, precision@3 can never exceed 1/3."""
    top = _top(q, k)
    cutoff = k if k is not None else len(top)  # the registry always gives k
    return _relevant_in(q, top) / cutoff if cutoff else 0.0


def mrr_reference(q: QuestionInput, k: int | None) -> float:
    """1 / rank of the first relevant result within the top k, 0 if there is none (trec_eval
    ``recip_rank`` without a cutoff)."""
    for rank, grade in enumerate(_top(q, k), start=1):
        if q.relevant(grade):
            return 1.0 / rank
    return 0.0


def map_reference(q: QuestionInput, k: int | None) -> float:
    """Average precision: the sum, over relevant results in the top k, of the precision at
    their rank, divided by the question's relevant labels (trec_eval ``map``, ``map_cut_k``).
    A relevant chunk never retrieved adds 0."""
    total = q.num_relevant
    if not total:
        return 0.0
    found = 0
    summed = 0.0
    for rank, grade in enumerate(_top(q, k), start=1):
        if q.relevant(grade):
            found += 1
            summed += found / rank
    return summed / total


def r_precision_reference(q: QuestionInput, k: int | None) -> float:
    """Precision at R, R the number of relevant labels (trec_eval ``Rprec``); it equals recall
    at R."""
    total = q.num_relevant
    return _relevant_in(q, q.ranked[:total]) / total if total else 0.0


def judged_reference(q: QuestionInput, k: int | None) -> float:
    """Labelled results in the top k / results in the top k (any grade >= 0 counts). Low values
    warn that the other figures rest on chunks nobody graded, which count as not relevant."""
    top = _top(q, k)
    return sum(1 for g in top if q.labelled(g)) / len(top) if top else 0.0


DEFINITIONS = (
    MetricDef(
        name="hit_rate",
        title="Hit rate",
        k="required",
        formula="1 if any of the top k is relevant, else 0",
        relevance="grade >= min_grade",
        empty=0.0,
        reference=hit_rate_reference,
        vectorised=lambda b, k: (b.relevant_in_top(k) > 0) * 1.0,
        trec_eval_cut="success_{k}",
    ),
    MetricDef(
        name="recall",
        title="Recall",
        k="required",
        formula="relevant in the top k / relevant labels of the question",
        relevance="grade >= min_grade",
        empty=0.0,
        reference=recall_reference,
        vectorised=lambda b, k: b.ratio(b.relevant_in_top(k), b.num_relevant),
        trec_eval_cut="recall_{k}",
        label_next="Recall",
    ),
    MetricDef(
        name="precision",
        title="Precision",
        k="required",
        formula="relevant in the top k / k (k even when fewer results came back)",
        relevance="grade >= min_grade",
        empty=0.0,
        reference=precision_reference,
        vectorised=lambda b, k: b.relevant_in_top(k) / k,
        trec_eval_cut="P_{k}",
        label_next="Precision",
    ),
    MetricDef(
        name="mrr",
        title="Reciprocal rank",
        k="optional",
        formula="1 / rank of the first relevant result (within the top k), 0 if none",
        relevance="grade >= min_grade",
        empty=0.0,
        reference=mrr_reference,
        vectorised=lambda b, k: b.reciprocal_rank(k),
        trec_eval="recip_rank",
        note="trec_eval has no cutoff for recip_rank; mrr@k is 0 past rank k.",
        label_next="ReciprocalRank",
    ),
    MetricDef(
        name="map",
        title="Average precision",
        k="optional",
        formula=(
            "sum of precision at the rank of each relevant result in the top k"
            " / relevant labels of the question"
        ),
        relevance="grade >= min_grade",
        empty=0.0,
        reference=map_reference,
        vectorised=lambda b, k: b.ratio(b.precision_sum(k), b.num_relevant),
        trec_eval="map",
        trec_eval_cut="map_cut_{k}",
        label_next="AveragePrecision",
    ),
    MetricDef(
        name="r_precision",
        title="R-precision",
        k="none",
        formula="relevant in the top R / R, R = relevant labels of the question",
        relevance="grade >= min_grade",
        empty=0.0,
        reference=r_precision_reference,
        vectorised=lambda b, k: b.ratio(b.relevant_in_top(b.num_relevant), b.num_relevant),
        trec_eval="Rprec",
    ),
)

# Not a relevance metric: how much of the ranking the labels cover. Listed last.
COVERAGE = (
    MetricDef(
        name="judged",
        title="Judged",
        k="required",
        formula="labelled results in the top k / results in the top k",
        relevance="any label (grade >= 0)",
        empty=0.0,
        reference=judged_reference,
        vectorised=lambda b, k: b.ratio(b.judged_in_top(k), b.retrieved(k)),
        note=(
            "Divides by the results actually returned (ir_measures' Judged@k divides by k)."
            " Low values warn that a run is scored on unlabelled chunks."
        ),
    ),
)

__all__ = [
    "COVERAGE",
    "DEFINITIONS",
    "hit_rate_reference",
    "judged_reference",
    "map_reference",
    "mrr_reference",
    "precision_reference",
    "r_precision_reference",
    "recall_reference",
]
