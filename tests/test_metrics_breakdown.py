"""The breakdown of a conversational test set (labeler/metrics/breakdown.py), worked by hand:
four questions, three of them turns, MRR per question 1, 0.5, 0 and 1."""

import pytest

from labeler.metrics.breakdown import breakdown, breakdown_rows, turn_groups
from labeler.metrics.evaluation import evaluate
from labeler.metrics.report import build_report
from labeler.metrics.tables import Qrels, Run

QRELS = {"c::1": {"a": 1}, "c::2": {"b": 1}, "d::1": {"c": 1}, "s": {"a": 1}}
RANKED = {"c::1": ["a"], "c::2": ["x", "b"], "d::1": ["x"], "s": ["a"]}  # MRR 1, .5, 0, 1
TURNS = {"c::1": 1, "c::2": 2, "d::1": 1}
TAGS = {
    "c::1": ("answerability:ANSWERABLE", "question-type:Factoid"),
    "c::2": (
        "answerability:ANSWERABLE",
        "multi-turn:Follow-up",
        "question-type:Explanation",
        "question-type:Factoid",
    ),
    "d::1": ("answerability:PARTIAL",),
    "s": ("api",),
}


def result():
    return evaluate(QRELS, RANKED, "mrr")


def test_the_groups_of_a_conversational_test_set() -> None:
    groups = turn_groups(sorted(QRELS), TURNS, TAGS)
    assert [(g.label, sorted(g.questions)) for g in groups] == [
        ("turn: first", ["c::1", "d::1"]),
        ("turn: later", ["c::2"]),
        ("turn: none", ["s"]),
        ("answerability: ANSWERABLE", ["c::1", "c::2"]),
        ("answerability: PARTIAL", ["d::1"]),
        ("question-type: Explanation", ["c::2"]),
        ("question-type: Factoid", ["c::1", "c::2"]),
        ("multi-turn: Follow-up", ["c::2"]),
    ]


def test_a_test_set_without_turns_has_no_groups() -> None:
    assert turn_groups(sorted(QRELS), {}, TAGS) == []


def test_each_groups_mean_over_its_scored_questions() -> None:
    r = result()
    assert r.mean("mrr") == pytest.approx(0.625)
    figures = breakdown([r], ["mrr"], turn_groups(r.questions, TURNS, TAGS))
    means = {label: per_run["run"]["metrics"]["mrr"] for label, per_run in figures.items()}
    assert means == pytest.approx(
        {
            "turn: first": 0.5,
            "turn: later": 0.5,
            "turn: none": 1.0,
            "answerability: ANSWERABLE": 0.75,
            "answerability: PARTIAL": 0.0,
            "question-type: Explanation": 0.5,
            "question-type: Factoid": 0.75,
            "multi-turn: Follow-up": 0.5,
        }
    )
    assert figures["turn: first"]["run"]["questions"] == 2


def test_unanswerable_and_missing_turns_are_counted_apart() -> None:
    qrels = Qrels.from_dict(QRELS).with_questions([*QRELS, "e::1"], unanswerable=["e::1"])
    run = Run.from_dict(name="run", run={q: r for q, r in RANKED.items() if q != "d::1"})
    r = evaluate(qrels, run, "mrr")
    figures = breakdown([r], ["mrr"], turn_groups(r.questions, {**TURNS, "e::1": 1}, TAGS))
    first = figures["turn: first"]["run"]
    assert (first["questions"], first["unanswerable"], first["missing"]) == (2, 1, 2)
    assert first["metrics"]["mrr"] == pytest.approx(0.5)


def test_rows_for_a_table_and_the_reports_by_turn() -> None:
    r = result()
    rows = breakdown_rows([r], ["mrr"], turn_groups(r.questions, TURNS, TAGS))
    assert rows[0] == {"group": "turn: first", "run": "run", "questions": 2, "mrr": 0.5}
    report = build_report(
        Qrels.from_dict(QRELS),
        [Run.from_dict(name="run", run=RANKED)],
        "mrr",
        tags=TAGS,
        turns=TURNS,
    )
    assert report.by_turn()["turn: later"]["run"]["metrics"]["mrr"] == pytest.approx(0.5)
    assert report.to_json()["runs"]["run"]["by_turn"]["turn: none"]["questions"] == 1
    assert (
        build_report(
            Qrels.from_dict(QRELS), [Run.from_dict(name="run", run=RANKED)], "mrr"
        ).by_turn()
        == {}
    )
