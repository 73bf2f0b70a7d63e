"""The hand-worked figures of the design's WORKED_EXAMPLES.md (sections A-D, F and G), figure
by figure.

Every figure is checked on both paths: the vectorised engine (``evaluate``) and the plain-Python
definitions (``reference_evaluate``). Section E (lexical faithfulness) is in test_faithfulness.py;
the gate of section G is also run end to end in test_cli_evaluate.py.
"""

from __future__ import annotations

import pytest

from labeler.metrics.evaluation import evaluate
from labeler.metrics.graded import dcg
from labeler.metrics.reference import reference_evaluate


def fast(qrels, run, metrics, **options):
    result = evaluate(qrels, run, metrics, **options)
    return {name: result.per_question(name, scored_only=False) for name in result.metric_names}


ENGINES = [pytest.param(fast, id="vectorised"), pytest.param(reference_evaluate, id="reference")]


def means(engine, qrels, run, metrics, **options) -> dict[str, float]:
    values = engine(qrels, run, metrics, **options)
    return {m: sum(v.values()) / len(v) for m, v in values.items()}


# A. One question, graded relevance --------------------------------------------------------

A_QRELS = {"q429": {"rate-limits": 2, "error-codes": 1}}
A_RUN = {"q429": ["error-codes", "pagination", "rate-limits", "webhooks"]}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("metric", "expected"),
    [("precision@3", 0.667), ("recall@3", 1.000), ("mrr", 1.000), ("ndcg@3", 0.760)],
)
def test_a_one_graded_question(engine, metric: str, expected: float) -> None:
    assert means(engine, A_QRELS, A_RUN, metric)[metric] == pytest.approx(expected, abs=5e-4)


def test_a_dcg_and_ideal_dcg() -> None:
    assert dcg([1, 0, 2]) == pytest.approx(2.000, abs=5e-4)  # 1/log2(2) + 0/log2(3) + 2/log2(4)
    assert dcg([2, 1]) == pytest.approx(2.631, abs=5e-4)  # 2/log2(2) + 1/log2(3)
    assert dcg([1, 0, 2]) / dcg([2, 1]) == pytest.approx(0.760, abs=5e-4)


# B. Four questions, one relevant chunk each ------------------------------------------------

B_QRELS = {
    "auth": {"authentication": 1},
    "limits": {"rate-limits": 1},
    "next-page": {"pagination": 1},
    "404": {"error-codes": 1},
}
B_RUN = {
    "auth": ["authentication", "error-codes", "rate-limits"],
    "limits": ["pagination", "rate-limits", "webhooks"],
    "next-page": ["pagination", "webhooks", "authentication"],
    "404": ["webhooks", "authentication", "pagination"],
}


@pytest.mark.parametrize("engine", ENGINES)
def test_b_hit_rate_and_mrr(engine) -> None:
    got = means(engine, B_QRELS, B_RUN, "hit_rate@1,hit_rate@3,mrr,recall@1,recall@3")
    assert got["hit_rate@1"] == pytest.approx(0.50)
    assert got["hit_rate@3"] == pytest.approx(0.75)
    assert got["mrr"] == pytest.approx(0.625)  # (1 + 0.5 + 1 + 0) / 4
    # With one relevant chunk per question, recall@k equals hit rate@k.
    assert got["recall@1"] == got["hit_rate@1"]
    assert got["recall@3"] == got["hit_rate@3"]


# C. Small cases from the definitions -------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_c_recall_when_one_of_two_is_found(engine) -> None:
    got = means(engine, {"q": {"a": 1, "b": 1}}, {"q": ["a", "x", "y", "b"]}, "recall@3")
    assert got["recall@3"] == pytest.approx(0.5)


@pytest.mark.parametrize("engine", ENGINES)
def test_c_precision_ceiling_with_one_relevant_chunk(engine) -> None:
    got = means(engine, {"q": {"a": 1}}, {"q": ["a", "x", "y"]}, "precision@3")
    assert got["precision@3"] == pytest.approx(0.333, abs=5e-4)  # the best any retriever can do


