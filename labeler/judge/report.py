"""How far to trust each judge: its verdicts against the people's, per metric.

For each metric, every item's **human verdict** is, in order: the adjudicated grade (relevance:
``labeler adjudicate`` or the adjudication page); else the category most of its reviewers
chose. A tie for the most votes has no verdict: the item is left out of the judge comparison
and counted as ``tied`` (settle it by adjudication or a further review), since settling it by
a rule would hand the judge an arbitrary truth. A score metric's verdicts are compared as pass
or fail at its threshold.

Per judge (model rater), over the items it rated that have a human verdict: raw agreement with
a Wilson 95 % interval; Cohen's kappa (quadratic-weighted on an ordinal scale) with a
percentile bootstrap 95 % interval; Spearman's rho where verdicts are graded (score: the
judge's score, negated when lower is better, against the human verdict; ordinal: both
grades); the confusion matrix (rows: people, columns: the judge); bias: items the judge put
above the people's verdict and below it, the mean difference in categories, and the exact sign
test of the two counts; the disagreements with the judge's rationale.

Among people: Krippendorff's alpha over every item two or more of them rated (ordinal on an
ordinal scale, nominal otherwise; missing ratings allowed), and weighted kappa for each pair of
people with at least ``MIN_PAIR_ITEMS`` items in common.

The sentence for a team lead: below ``MIN_ITEMS`` compared items it says the sample is too
small. Otherwise it names the agreement, kappa and their intervals, and decides against
kappa = ``TRUST_KAPPA`` (0.6, "substantial" in Landis & Koch): the whole interval above it, the
judge can stand in for reviewers; the whole interval below it, it cannot; an interval across it
is too small a sample to conclude, and the sentence estimates how many more reviewed items
would settle it (the interval narrows as 1/sqrt(n)). A bias with p < 0.05 is named.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np

from labeler import agreement
from labeler.errors import NotFoundError
from labeler.judge.metrics import definition_of
from labeler.judge.scales import RELEVANCE, RELEVANCE_SCALE, Scale, parse_scale
from labeler.store import Store
from labeler.store.ratings import parse_relevance_key

MIN_ITEMS = 20
MIN_PAIR_ITEMS = 10
TRUST_KAPPA = 0.6
BIAS_P = 0.05
ALPHA_RELIABLE = 0.8
ALPHA_TENTATIVE = 0.667


@dataclass(frozen=True, slots=True)
class Disagreement:
    item: str
    human: str
    judge: str
    judge_value: float
    rationale: str | None
    distance: int
    question: str | None = None  # the question's text, so a reader knows the item

    def as_dict(self) -> dict:
        found = parse_relevance_key(self.item)
        return {
            "item": self.item,
            "question_id": found[0] if found else None,
            "chunk_id": found[1] if found else None,
            "question": self.question,
            "human": self.human,
            "judge": self.judge,
            "judge_value": self.judge_value,
            "rationale": self.rationale,
        }


@dataclass(frozen=True, slots=True)
class JudgeStats:
    rater: str
    items: int
    agreement: float | None
    agreement_ci: tuple[float, float] | None
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    spearman: float | None
    labels: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]
    higher: int
    lower: int
    mean_difference: float | None
    bias_p: float | None
    disagreements: tuple[Disagreement, ...]
    summary: str

    @property
    def bias_direction(self) -> str:
        if self.bias_p is None or self.bias_p >= BIAS_P:
            return "none"
        return "lenient" if self.higher > self.lower else "strict"

    def as_dict(self) -> dict:
        return {
            "items": self.items,
            "agreement": self.agreement,
            "agreement_ci": list(self.agreement_ci) if self.agreement_ci else None,
            "kappa": self.kappa,
            "kappa_ci": list(self.kappa_ci) if self.kappa_ci else None,
            "spearman": self.spearman,
            "confusion": {
                "labels": list(self.labels),
                "rows": "human",
                "columns": "judge",
                "matrix": [list(r) for r in self.confusion],
            },
            "bias": {
                "judge_higher": self.higher,
                "judge_lower": self.lower,
                "mean_difference": self.mean_difference,
                "p_value": self.bias_p,
                "direction": self.bias_direction,
            },
            "summary": self.summary,
            "disagreements": [d.as_dict() for d in self.disagreements],
        }


@dataclass(frozen=True, slots=True)
class Pair:
    a: str
    b: str
    items: int
    kappa: float | None

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "items": self.items, "kappa": self.kappa}


@dataclass(frozen=True, slots=True)
class HumanStats:
    alpha: float | None
    raters: tuple[str, ...]
    items: int
    pairs: tuple[Pair, ...]
    summary: str

    def as_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "raters": list(self.raters),
            "pairs": [p.as_dict() for p in self.pairs],
            "items": self.items,
            "summary": self.summary,
        }


@dataclass(frozen=True, slots=True)
class MetricReport:
    name: str
    scale: Scale
    definition: str | None
    items: int
    human_verdicts: int
    tied: int
    adjudicated: int
    humans: HumanStats
    judges: dict[str, JudgeStats] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "scale": self.scale.spec,
            "items": self.items,
            "humans": self.humans.as_dict(),
            "judges": {name: j.as_dict() for name, j in self.judges.items()},
            "threshold": self.scale.threshold if self.scale.kind == "score" else None,
            "pass_when": self.scale.pass_when if self.scale.kind == "score" else None,
            "human_verdicts": self.human_verdicts,
            "tied": self.tied,
            "adjudicated": self.adjudicated,
        }


@dataclass(frozen=True, slots=True)
class Report:
    metrics: dict[str, MetricReport]
    resamples: int
    seed: int

    def as_dict(self) -> dict:
        return {"metrics": {name: m.as_dict() for name, m in self.metrics.items()}}


# the human verdict --------------------------------------------------------------------------


def majority(codes: list[int]) -> int | None:
    """The category most raters chose; None on a tie for the most votes."""
    counts = Counter(codes).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None
    return counts[0][0]


def human_verdicts(
    humans: dict[str, dict[str, int]], adjudicated: dict[str, int]
) -> tuple[dict[str, int], int, int]:
    """({item: verdict code}, tied items, adjudicated items) from people's ratings."""
    verdicts: dict[str, int] = {}
    tied = used = 0
    for key in set(humans) | set(adjudicated):
        if key in adjudicated:
            verdicts[key] = adjudicated[key]
            used += 1
            continue
        verdict = majority(list(humans[key].values()))
        if verdict is None:
            tied += 1
        else:
            verdicts[key] = verdict
    return verdicts, tied, used


