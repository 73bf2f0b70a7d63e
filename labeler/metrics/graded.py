"""Graded metrics: nDCG uses the grades themselves, whatever ``min_grade`` says.

DCG@k = sum over the top k of gain(grade at rank i) / log2(i + 1), with gain(g) = g (``linear``,
the default, as trec_eval) or 2**g - 1 (``exp``); chunks nobody labelled, grade 0 and negative
grades gain 0. The ideal DCG@k ranks every label of the question by gain, best first, so a
relevant chunk the run never found still counts against it. nDCG@k = DCG@k / ideal DCG@k, and 0
when the question has no label with a positive gain or the ranking is empty. Equal to trec_eval's
``ndcg`` and ``ndcg_cut_k`` (gains as its default, the relevance level).
"""

from __future__ import annotations

import math

from labeler.metrics.types import MetricDef, QuestionInput


def dcg(gains: list[float]) -> float:
    """Discounted cumulative gain of gains in rank order: rank i is discounted by log2(i + 1)."""
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1) if g)


def ndcg_reference(q: QuestionInput, k: int | None) -> float:
    """DCG of the ranking's top k / DCG of the ideal top k built from all the question's labels."""
    ranked = q.ranked if k is None else q.ranked[:k]
    ideal = sorted((q.gain(g) for g in q.grades if q.gain(g) > 0), reverse=True)
    best = dcg(ideal if k is None else ideal[:k])
    return dcg([q.gain(g) for g in ranked]) / best if best > 0 else 0.0


DEFINITIONS = (
    MetricDef(
        name="ndcg",
        title="nDCG",
        k="optional",
        formula=(
            "DCG@k / ideal DCG@k; DCG@k = sum of gain(grade at rank i) / log2(i + 1) over the"
            " top k; the ideal ranks all the question's labels by gain"
        ),
        relevance="grades as gains: g (linear) or 2^g - 1 (exp)",
        empty=0.0,
        reference=ndcg_reference,
        vectorised=lambda b, k: b.ratio(b.dcg(k), b.ideal_dcg(k)),
        trec_eval="ndcg",
        trec_eval_cut="ndcg_cut_{k}",
        label_next="Ndcg",
    ),
)

__all__ = ["DEFINITIONS", "dcg", "ndcg_reference"]
