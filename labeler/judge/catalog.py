"""The metrics of a project: list them, and declare a metric's scale, threshold and definition
(``labeler judge metrics`` and ``labeler judge define``)."""

from __future__ import annotations

from dataclasses import dataclass

from labeler.accounts.roles import Right, require
from labeler.errors import LabelerError, NotFoundError
from labeler.judge.importing import MetricSettled, check_stored_fit
from labeler.judge.metrics import definition_of
from labeler.judge.report import report_metrics
from labeler.judge.scales import (
    RELEVANCE,
    RELEVANCE_SCALE,
    Scale,
    parse_scale,
    parse_threshold,
)
from labeler.store import Store


@dataclass(frozen=True, slots=True)
class MetricInfo:
    name: str
    scale: str
    threshold: float | None
    threshold_source: str | None
    pass_when: str | None
    definition: str | None
    judges: tuple[str, ...]
    model_ratings: int
    human_ratings: int
    plans: tuple[str, ...]

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}


def list_metrics(store: Store, *, chunking: str | None = None) -> list[MetricInfo]:
    chunking = chunking or store.corpus.current_chunking()
    stored = store.ratings.metrics()
    counts = store.ratings.metric_counts()
    judges = store.ratings.metric_judges()
    plans: dict[str, list[str]] = {}
    for plan in store.plans.all():
        plans.setdefault(plan["metric"], []).append(plan["name"])
    found = []
    for name in report_metrics(store, chunking):
        row = stored.get(name)
        count = counts.get(name, {"model": 0, "human": 0})
        humans = count["human"]
        if name == RELEVANCE:
            humans += store.ratings.label_count(chunking)
        found.append(
            MetricInfo(
                name=name,
                scale=row["scale"] if row else RELEVANCE_SCALE.spec,
                threshold=row["threshold"] if row else None,
                threshold_source=row["threshold_source"] if row else None,
                pass_when=row["pass_when"] if row and row["scale"] == "score" else None,
                definition=definition_of(name, row["definition"] if row else None),
                judges=tuple(judges.get(name, ())),
                model_ratings=count["model"],
                human_ratings=humans,
                plans=tuple(plans.get(name, ())),
            )
        )
    return found


def define_metric(
    store: Store,
    name: str,
    *,
    scale: str | None = None,
    threshold: str | float | None = None,
    pass_when: str | None = None,
    definition: str | None = None,
    actor: str | None = None,
) -> bool:
    """Declare a metric or change it; ratings already stored must fit a new scale. ``actor``,
    when given, must have the right to (a lead, on a team server)."""
    if actor is not None:
        require(store, actor, Right.JUDGE)
    name = (name or "").strip()
    if not name:
        raise LabelerError("a metric needs a name", field="metric")
    stored = store.ratings.metrics().get(name)
    if stored is None and scale is None and name != RELEVANCE:
        msg = f"{name!r} is a new metric: give its --scale"
        raise NotFoundError(msg, field="scale")
    spec = parse_scale(scale) if scale is not None else None
    if name == RELEVANCE:
        spec = spec or RELEVANCE_SCALE
        if spec.spec != RELEVANCE_SCALE.spec:
            msg = f"relevance is graded on {RELEVANCE_SCALE.spec}, the labels' scale"
            raise LabelerError(msg, field="scale")
    spec = spec or parse_scale(stored["scale"])
    value = None if threshold is None else parse_threshold(threshold)
    if pass_when is not None and pass_when not in (">=", "<="):
        raise LabelerError("expected >= or <=", field="pass-when")
    if spec.kind != "score":
        if value is not None or pass_when is not None:
            msg = f"{name} is {spec.spec}: a threshold applies only to a score metric"
            raise LabelerError(msg, field="threshold")
        settled = MetricSettled(name, spec, None)
    else:
        kept = stored if stored and stored["scale"] == "score" else None
        source = (
            "stated" if value is not None else (kept["threshold_source"] if kept else "default")
        )
        if value is None:
            value = kept["threshold"] if kept and kept["threshold"] is not None else 0.5
        when = pass_when or (kept["pass_when"] if kept else ">=")
        settled = MetricSettled(name, Scale("score", threshold=value, pass_when=when), source)
    check_stored_fit(store, settled, stored)
    with store.write():
        changed = store.ratings.save_metric(
            name,
            scale=settled.scale.spec,
            threshold=settled.scale.threshold if spec.kind == "score" else None,
            threshold_source=settled.threshold_source,
            pass_when=settled.scale.pass_when,
            definition=definition.strip() if definition else None,
        )
        if spec.kind == "score" and threshold is not None:
            store.ratings.rescore_metric(name)
    return changed


__all__ = ["MetricInfo", "define_metric", "list_metrics"]