# one judge ----------------------------------------------------------------------------------


def _more_items_needed(n: int, interval: tuple[float, float], kappa: float) -> int | None:
    half = (interval[1] - interval[0]) / 2
    distance = abs(kappa - TRUST_KAPPA)
    if distance < 1e-9:
        return None
    return max(1, math.ceil(n * (half / distance) ** 2) - n)


def _pct(value: float) -> str:
    return f"{100 * value:.0f} %"


def judge_sentence(metric: str, scale: Scale, stats: dict) -> str:
    """The plain sentence a team lead can act on (see the module docstring)."""
    name, n = stats["rater"], stats["items"]
    if n < MIN_ITEMS:
        have = "no item has" if n == 0 else "one item has" if n == 1 else f"only {n} items have"
        return (
            f"{name} on {metric}: {have} both its verdict and a human one, too few to conclude"
            f" anything; review at least {MIN_ITEMS - n} more (30 to 50 is better)."
        )
    lo, hi = stats["agreement_ci"]
    text = (
        f"{name} on {metric}: it agrees with the human verdict on"
        f" {stats['agreed']} of {n} items ({_pct(stats['agreement'])}, 95 % CI"
        f" {_pct(lo)} to {_pct(hi)})"
    )
    kappa, interval = stats["kappa"], stats["kappa_ci"]
    kind = "quadratic-weighted kappa" if scale.kind == "ordinal" else "kappa"
    if kappa is None:
        text += (
            f"; {kind} is undefined (every verdict fell in one category), so agreement beyond"
            " chance cannot be told: sample items the judge rated differently."
        )
    elif interval is None:
        text += f", {kind} {kappa:.2f}."
    else:
        text += f", {kind} {kappa:.2f} (95 % CI {interval[0]:.2f} to {interval[1]:.2f}). "
        if interval[0] >= TRUST_KAPPA:
            text += (
                f"The whole interval is above {TRUST_KAPPA}: it can stand in for reviewers on"
                " this metric, with occasional spot-checks."
            )
        elif interval[1] < TRUST_KAPPA:
            text += (
                f"Even the top of the interval is below {TRUST_KAPPA}: do not rely on it for"
                " this metric."
            )
        else:
            more = _more_items_needed(n, interval, kappa)
            extra = (
                f"if kappa stays near {kappa:.2f}, about {more} more reviewed items would settle it"
                if more is not None and more < 100_000
                else "many more reviewed items are needed"
            )
            text += (
                f"Too small a sample to conclude: the interval straddles {TRUST_KAPPA}; {extra}."
            )
    if stats["bias_p"] is not None and stats["bias_p"] < BIAS_P:
        higher, lower = stats["higher"], stats["lower"]
        if scale.kind == "ordinal":
            what = (
                f" It grades {higher} items higher than people and {lower} lower"
                f" (sign test p = {stats['bias_p']:.3f}):"
            )
        else:
            what = (
                f" It passes {higher} items that people fail and fails {lower} they pass"
                f" (sign test p = {stats['bias_p']:.3f}):"
            )
        text += what + (" too lenient." if higher > lower else " too strict.")
    return text