@pytest.mark.parametrize("engine", ENGINES)
def test_c_reciprocal_rank_at_rank_three(engine) -> None:
    assert means(engine, {"q": {"a": 1}}, {"q": ["x", "y", "a"]}, "mrr")["mrr"] == pytest.approx(
        0.333, abs=5e-4
    )


# D. Context precision (Ragas) --------------------------------------------------------------


def flags_to_run(flags: str) -> tuple[dict, dict]:
    """ "nyny" -> qrels and run with relevant chunks where the flag is y."""
    chunks = [f"c{i}" for i in range(len(flags))]
    qrels = {"q": {c: 1 for c, f in zip(chunks, flags, strict=True) if f == "y"}}
    return qrels, {"q": chunks}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("flags", "k", "expected"),
    [
        ("nyny", 4, 0.500),  # (1/2 + 2/4) / 2
        ("ynyn", 4, 0.833),  # (1/1 + 2/3) / 2
        ("yynn", 4, 1.000),
        ("nyny", 2, 0.500),  # cut to K = 2: the score holds while the second chunk is lost
    ],
)
def test_d_context_precision(engine, flags: str, k: int, expected: float) -> None:
    qrels, run = flags_to_run(flags)
    metric = f"context_precision@{k}"
    assert means(engine, qrels, run, metric)[metric] == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("engine", ENGINES)
def test_d_shorter_list_loses_recall_not_context_precision(engine) -> None:
    qrels, run = flags_to_run("nyny")
    got = means(engine, qrels, run, "context_precision@2,context_precision@4,recall@2,recall@4")
    assert got["context_precision@2"] == got["context_precision@4"]
    assert got["recall@2"] == pytest.approx(0.5)
    assert got["recall@4"] == pytest.approx(1.0)


# F. Context precision of the returns question (claim counts are in test_faithfulness.py) ---

F_QRELS = {"returns": {"return-window": 1, "postage": 1}}


@pytest.mark.parametrize("engine", ENGINES)
def test_f_context_precision_before_and_after_a_reranker(engine) -> None:
    before = {"returns": ["delivery", "return-window", "gift-cards", "postage"]}
    after = {"returns": ["return-window", "delivery", "postage", "gift-cards"]}
    metric = "context_precision@4"
    assert means(engine, F_QRELS, before, metric)[metric] == pytest.approx(0.500, abs=5e-4)
    assert means(engine, F_QRELS, after, metric)[metric] == pytest.approx(0.833, abs=5e-4)


# G. Three retrievers on ten questions at k = 3 ---------------------------------------------


def g_example() -> tuple[dict, dict[str, dict]]:
    """Nine questions with one relevant chunk, one with two."""
    qrels = {f"q{i}": {f"c{i}": 1} for i in range(10)}
    qrels["q9"]["c9b"] = 1
    hybrid = {f"q{i}": [f"c{i}", "noise-a", "noise-b"] for i in range(9)}
    hybrid["q9"] = ["c9", "c9b", "noise-a"]
    keyword = {**hybrid, "q0": ["noise-a", "noise-b", "noise-c"]}  # misses q0's chunk
    vector = {**hybrid, "q1": ["noise-a", "c1", "noise-b"]}  # q1's chunk second
    return qrels, {"hybrid": hybrid, "keyword": keyword, "vector": vector}


@pytest.mark.parametrize("engine", ENGINES)
def test_g_three_retrievers(engine) -> None:
    qrels, runs = g_example()
    got = {
        name: means(engine, qrels, run, "recall@3,mrr@3,precision@3") for name, run in runs.items()
    }
    assert got["keyword"]["recall@3"] == pytest.approx(0.9)
    assert got["vector"]["recall@3"] == pytest.approx(1.0)
    assert got["vector"]["mrr@3"] == pytest.approx(0.95)
    assert got["hybrid"]["recall@3"] == pytest.approx(1.0)
    assert got["hybrid"]["mrr@3"] == pytest.approx(1.0)
    for name in runs:  # near 1/3: nine of the ten questions have a single relevant chunk
        assert 0.33 <= got[name]["precision@3"] <= 0.37
