"""Context precision, as Ragas defines it: does the retriever put the relevant chunks first?

context_precision@K = the mean, over the ranks within the top K that hold a relevant chunk, of
precision at that rank; 0 when no chunk in the top K is relevant. Unlike average precision it
divides by the relevant chunks *found*, so cutting a list to fewer chunks can lose evidence
without moving the score: read it beside recall. Relevant means grade >= ``min_grade``.
"""

from __future__ import annotations

from labeler.metrics.types import MetricDef, QuestionInput


def context_precision_reference(q: QuestionInput, k: int | None) -> float:
    """Mean of precision@i over the ranks i <= k that hold a relevant chunk."""
    ranked = q.ranked if k is None else q.ranked[:k]
    found = 0
    summed = 0.0
    for rank, grade in enumerate(ranked, start=1):
        if q.relevant(grade):
            found += 1
            summed += found / rank
    return summed / found if found else 0.0


DEFINITIONS = (
    MetricDef(
        name="context_precision",
        title="Context precision (Ragas)",
        k="required",
        formula=(
            "mean of precision@i over the ranks i <= k that hold a relevant chunk; 0 if none does"
        ),
        relevance="grade >= min_grade",
        empty=0.0,
        reference=context_precision_reference,
        vectorised=lambda b, k: b.ratio(b.precision_sum(k), b.relevant_in_top(k)),
        note="Read beside recall: a shorter list can lose evidence without lowering it.",
    ),
)

__all__ = ["DEFINITIONS", "context_precision_reference"]