def judge_stats(
    metric: str,
    scale: Scale,
    rater: str,
    given: dict[str, tuple[int, float, str | None]],
    verdicts: dict[str, int],
    *,
    resamples: int,
    seed: int,
) -> JudgeStats:
    keys = sorted(k for k in given if k in verdicts)
    human = np.array([verdicts[k] for k in keys], dtype=np.int64)
    judge = np.array([given[k][0] for k in keys], dtype=np.int64)
    n = len(keys)
    k = scale.categories
    agreed = int((human == judge).sum())
    kappa = agreement.cohen_kappa(human, judge, categories=k, weights=scale.weights)
    interval = agreement.bootstrap_kappa_interval(
        human, judge, categories=k, weights=scale.weights, resamples=resamples, seed=seed
    )
    rho = None
    if scale.kind != "binary" and n:
        raw = np.array([given[key][1] for key in keys], dtype=float)
        if scale.kind == "score" and scale.pass_when == "<=":
            raw = -raw
        rho = agreement.spearman(raw if scale.kind == "score" else judge, human)
    higher, lower = int((judge > human).sum()), int((judge < human).sum())
    labels = scale.labels
    disagreements = sorted(
        (
            Disagreement(
                item=key,
                human=labels[verdicts[key]],
                judge=labels[given[key][0]],
                judge_value=given[key][1],
                rationale=given[key][2],
                distance=abs(given[key][0] - verdicts[key]),
            )
            for key in keys
            if given[key][0] != verdicts[key]
        ),
        key=lambda d: (-d.distance, d.item),
    )
    stats = {
        "rater": rater,
        "items": n,
        "agreed": agreed,
        "agreement": agreed / n if n else None,
        "agreement_ci": agreement.wilson_interval(agreed, n),
        "kappa": kappa,
        "kappa_ci": interval,
        "higher": higher,
        "lower": lower,
        "bias_p": agreement.sign_test(higher, lower),
    }
    confusion = agreement.confusion_matrix(human, judge, k)
    return JudgeStats(
        rater=rater,
        items=n,
        agreement=stats["agreement"],
        agreement_ci=stats["agreement_ci"],
        kappa=kappa,
        kappa_ci=interval,
        spearman=rho,
        labels=tuple(labels),
        confusion=tuple(tuple(int(c) for c in row) for row in confusion),
        higher=higher,
        lower=lower,
        mean_difference=float((judge - human).mean()) if n else None,
        bias_p=stats["bias_p"],
        disagreements=tuple(disagreements),
        summary=judge_sentence(metric, scale, stats),
    )


