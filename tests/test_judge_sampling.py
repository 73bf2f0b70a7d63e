"""``labeler judge sample``: stratified, reproducible, stored as a named plan."""

import json
from collections import Counter

import pytest

from labeler.errors import LabelerError
from labeler.judge.importing import import_judgements
from labeler.judge.sampling import sample_plan, stratum
from labeler.judge.scales import Scale
from labeler.store import Store


def rate(store: Store, path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    import_judgements(store, path)


def judged(n_pass: int, n_fail: int, *, rater="J", metric="helpfulness") -> list[dict]:
    return [
        {
            "item": f"i{n:03d}",
            "metric": metric,
            "rater": rater,
            "rater_kind": "model",
            "verdict": 1 if n < n_pass else 0,
        }
        for n in range(n_pass + n_fail)
    ]


@pytest.fixture
def rated(store: Store, tmp_path) -> Store:
    rate(store, tmp_path / "j.jsonl", judged(40, 10))
    return store


def test_each_verdict_is_a_stratum(rated: Store) -> None:
    plan = sample_plan(rated, "helpfulness", per_stratum=5, seed=1)
    assert plan.name == "helpfulness-J-seed1"
    assert plan.strata == {"fail": (10, 5), "pass": (40, 5)}
    assert Counter(i.stratum for i in plan.items) == {"fail": 5, "pass": 5}
    saved = rated.plans.items(plan.name)
    assert [r["item"] for r in saved] == [i.item for i in plan.items]


def test_the_same_seed_gives_the_same_plan_and_another_seed_another(rated: Store) -> None:
    first = sample_plan(rated, "helpfulness", per_stratum=5, seed=1)
    again = sample_plan(rated, "helpfulness", per_stratum=5, seed=1)
    other = sample_plan(rated, "helpfulness", per_stratum=5, seed=2)
    assert again.created is False
    assert again.items == first.items
    assert {i.item for i in other.items} != {i.item for i in first.items}


def test_review_order_mixes_the_strata(rated: Store) -> None:
    """A blind reviewer must not meet all the judge's fails in a row."""
    plan = sample_plan(rated, "helpfulness", per_stratum=10, seed=3)
    order = [i.stratum for i in plan.items]
    assert order != sorted(order)
    assert order != sorted(order, reverse=True)


def test_a_small_stratum_is_taken_whole(rated: Store) -> None:
    plan = sample_plan(rated, "helpfulness", per_stratum=30, seed=0)
    assert plan.strata == {"fail": (10, 10), "pass": (40, 30)}


def test_a_different_plan_under_a_saved_name_needs_replace(rated: Store) -> None:
    sample_plan(rated, "helpfulness", per_stratum=5, seed=1, name="check")
    with pytest.raises(LabelerError, match="a different plan is already saved as 'check'"):
        sample_plan(rated, "helpfulness", per_stratum=6, seed=1, name="check")
    replaced = sample_plan(rated, "helpfulness", per_stratum=6, seed=1, name="check", replace=True)
    assert len(rated.plans.items("check")) == len(replaced.items) == 12


def test_disagreements_are_added(rated: Store, tmp_path) -> None:
    """People fail i000 and i001, which the judge passes: both join the plan."""
    rate(
        rated,
        tmp_path / "p.jsonl",
        [
            {
                "item": item,
                "metric": "helpfulness",
                "rater": "ana",
                "rater_kind": "human",
                "verdict": 0,
            }
            for item in ("i000", "i001", "i045")
        ],
    )
    plan = sample_plan(rated, "helpfulness", per_stratum=1, seed=0, disagreements=True)
    extra = {i.item for i in plan.items if i.reason == "disagreement"}
    chosen = {i.item for i in plan.items if i.reason == "stratum"}
    assert extra | chosen >= {"i000", "i001"}
    assert "i045" not in extra  # the judge fails it too


def test_several_judges_need_a_choice(rated: Store, tmp_path) -> None:
    rate(rated, tmp_path / "k.jsonl", judged(3, 3, rater="K"))
    with pytest.raises(LabelerError, match=r"helpfulness has several judges \(J, K\)"):
        sample_plan(rated, "helpfulness")
    assert sample_plan(rated, "helpfulness", judge="K", per_stratum=2).judge == "K"


def test_score_buckets() -> None:
    scale = Scale("score", threshold=0.5)
    assert [stratum(scale, 0, v) for v in (0.0, 0.19, 0.2, 0.55, 0.99, 1.0)] == [
        "0.0-0.2",
        "0.0-0.2",
        "0.2-0.4",
        "0.4-0.6",
        "0.8-1.0",
        "0.8-1.0",
    ]
    assert stratum(Scale("ordinal", 1, 4), 2, 3.0) == "3"


def test_per_stratum_must_be_positive(rated: Store) -> None:
    with pytest.raises(LabelerError, match="expected 1 or more"):
        sample_plan(rated, "helpfulness", per_stratum=0)
