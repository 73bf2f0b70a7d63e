"""The regression gate, as a library: worked example G, the tolerance, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labeler.errors import LabelerError
from labeler.metrics.evaluation import evaluate
from labeler.metrics.gate import (
    baseline_payload,
    check_gate,
    load_baseline,
    save_baseline,
)
from labeler.metrics.types import Options
from tests.test_metrics_worked_examples import g_example

OPTIONS = Options()
METRICS = "recall@3,mrr@3,precision@3"


def figures(run: dict, qrels: dict) -> dict:
    result = evaluate(qrels, run, METRICS)
    return {"metrics": result.means(), "questions": result.num_scored}


def saved(tmp_path: Path, name: str = "hybrid", testset: dict | None = None):
    qrels, runs = g_example()
    path = tmp_path / "baseline.json"
    save_baseline(path, baseline_payload({name: figures(runs["hybrid"], qrels)}, OPTIONS, testset))
    return load_baseline(path), qrels, runs


def current(runs: dict, qrels: dict, *names: str) -> dict:
    return {n: evaluate(qrels, runs[n], METRICS).means() for n in names}


def test_g_keyword_search_fails_naming_recall(tmp_path: Path) -> None:
    baseline, qrels, runs = saved(tmp_path)
    verdict = check_gate(baseline, current(runs, qrels, "keyword"), options=OPTIONS)
    assert not verdict.passed
    messages = [f.message for f in verdict.failures]
    assert "recall@3 fell to 0.9000, baseline 1.0000" in messages
    assert verdict.run == "keyword"
    assert verdict.baseline_run == "hybrid"


def test_g_hybrid_against_itself_passes(tmp_path: Path) -> None:
    baseline, qrels, runs = saved(tmp_path)
    verdict = check_gate(baseline, current(runs, qrels, "hybrid"), options=OPTIONS)
    assert verdict.passed
    assert verdict.checked == ("recall@3", "mrr@3", "precision@3")


def test_the_run_named_like_the_baseline_is_the_one_checked(tmp_path: Path) -> None:
    baseline, qrels, runs = saved(tmp_path)
    verdict = check_gate(baseline, current(runs, qrels, "keyword", "hybrid"), options=OPTIONS)
    assert verdict.run == "hybrid"
    assert verdict.passed


def test_the_tolerance(tmp_path: Path) -> None:
    baseline, qrels, runs = saved(tmp_path)
    vector = current(runs, qrels, "vector")  # mrr@3 0.95 against 1.0
    assert not check_gate(baseline, vector, options=OPTIONS, tolerance=0.01).passed
    assert check_gate(baseline, vector, options=OPTIONS, tolerance=0.05).passed  # exactly 0.05
    with pytest.raises(LabelerError, match='field "tolerance"'):
        check_gate(baseline, vector, options=OPTIONS, tolerance=-0.1)


def test_other_options_cannot_be_compared(tmp_path: Path) -> None:
    baseline, qrels, runs = saved(tmp_path)
    with pytest.raises(LabelerError, match=r'field "min_grade": the baseline was computed with'):
        check_gate(baseline, current(runs, qrels, "hybrid"), options=Options(min_grade=2))


def test_a_metric_the_evaluation_did_not_compute(tmp_path: Path) -> None:
    baseline, _, _ = saved(tmp_path)
    only_recall = {"hybrid": {"recall@3": 1.0}}
    with pytest.raises(LabelerError, match="mrr@3, precision@3, which this evaluation did not"):
        check_gate(baseline, only_recall, options=OPTIONS)


def test_another_test_set_is_a_warning(tmp_path: Path) -> None:
    baseline, qrels, runs = saved(tmp_path, testset={"content_hash": "sha256:old"})
    verdict = check_gate(
        baseline,
        current(runs, qrels, "hybrid"),
        options=OPTIONS,
        testset={"content_hash": "sha256:new"},
    )
    assert verdict.passed
    assert "sha256:old" in verdict.warnings[0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{}", "not a baseline written by --save-baseline"),
        ('{"format": "labeler-baseline/1", "runs": {}}', 'field "runs": holds no run'),
        (
            '{"format": "labeler-baseline/1", "options": {},'
            ' "runs": {"a": {"metrics": {"x": "hi"}}}}',
            'field "metrics"',
        ),
        ("not json", "not valid JSON"),
    ],
)
def test_bad_baseline_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LabelerError, match=message):
        load_baseline(path)


def test_the_baseline_file_is_plain_json(tmp_path: Path) -> None:
    saved(tmp_path)
    data = json.loads((tmp_path / "baseline.json").read_text(encoding="utf-8"))
    assert data["format"] == "labeler-baseline/1"
    assert data["runs"]["hybrid"]["metrics"]["recall@3"] == 1.0
    assert data["options"] == {"min_grade": 1, "order": "rank", "depth": None, "gains": "linear"}