# people among themselves --------------------------------------------------------------------


def human_stats(metric: str, scale: Scale, humans: dict[str, dict[str, int]]) -> HumanStats:
    raters = sorted({r for given in humans.values() for r in given})
    shared = {key: given for key, given in humans.items() if len(given) >= 2}
    alpha = agreement.alpha_of(
        ((key, code) for key, given in shared.items() for code in given.values()),
        categories=scale.categories,
        level=scale.level,
    )
    by_rater: dict[str, dict[str, int]] = {}
    for key, given in shared.items():
        for rater, code in given.items():
            by_rater.setdefault(rater, {})[key] = code
    pairs = []
    for a, b in combinations(raters, 2):
        common = sorted(set(by_rater.get(a, {})) & set(by_rater.get(b, {})))
        if len(common) < MIN_PAIR_ITEMS:
            continue
        kappa = agreement.cohen_kappa(
            [by_rater[a][k] for k in common],
            [by_rater[b][k] for k in common],
            categories=scale.categories,
            weights=scale.weights,
        )
        pairs.append(Pair(a, b, len(common), kappa))
    return HumanStats(
        alpha=alpha,
        raters=tuple(raters),
        items=len(shared),
        pairs=tuple(pairs),
        summary=human_sentence(metric, scale, raters, len(shared), alpha),
    )


def human_sentence(
    metric: str, scale: Scale, raters: list[str], items: int, alpha: float | None
) -> str:
    level = "ordinal" if scale.level == "ordinal" else "nominal"
    if len(raters) < 2 or items == 0:
        who = "one reviewer" if len(raters) == 1 else "no reviewer"
        return (
            f"People on {metric}: {who} so far, or no item rated by two; agreement among"
            " people cannot be measured (have a second reviewer rate some of the same items)."
        )
    if alpha is None:
        return (
            f"People on {metric}: {items} items rated by two or more, but every verdict is the"
            " same category, so Krippendorff's alpha is undefined."
        )
    if items < MIN_ITEMS:
        verdict = "too few shared items to conclude"
    elif alpha >= ALPHA_RELIABLE:
        verdict = "reliable (at least 0.8)"
    elif alpha >= ALPHA_TENTATIVE:
        verdict = "good enough for tentative conclusions only (0.667 to 0.8)"
    else:
        verdict = (
            "below 0.667: the definition or the guidelines need work before the human"
            " verdict can serve as the truth"
        )
    return (
        f"People on {metric}: Krippendorff's alpha ({level}) {alpha:.3f} over {items} items"
        f" rated by two or more of {len(raters)} reviewers; {verdict}."
    )


# the report ---------------------------------------------------------------------------------


def _with_questions(
    store: Store, metric: str, stats: dict[str, JudgeStats]
) -> dict[str, JudgeStats]:
    """The disagreements with their question's text, fetched once for all judges."""
    keys = sorted({d.item for j in stats.values() for d in j.disagreements})
    if not keys:
        return stats
    if metric == RELEVANCE:
        pairs = {key: parse_relevance_key(key) for key in keys}
        texts = store.questions.texts(sorted({p[0] for p in pairs.values() if p}))
        found = {key: texts.get(p[0]) if p else None for key, p in pairs.items()}
    else:
        found = {
            key: row["question"] for key, row in store.ratings.rating_items_by_key(keys).items()
        }
    return {
        name: replace(
            j,
            disagreements=tuple(replace(d, question=found.get(d.item)) for d in j.disagreements),
        )
        for name, j in stats.items()
    }


