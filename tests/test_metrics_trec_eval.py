"""Our figures against trec_eval's own expected outputs, question by question and averaged.

The files are trec_eval's test suite (github.com/usnistgov/trec_eval, test/; NIST, see
tests/data/trec_eval/LICENSE-NIST.md), kept unchanged in tests/data/trec_eval/.
trec_eval orders by score (ties by docno, descending), so these runs are read with
``order="score"``; the measure names come from the registry (``trec_eval``/``trec_eval_cut``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.metrics.evaluation import RunResult, evaluate
from labeler.metrics.files import read_qrels, read_run
from labeler.metrics.registry import REGISTRY, trec_eval_name
from labeler.metrics.types import Metric

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"

# out file -> (qrels, run, min_grade (-l), complete (-c), depth (-M))
CASES = {
    "out.test": ("qrels.test", "results.test", 1, False, None),
    "out.test.a": ("qrels.test", "results.test", 1, False, None),
    "out.test.aq": ("qrels.test", "results.test", 1, False, None),
    "out.test.aqc": ("qrels.test", "results.trunc", 1, True, None),
    "out.test.aqcM": ("qrels.test", "results.trunc", 1, True, 100),
    "out.test.aql": ("qrels.rel_level", "results.test", 2, False, None),
}


def expected(name: str) -> dict[tuple[str, str], str]:
    """(measure, question or "all") -> the value as trec_eval printed it."""
    out = {}
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        measure, question, value = (part.strip() for part in line.split("\t"))
        out[measure, question] = value
    return out


def our_measures(names: set[str]) -> list[Metric]:
    """Every metric of the registry that trec_eval printed in this file."""
    found = []
    for d in REGISTRY.values():
        if d.trec_eval in names:
            found.append(Metric(d.name))
        if d.trec_eval_cut:
            prefix = d.trec_eval_cut.replace("{k}", "")
            for name in names:
                if name.startswith(prefix) and name[len(prefix) :].isdigit():
                    found.append(Metric(d.name, int(name[len(prefix) :])))
    return found


def scored(out_name: str) -> tuple[RunResult, dict, list[Metric], bool]:
    qrels_file, run_file, min_grade, complete, depth = CASES[out_name]
    values = expected(out_name)
    metrics = our_measures({m for m, _ in values})
    result = evaluate(
        read_qrels(DATA / qrels_file),
        read_run(DATA / run_file),
        metrics,
        min_grade=min_grade,
        order="score",
        depth=depth,
    )
    return result, values, metrics, complete


@pytest.mark.parametrize("out_name", sorted(CASES))
def test_every_question_as_trec_eval(out_name: str) -> None:
    result, values, metrics, _ = scored(out_name)
    compared = 0
    for metric in metrics:
        name = trec_eval_name(metric)
        for i, question in enumerate(result.questions):
            if (name, question) in values:
                assert f"{result.values[str(metric)][i]:.4f}" == values[name, question], (
                    f"{metric} ({name}) for {question}"
                )
                compared += 1
    per_query = out_name.endswith(("q", "qc", "qcM", "ql"))
    assert compared >= (3 * 40 if per_query else 0)


@pytest.mark.parametrize("out_name", sorted(CASES))
def test_averages_as_trec_eval(out_name: str) -> None:
    result, values, metrics, complete = scored(out_name)
    assert len(metrics) >= (10 if out_name == "out.test" else 40)
    for metric in metrics:
        name = trec_eval_name(metric)
        mean = result.trec_eval_mean(metric, complete=complete)
        assert f"{mean:.4f}" == values[name, "all"], f"{metric} ({name})"


def test_trec_eval_counts_the_questions_it_prints() -> None:
    result, values, _, complete = scored("out.test.aqc")
    averaged = result.labelled if complete else result.labelled & result.retrieved
    assert int(averaged.sum()) == int(values["num_q", "all"])
    without_c = scored("out.test.aq")[0]
    assert int((without_c.labelled & without_c.retrieved).sum()) == int(values["num_q", "all"])


def test_missing_question_scores_zero_and_counts() -> None:
    """results.trunc has no line for topic 302: -c averages it in as 0, and so do we."""
    result, _, _, _ = scored("out.test.aqc")
    assert result.missing == 1
    assert not result.retrieved[result.questions.index("302")]
    assert result.mean("map") == result.trec_eval_mean("map", complete=True)
    assert result.mean("map") != result.trec_eval_mean("map", complete=False)


def test_default_order_gives_the_same_figures_on_these_files() -> None:
    """results.test states ranks that agree with its scores, so the default (read the run as it
    states it) reproduces trec_eval here too; test_metrics_evaluation.py covers runs where the two
    orders differ."""
    result, _, metrics, _ = scored("out.test.aq")
    qrels, run = read_qrels(DATA / "qrels.test"), read_run(DATA / "results.test")
    by_rank = evaluate(qrels, run, metrics, order="rank")
    for metric in metrics:
        assert by_rank.values[str(metric)].tolist() == result.values[str(metric)].tolist()


def test_single_spaced_copy_reads_the_same(tmp_path: Path) -> None:
    """results.test mixes tabs and spaces (the line-by-line reader); a single-spaced copy goes
    through the fast columnar reader: the figures must not change."""
    copy = tmp_path / "results.txt"
    lines = (DATA / "results.test").read_text(encoding="utf-8").splitlines()
    copy.write_text("".join(" ".join(line.split()) + "\n" for line in lines), encoding="utf-8")
    qrels = read_qrels(DATA / "qrels.test")
    metrics = "map,ndcg,ndcg@10,recall@100,mrr,r_precision,precision@5"
    original = evaluate(qrels, read_run(DATA / "results.test"), metrics, order="score")
    fast = evaluate(qrels, read_run(copy), metrics, order="score")
    for name in original.metric_names:
        assert original.values[name].tolist() == fast.values[name].tolist()
