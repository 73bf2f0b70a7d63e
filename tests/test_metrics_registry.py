"""The registry: one entry per metric, and everything that derives from it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from labeler.errors import LabelerError
from labeler.metrics.registry import (
    REGISTRY,
    metric_spellings,
    metrics_table_markdown,
    parse_ks,
    parse_metrics,
    trec_eval_name,
)
from labeler.metrics.types import Metric, QuestionInput


def names(spec, ks=(10,)) -> list[str]:
    return [str(m) for m in parse_metrics(spec, ks)]


def test_the_issue_names_every_metric() -> None:
    assert set(REGISTRY) == {
        "hit_rate",
        "recall",
        "precision",
        "mrr",
        "ndcg",
        "map",
        "r_precision",
        "context_precision",
        "judged",
    }


def test_parsing() -> None:
    assert names("ndcg@10, recall@k,mrr", ks=(3, 5)) == ["ndcg@10", "recall@3", "recall@5", "mrr"]
    assert names("recall", ks=(1, 3)) == ["recall@1", "recall@3"]  # needs a cutoff: -k fills it
    assert names("ndcg,map,r_precision") == ["ndcg", "map", "r_precision"]  # whole ranking
    assert names("NDCG@5") == ["ndcg@5"]
    assert names("mrr@3,mrr@3") == ["mrr@3"]
    assert names(["map@k", Metric("ndcg", 2)], ks=(4,)) == ["map@4", "ndcg@2"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ndgc@10", r"unknown metric 'ndgc@10'; valid metrics: hit_rate@k, recall@k"),
        ("recall@0", r'field "metrics": k must be a positive whole number'),
        ("recall@x", r"k must be a positive whole number, got 'x'"),
        ("recall@", r"give a cutoff after '@'"),
        ("r_precision@5", r"r_precision takes no cutoff"),
        ("", r"no metric given"),
    ],
)
def test_bad_names(spec: str, message: str) -> None:
    with pytest.raises(LabelerError, match=message):
        parse_metrics(spec)


@pytest.mark.parametrize("text", ["0", "-3", "2.5", "ten", "", " , "])
def test_bad_cutoffs(text: str) -> None:
    with pytest.raises(LabelerError, match='field "k"'):
        parse_ks(text)


def test_cutoffs() -> None:
    assert parse_ks("1,3, 10,3") == (1, 3, 10)
    assert parse_ks([5, "2"]) == (5, 2)


def test_the_unknown_name_error_lists_every_spelling() -> None:
    with pytest.raises(LabelerError) as raised:
        parse_metrics("nope")
    for name in REGISTRY:
        assert name in str(raised.value)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_metric_scores_its_empty_value_on_an_empty_ranking(name: str) -> None:
    definition = REGISTRY[name]
    empty = QuestionInput(ranked=(), grades=(2, 1, 0))
    assert (
        definition.reference(empty, None if definition.k != "required" else 5) == definition.empty
    )


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_metric_has_its_row_in_the_readme_table(name: str) -> None:
    table = metrics_table_markdown()
    definition = REGISTRY[name]
    assert f"`{name}" in table
    assert definition.formula in table


def test_the_table_is_a_markdown_table_with_a_row_per_metric() -> None:
    lines = metrics_table_markdown().splitlines()
    assert lines[0].startswith("| metric |")
    assert len(lines) == 2 + len(REGISTRY)
    assert all(line.count("|") == lines[0].count("|") for line in lines)


def test_trec_eval_names() -> None:
    assert trec_eval_name(Metric("ndcg", 10)) == "ndcg_cut_10"
    assert trec_eval_name(Metric("precision", 5)) == "P_5"
    assert trec_eval_name(Metric("hit_rate", 1)) == "success_1"
    assert trec_eval_name(Metric("map")) == "map"
    assert trec_eval_name(Metric("mrr", 3)) is None  # trec_eval has no cut reciprocal rank
    assert trec_eval_name(Metric("judged", 10)) is None


def test_spellings_parse_back() -> None:
    assert len(parse_metrics(metric_spellings(), ks=(1, 10))) == sum(
        {"required": 2, "optional": 3, "none": 1}[d.k] for d in REGISTRY.values()
    )


def test_the_registry_and_the_cli_module_load_without_numpy() -> None:
    """`labeler` starts every command by importing the CLI, which reads the registry."""
    code = (
        "import sys, labeler.metrics, labeler.metrics.registry, labeler.faithfulness;"
        "print(sorted(m for m in ('numpy', 'pyarrow', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_package_exports_callables_whatever_was_imported_first() -> None:
    """``from labeler.metrics import evaluate`` is the documented entry point: no submodule
    of the same name may shadow it."""
    import labeler.metrics.comparison
    import labeler.metrics.evaluation  # noqa: F401
    from labeler.metrics import compare, evaluate, read_qrels

    assert callable(evaluate)
    assert callable(compare)
    assert callable(read_qrels)
    assert evaluate({"q": {"a": 1}}, {"q": ["a"]}, "mrr").mean("mrr") == 1.0
