"""``labeler judge sample``: which of a judge's verdicts people should check, as a named plan.

Stratified by the judge's verdict, so rare verdicts are checked too: one stratum per category
of a binary or ordinal scale, and five score buckets of width 0.2 for a score metric ([0, 0.2),
..., [0.8, 1]). From each stratum, ``per_stratum`` items (all of them when it holds fewer),
drawn without replacement. With ``disagreements``, every item where the judge's verdict differs
from the people's verdict (see ``labeler.judge.report``) is added too.

Reproducible: items are sorted by key within a stratum, and each stratum's draw comes from a
generator seeded by the seed and the stratum's name, so the same data and seed give the same
plan. The plan's order is a seeded shuffle of the chosen items: a reviewer who met the items
stratum by stratum would guess the judge's verdict, and the review is blind.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from labeler.accounts.roles import Right, require
from labeler.errors import LabelerError, NotFoundError
from labeler.judge.report import human_verdicts, metric_scale
from labeler.judge.scales import RELEVANCE, Scale
from labeler.store import Store

SCORE_BUCKETS = 5


@dataclass(frozen=True, slots=True)
class PlanItem:
    item: str
    stratum: str
    reason: str  # "stratum" or "disagreement"


@dataclass(frozen=True, slots=True)
class SamplePlan:
    name: str
    metric: str
    judge: str
    seed: int
    per_stratum: int
    disagreements: bool
    items: tuple[PlanItem, ...]
    strata: dict[str, tuple[int, int]]  # stratum -> (available, chosen)
    created: bool = True

    def summary(self) -> str:
        state = "saved" if self.created else "unchanged (already saved)"
        lines = [
            f"plan {self.name!r} {state}: {len(self.items)} items of {self.metric} judged by"
            f" {self.judge} (seed {self.seed})"
        ]
        for stratum, (available, chosen) in self.strata.items():
            lines.append(f"  {stratum}: {chosen} of {available}")
        extra = sum(1 for i in self.items if i.reason == "disagreement")
        if self.disagreements:
            lines.append(f"  plus {extra} items where the judge disagrees with people")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "metric": self.metric,
            "judge": self.judge,
            "seed": self.seed,
            "per_stratum": self.per_stratum,
            "disagreements": self.disagreements,
            "strata": {s: {"available": a, "chosen": c} for s, (a, c) in self.strata.items()},
            "items": [
                {"item": i.item, "stratum": i.stratum, "reason": i.reason} for i in self.items
            ],
        }


def stratum(scale: Scale, code: int, value: float) -> str:
    """The stratum of a judge's verdict: its category, or its score bucket."""
    if scale.kind != "score":
        return scale.labels[code]
    bucket = min(int(value * SCORE_BUCKETS), SCORE_BUCKETS - 1)
    low, high = bucket / SCORE_BUCKETS, (bucket + 1) / SCORE_BUCKETS
    return f"{low:.1f}-{high:.1f}"


def _generator(seed: int, name: str) -> np.random.Generator:
    salt = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big")
    return np.random.Generator(np.random.PCG64([seed, salt]))


def choose_judge(store: Store, metric: str, judge: str | None, chunking: str) -> str:
    models = sorted(
        {
            rater
            for _, rater, kind, *_ in store.ratings.metric_ratings(metric, chunking)
            if kind == "model"
        }
    )
    if judge is not None:
        if judge not in models:
            msg = f"{judge!r} gave no verdict on {metric}; judges: {', '.join(models) or 'none'}"
            raise NotFoundError(msg, field="judge")
        return judge
    if not models:
        msg = f"no judge has rated {metric}: import its verdicts first (labeler judge import)"
        raise NotFoundError(msg, field="metric")
    if len(models) > 1:
        msg = f"{metric} has several judges ({', '.join(models)}): choose one with --judge"
        raise LabelerError(msg, field="judge")
    return models[0]