def metric_scale(store: Store, metric: str) -> Scale:
    if metric == RELEVANCE:
        return RELEVANCE_SCALE
    stored = store.ratings.metrics().get(metric)
    if stored is None:
        msg = f"no ratings of the metric {metric!r}"
        raise NotFoundError(msg, field="metric")
    scale = parse_scale(stored["scale"])
    if scale.kind == "score":
        return Scale("score", threshold=stored["threshold"], pass_when=stored["pass_when"])
    return scale


def report_metrics(store: Store, chunking: str) -> list[str]:
    """Every metric with ratings, plus relevance when reviewers have graded chunks; the one
    with the most evidence first (items both a judge and a person rated), so the report opens
    on what it can say most about, not on a metric with too few items to conclude."""
    names = set(store.ratings.metrics())
    if store.ratings.has_relevance_labels(chunking):
        names.add(RELEVANCE)
    return sorted(names, key=lambda name: (-_evidence(store, name, chunking), name.lower()))


def _evidence(store: Store, metric: str, chunking: str) -> int:
    """Items of ``metric`` that a judge and a person both rated."""
    people: set = set()
    judges: set = set()
    for key, _rater, kind, *_ in store.ratings.metric_ratings(metric, chunking):
        (people if kind == "human" else judges).add(key)
    return len(people & judges)


def metric_title(name: str) -> str:
    """How pages name a metric: its first letter capitalised ("relevance" from the labels and
    "Faithfulness" from a judge's file side by side read "Relevance", "Faithfulness")."""
    return name[:1].upper() + name[1:]


def metric_report(
    store: Store,
    metric: str,
    *,
    chunking: str | None = None,
    resamples: int = agreement.DEFAULT_RESAMPLES,
    seed: int = 0,
    judges: tuple[str, ...] | None = None,
) -> MetricReport:
    chunking = chunking or store.corpus.current_chunking()
    scale = metric_scale(store, metric)
    humans: dict[str, dict[str, int]] = {}
    models: dict[str, dict[str, tuple[int, float, str | None]]] = {}
    items = set()
    for key, rater, kind, value, passed, rationale in store.ratings.metric_ratings(
        metric, chunking
    ):
        code = scale.code(value, None if passed is None else bool(passed))
        items.add(key)
        if kind == "human":
            humans.setdefault(key, {})[rater] = code
        else:
            models.setdefault(rater, {})[key] = (code, value, rationale)
    adjudicated = (
        store.adjudications.relevance_adjudications(chunking) if metric == RELEVANCE else {}
    )
    verdicts, tied, used = human_verdicts(humans, adjudicated)
    stored = store.ratings.metrics().get(metric)
    stats = {
        rater: judge_stats(metric, scale, rater, given, verdicts, resamples=resamples, seed=seed)
        for rater, given in sorted(models.items())
        if judges is None or rater in judges
    }
    stats = _with_questions(store, metric, stats)
    return MetricReport(
        name=metric,
        scale=scale,
        definition=definition_of(metric, stored["definition"] if stored else None),
        items=len(items),
        human_verdicts=len(verdicts),
        tied=tied,
        adjudicated=used,
        humans=human_stats(metric, scale, humans),
        judges=stats,
    )


def build_report(
    store: Store,
    *,
    metrics: tuple[str, ...] | None = None,
    chunking: str | None = None,
    resamples: int = agreement.DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Report:
    """The judge report for ``metrics`` (every metric with ratings when None)."""
    chunking = chunking or store.corpus.current_chunking()
    names = list(metrics) if metrics else report_metrics(store, chunking)
    with store.snapshot():
        found = {
            name: metric_report(store, name, chunking=chunking, resamples=resamples, seed=seed)
            for name in names
        }
    return Report(found, resamples=resamples, seed=seed)


__all__ = [
    "BIAS_P",
    "MIN_ITEMS",
    "MIN_PAIR_ITEMS",
    "TRUST_KAPPA",
    "Disagreement",
    "HumanStats",
    "JudgeStats",
    "MetricReport",
    "Pair",
    "Report",
    "build_report",
    "human_verdicts",
    "judge_sentence",
    "majority",
    "metric_report",
    "metric_scale",
    "metric_title",
    "report_metrics",
]
