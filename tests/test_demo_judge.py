"""The demo opens the judge pages on real work: two spot-check plans with work left, a report
with people's verdicts to compare, and the reviewers' five disagreements to adjudicate."""

import pytest

from labeler.demo import DEMO_DIR, load_demo
from labeler.grading import disputes
from labeler.judge import review
from labeler.judge.report import metric_report
from labeler.store import Store


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Store:
    store = Store(tmp_path_factory.mktemp("demo") / "demo.db")
    load_demo(store, DEMO_DIR)
    yield store
    store.close()


def test_two_plans_with_work_left(demo: Store) -> None:
    plans = {p["name"]: p for p in demo.plans.all()}
    assert set(plans) == {"relevance spot-check", "faithfulness spot-check"}
    for name in plans:
        assert review.progress(demo, name, "newcomer").done == 0
        assert review.next_item(demo, name, "newcomer") is not None
    # maria has already reviewed part of the faithfulness plan
    done = review.progress(demo, "faithfulness spot-check", "maria")
    assert 0 < done.done < done.total


def test_the_report_compares_judge_and_people(demo: Store) -> None:
    relevance = metric_report(demo, "relevance", resamples=200)
    judge = relevance.judges["gpt-4o-mini"]
    assert judge.items > 200
    assert judge.bias_direction == "lenient"
    assert relevance.tied == 5  # maria and tom's five disagreements, until adjudicated
    faithfulness = metric_report(demo, "Faithfulness", resamples=200)
    assert faithfulness.judges["gpt-4o-mini"].items == 19
    assert [(p.a, p.b) for p in faithfulness.humans.pairs] == [("maria", "tom")]


def test_five_disputes_with_notes_side_by_side(demo: Store) -> None:
    found = disputes.disputes(demo)
    assert found.chunks == 5
    assert found.settled == 0
    assert all(v.note for q in found.questions for c in q.chunks for v in c.votes)
