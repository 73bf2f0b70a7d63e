"""The judge report on small hand-made ratings, every figure worked out by hand."""

import json

import pytest
from scipy import stats as scipy_stats
from sklearn import metrics as sklearn_metrics

from labeler.grading import labeling
from labeler.judge.importing import import_judgements
from labeler.judge.report import (
    build_report,
    human_verdicts,
    judge_sentence,
    majority,
    metric_report,
)
from labeler.judge.scales import Scale
from labeler.store import Store


def rate(store: Store, tmp_path, records: list[dict], **options) -> None:
    path = tmp_path / f"r{len(list(tmp_path.iterdir()))}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import_judgements(store, path, **options)


def row(item, rater, verdict, *, kind="human", metric="helpfulness", **more) -> dict:
    return {
        "item": item,
        "metric": metric,
        "rater": rater,
        "rater_kind": kind,
        "verdict": verdict,
        **more,
    }


HAND = [
    row("a", "ana", 1),
    row("a", "bo", 1),
    row("a", "J", 1, kind="model", rationale="fine"),
    row("b", "ana", 0),
    row("b", "bo", 0),
    row("b", "J", 1, kind="model", rationale="**ok**"),
    row("c", "ana", 1),
    row("c", "bo", 0),
    row("c", "J", 0, kind="model"),
    row("d", "ana", 0),
    row("d", "J", 0, kind="model"),
]


def test_hand_example(store: Store, tmp_path) -> None:
    """Human verdicts: a 1, b 0, c tied (left out), d 0. Judge J on a, b, d: 1, 1, 0.
    Agreement 2/3; confusion (rows people) [[1, 1], [0, 1]]; p_e = (2·1 + 1·2)/9 = 4/9, so
    kappa = (2/3 - 4/9) / (1 - 4/9) = 0.4. Bias: J passes b, which people fail: higher 1.
    People: units a (1,1), b (0,0), c (1,0) give alpha 4/9 (see test_agreement)."""
    rate(store, tmp_path, HAND)
    m = metric_report(store, "helpfulness", resamples=200)
    assert (m.items, m.human_verdicts, m.tied, m.adjudicated) == (4, 3, 1, 0)
    j = m.judges["J"]
    assert j.items == 3
    assert j.agreement == pytest.approx(2 / 3)
    assert j.kappa == pytest.approx(0.4)
    assert j.confusion == ((1, 1), (0, 1))
    assert (j.higher, j.lower, j.bias_direction) == (1, 0, "none")
    assert j.mean_difference == pytest.approx(1 / 3)
    assert j.spearman is None  # binary: no ranking to correlate
    [d] = j.disagreements
    assert (d.item, d.human, d.judge, d.rationale) == ("b", "fail", "pass", "**ok**")
    assert m.humans.alpha == pytest.approx(4 / 9)
    assert m.humans.raters == ("ana", "bo")
    assert m.humans.pairs == ()  # 3 shared items: below the 10 needed for a pair's kappa
    assert "too few to conclude" in j.summary


def test_majority_and_ties() -> None:
    assert majority([1, 1, 0]) == 1
    assert majority([1, 0]) is None
    assert majority([2]) == 2
    verdicts, tied, used = human_verdicts({"x": {"a": 1, "b": 0}, "y": {"a": 0}}, {"x": 1})
    assert (verdicts, tied, used) == ({"x": 1, "y": 0}, 0, 1)


def test_relevance_uses_labels_and_adjudication(loaded: Store, tmp_path) -> None:
    """Judge grades on three chunks of q1; people: rate-limits ana 2 / bo 1 (tied, then
    adjudicated 2), error-codes ana 1, pagination ana 0 / bo 0."""
    for chunk, grade in (("rate-limits", 2), ("error-codes", 1), ("pagination", 0)):
        labeling.grade(loaded, "q1", chunk, "ana", grade)
    labeling.grade(loaded, "q1", "rate-limits", "bo", 1)
    labeling.grade(loaded, "q1", "pagination", "bo", 0)
    rate(
        loaded,
        tmp_path,
        [
            row(f"q1/{c}", "J", g, kind="model", metric="relevance", question="q1", chunk_id=c)
            for c, g in (("rate-limits", 2), ("error-codes", 2), ("pagination", 0))
        ],
    )
    before = metric_report(loaded, "relevance", resamples=200)
    assert (before.tied, before.judges["J"].items) == (1, 2)
    loaded.adjudications.set("q1", "default", "rate-limits", 2, "lead")
    after = metric_report(loaded, "relevance", resamples=200)
    j = after.judges["J"]
    assert (after.tied, after.adjudicated, j.items) == (0, 1, 3)
    human, judge = [2, 1, 0], [2, 2, 0]  # rate-limits, error-codes, pagination
    expected = sklearn_metrics.cohen_kappa_score(
        human, judge, weights="quadratic", labels=[0, 1, 2]
    )
    assert j.kappa == pytest.approx(expected)
    assert j.confusion == ((1, 0, 0), (0, 0, 1), (0, 0, 1))
    assert j.disagreements[0].item == '["q1","error-codes"]'
    assert j.disagreements[0].question == "How should a client retry after a 429 response?"