def draw(
    store: Store,
    metric: str,
    *,
    judge: str,
    per_stratum: int,
    seed: int,
    disagreements: bool,
    chunking: str,
) -> tuple[list[PlanItem], dict[str, tuple[int, int]]]:
    """The plan's items in review order, and per stratum (available, chosen)."""
    scale = metric_scale(store, metric)
    strata: dict[str, list[str]] = {}
    judged: dict[str, int] = {}
    humans: dict[str, dict[str, int]] = {}
    for key, rater, kind, value, passed, _ in store.ratings.metric_ratings(metric, chunking):
        code = scale.code(value, None if passed is None else bool(passed))
        if kind == "model" and rater == judge:
            strata.setdefault(stratum(scale, code, value), []).append(key)
            judged[key] = code
        elif kind == "human":
            humans.setdefault(key, {})[rater] = code
    chosen: list[PlanItem] = []
    counts: dict[str, tuple[int, int]] = {}
    for name in sorted(strata):
        keys = sorted(strata[name])
        take = min(per_stratum, len(keys))
        order = _generator(seed, name).permutation(len(keys))[:take]
        chosen += [PlanItem(keys[i], name, "stratum") for i in sorted(order)]
        counts[name] = (len(keys), take)
    if disagreements:
        adjudicated = (
            store.adjudications.relevance_adjudications(chunking) if metric == RELEVANCE else {}
        )
        verdicts, _, _ = human_verdicts(humans, adjudicated)
        taken = {p.item for p in chosen}
        lookup = {key: name for name, keys in strata.items() for key in keys}
        for key in sorted(judged):
            if key in verdicts and verdicts[key] != judged[key] and key not in taken:
                chosen.append(PlanItem(key, lookup[key], "disagreement"))
    order = _generator(seed, "review order").permutation(len(chosen))
    return [chosen[i] for i in order], counts


def sample_plan(
    store: Store,
    metric: str,
    *,
    judge: str | None = None,
    per_stratum: int = 30,
    seed: int = 0,
    disagreements: bool = False,
    name: str | None = None,
    created_by: str | None = None,
    replace: bool = False,
    chunking: str | None = None,
) -> SamplePlan:
    """Draw and store a plan; the same request twice finds the saved plan unchanged.
    ``created_by``, when given, must have the right to (a lead, on a team server)."""
    if created_by is not None:
        require(store, created_by, Right.JUDGE)
    if per_stratum < 1:
        msg = f"expected 1 or more items per stratum, got {per_stratum}"
        raise LabelerError(msg, field="per-stratum")
    chunking = chunking or store.corpus.current_chunking()
    judge = choose_judge(store, metric, judge, chunking)
    name = name or f"{metric}-{judge}-seed{seed}"
    items, counts = draw(
        store,
        metric,
        judge=judge,
        per_stratum=per_stratum,
        seed=seed,
        disagreements=disagreements,
        chunking=chunking,
    )
    plan = SamplePlan(name, metric, judge, seed, per_stratum, disagreements, tuple(items), counts)
    existing = store.plans.get(name)
    if existing is not None:
        saved = [(r["item"], r["stratum"], r["reason"]) for r in store.plans.items(name)]
        same = (
            existing["metric"],
            existing["judge"],
            existing["seed"],
            existing["per_stratum"],
            bool(existing["disagreements"]),
        ) == (metric, judge, seed, per_stratum, disagreements) and saved == [
            (i.item, i.stratum, i.reason) for i in items
        ]
        if same:
            return SamplePlan(**{**plan_fields(plan), "created": False})
        if not replace:
            msg = (
                f"a different plan is already saved as {name!r}; choose another --name, or"
                " --replace it (the verdicts given so far are kept)"
            )
            raise LabelerError(msg, field="name")
    with store.write():
        if existing is not None:
            store.plans.delete(name)
        store.plans.save(
            name,
            metric=metric,
            judge=judge,
            seed=seed,
            per_stratum=per_stratum,
            disagreements=disagreements,
            created_by=created_by,
            items=[(i.item, i.stratum, i.reason) for i in items],
        )
    return plan


def plan_fields(plan: SamplePlan) -> dict:
    return {name: getattr(plan, name) for name in SamplePlan.__slots__}


__all__ = [
    "SCORE_BUCKETS",
    "PlanItem",
    "SamplePlan",
    "choose_judge",
    "draw",
    "sample_plan",
    "stratum",
]