def test_score_metric_threshold_and_lower_is_better(store: Store, tmp_path) -> None:
    """Hallucination passes at <= 0.5. Judge scores 0.1, 0.4, 0.9, 0.7 on items people call
    pass, pass, fail, pass: categories pass, pass, fail, fail; agreement 3/4. Spearman of the
    negated score (-0.1, -0.4, -0.9, -0.7) with the verdicts (1, 1, 0, 1) is positive."""
    records = []
    for item, score, human in (("w", 0.1, 1), ("x", 0.4, 1), ("y", 0.9, 0), ("z", 0.7, 1)):
        records += [
            row(item, "J", score, kind="model", metric="Hallucination"),
            row(item, "ana", human, metric="Hallucination"),
        ]
    rate(store, tmp_path, records)
    assert store.ratings.metrics()["Hallucination"]["pass_when"] == "<="
    j = metric_report(store, "Hallucination", resamples=200).judges["J"]
    assert j.agreement == pytest.approx(3 / 4)
    assert j.confusion == ((1, 0), (1, 2))
    assert j.spearman == pytest.approx(
        scipy_stats.spearmanr([-0.1, -0.4, -0.9, -0.7], [1, 1, 0, 1]).statistic
    )
    assert j.spearman > 0


def test_json_has_exactly_the_issues_shape(store: Store, tmp_path) -> None:
    rate(store, tmp_path, HAND)
    data = build_report(store, resamples=200).as_dict()
    metric = data["metrics"]["helpfulness"]
    assert {"scale", "items", "humans", "judges"} <= set(metric)
    assert {"alpha", "raters", "pairs"} <= set(metric["humans"])
    judge = metric["judges"]["J"]
    assert {
        "items",
        "agreement",
        "agreement_ci",
        "kappa",
        "kappa_ci",
        "spearman",
        "confusion",
        "bias",
    } <= set(judge)
    assert metric["scale"] == "binary"
    assert len(judge["agreement_ci"]) == 2
    json.dumps(data)  # plain JSON: no NaN, no numpy types


def test_pairs_need_ten_shared_items(store: Store, tmp_path) -> None:
    records = [row(f"i{n}", who, n % 2) for n in range(10) for who in ("ana", "bo")]
    records += [row(f"i{n}", "cy", 1) for n in range(9)]
    rate(store, tmp_path, records)
    pairs = metric_report(store, "helpfulness", resamples=200).humans.pairs
    assert [(p.a, p.b, p.items, p.kappa) for p in pairs] == [("ana", "bo", 10, 1.0)]


# the sentence for a team lead ------------------------------------------------------------------


def stats(**changes) -> dict:
    found = {
        "rater": "J",
        "items": 50,
        "agreed": 41,
        "agreement": 0.82,
        "agreement_ci": (0.69, 0.90),
        "kappa": 0.61,
        "kappa_ci": (0.40, 0.79),
        "higher": 7,
        "lower": 2,
        "bias_p": 0.18,
    }
    found.update(changes)
    return found


BINARY = Scale("binary")


def test_sentence_straddling_the_bar_says_how_many_more_items() -> None:
    """Half-width 0.195, distance from 0.6 is 0.01: 50 · (0.195/0.01)² - 50 = 18963 more."""
    text = judge_sentence("faithfulness", BINARY, stats())
    assert text.startswith(
        "J on faithfulness: it agrees with the human verdict on 41 of 50"
        " items (82 %, 95 % CI 69 % to 90 %), kappa 0.61 (95 % CI 0.40 to"
        " 0.79). Too small a sample to conclude"
    )
    assert "about 18963 more reviewed items" in text


def test_sentence_trust_and_distrust() -> None:
    good = judge_sentence("m", BINARY, stats(kappa=0.85, kappa_ci=(0.7, 0.95)))
    assert "can stand in for reviewers" in good
    bad = judge_sentence("m", BINARY, stats(kappa=0.3, kappa_ci=(0.1, 0.5)))
    assert "do not rely on it" in bad


def test_sentence_names_a_bias() -> None:
    text = judge_sentence("m", BINARY, stats(higher=12, lower=1, bias_p=0.003))
    assert text.endswith(
        "It passes 12 items that people fail and fails 1 they pass (sign test"
        " p = 0.003): too lenient."
    )
    ordinal = judge_sentence("m", Scale("ordinal", 0, 2), stats(higher=1, lower=9, bias_p=0.02))
    assert "grades 1 items higher than people and 9 lower" in ordinal
    assert ordinal.endswith("too strict.")


def test_sentence_small_sample() -> None:
    text = judge_sentence("m", BINARY, stats(items=12))
    assert text == (
        "J on m: only 12 items have both its verdict and a human one, too few to"
        " conclude anything; review at least 8 more (30 to 50 is better)."
    )
