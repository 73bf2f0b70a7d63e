"""``labeler judge import``: judges' and people's verdicts from a file, in one transaction.

A format reader (``labeler.judge.formats``) turns a file into ``Rating`` rows and says what the
file tells about each metric (``MetricHint``: DeepEval's thresholds, for instance). This module
does the rest, the same for every format:

1. stage every row in temporary tables (an item's details once, the first time it appears;
   later rows of the same item must not contradict them);
2. settle each metric's scale, in this order: ``--metric-scale`` on the command line, the scale
   already stored, what the file says, the built-in metrics (``labeler.judge.metrics``), and
   last what the verdicts show (all 0 or 1: binary; all from 0 to 1: score; whole numbers
   beyond 1 must be declared, since their range cannot be guessed). A score's threshold:
   ``--threshold``, the file's, the stored one, else 0.5 (reported as a default);
3. check every verdict against its scale, every item's question and chunk, one verdict per
   (item, metric, rater), one kind per rater: the first problem raises with its file, line and
   field, and nothing is written;
4. people's relevance grades become labels (relevance grades live in ``labels``, with their
   history), everything else is merged into the ratings; importing the same file again
   changes nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from labeler.errors import LabelerError, Quoted, cut, shown
from labeler.judge.formats import detect_format, get_format
from labeler.judge.metrics import known_metric
from labeler.judge.records import (
    Item,
    MetricHint,
    Rating,
    ReadOptions,
)
from labeler.judge.scales import (
    DEFAULT_THRESHOLD,
    RELEVANCE,
    RELEVANCE_SCALE,
    Scale,
    parse_scale,
)
from labeler.readers import check_file
from labeler.store import Store


@dataclass(frozen=True, slots=True)
class MetricSettled:
    name: str
    scale: Scale
    threshold_source: str | None

    def describe(self) -> str:
        text = f"{self.name}: {self.scale.spec}"
        if self.scale.kind == "score":
            text += f", passes at {self.scale.pass_when} {self.scale.threshold:g}"
            if self.threshold_source == "default":
                text += f" (a default: state it with --threshold {self.name}=T)"
        return text


@dataclass(frozen=True, slots=True)
class JudgeImport:
    """What an import did."""

    path: str
    format: str
    metrics: tuple[MetricSettled, ...]
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    items_added: int = 0
    items_updated: int = 0
    labels: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(
            self.added
            or self.updated
            or self.items_added
            or self.items_updated
            or any(a or u for a, u, _ in self.labels.values())
        )

    def summary(self) -> str:
        lines = [
            f"{self.format}: {self.added} ratings added, {self.updated} updated,"
            f" {self.unchanged} unchanged; {self.items_added} new items"
            + (f", {self.items_updated} items updated" if self.items_updated else "")
        ]
        for reviewer, (added, updated, unchanged) in sorted(self.labels.items()):
            lines.append(
                f"  relevance grades of {reviewer} (labels): {added} added, {updated} updated,"
                f" {unchanged} unchanged"
            )
        lines += ["  " + m.describe() for m in self.metrics]
        for reason, count in sorted(self.skipped.items()):
            lines.append(f"  skipped {count}: {reason}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "format": self.format,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "items_added": self.items_added,
            "items_updated": self.items_updated,
            "labels": {
                r: dict(zip(("added", "updated", "unchanged"), v, strict=True))
                for r, v in self.labels.items()
            },
            "metrics": {
                m.name: {
                    "scale": m.scale.spec,
                    "threshold": m.scale.threshold if m.scale.kind == "score" else None,
                    "threshold_source": m.threshold_source,
                    "pass_when": m.scale.pass_when if m.scale.kind == "score" else None,
                }
                for m in self.metrics
            },
            "skipped": self.skipped,
        }


# scales -------------------------------------------------------------------------------------


def _sql_condition(scale: Scale) -> str:
    """The SQL test that a staged value fits ``scale`` (built from numbers, never user text)."""
    if scale.kind == "binary":
        return "value IN (0, 1)"
    if scale.kind == "ordinal":
        return f"value = CAST(value AS INTEGER) AND value BETWEEN {scale.low} AND {scale.high}"
    return "value BETWEEN 0 AND 1"


def _inferred(name: str, values: dict, path: Path) -> str:
    low, high, fractional = values["low"], values["high"], values["fractional"] or 0
    if low >= 0 and high <= 1:
        return "score" if fractional else "binary"
    msg = (
        f"metric {shown(name)} has no declared scale and its verdicts run from {low:g} to {high:g}:"
        f" declare it, e.g. --metric-scale {name}=ordinal:{math.floor(low)}-{math.ceil(high)}"
    )
    raise LabelerError(msg, path=path, line=values["line"], field="metric")


def settle_scale(
    name: str,
    *,
    declared: str | None,
    threshold: float | None,
    stored: dict | None,
    hint: MetricHint | None,
    values: dict,
    path: Path,
) -> MetricSettled:
    """The scale of one metric of the file (see the module docstring for the order)."""
    known = known_metric(name)
    if declared is not None:
        scale = parse_scale(declared)
    elif stored is not None:
        scale = parse_scale(stored["scale"])
    elif hint is not None and hint.scale is not None:
        scale = parse_scale(hint.scale)
    elif known is not None:
        scale = parse_scale(known.scale)
    else:
        scale = parse_scale(_inferred(name, values, path))
    if name == RELEVANCE and scale.spec != RELEVANCE_SCALE.spec:
        msg = f"relevance is graded on {RELEVANCE_SCALE.spec} (the labels' scale), not {scale.spec}"
        raise LabelerError(msg, field="metric-scale")
    if scale.kind != "score":
        if threshold is not None:
            msg = f"{name} is {scale.spec}: a threshold applies only to a score metric"
            raise LabelerError(msg, field="threshold")
        return MetricSettled(name, scale, None)
    if threshold is not None:
        value, source = threshold, "stated"
    elif hint is not None and hint.threshold is not None:
        value, source = hint.threshold, "file"
    elif stored is not None and stored["threshold"] is not None:
        value, source = stored["threshold"], stored["threshold_source"]
    else:
        value, source = DEFAULT_THRESHOLD, "default"
    pass_when = (
        (hint.pass_when if hint is not None else None)
        or (stored["pass_when"] if stored is not None else None)
        or (known.pass_when if known is not None else None)
        or ">="
    )
    return MetricSettled(name, Scale("score", threshold=value, pass_when=pass_when), source)


def check_stored_fit(store: Store, settled: MetricSettled, stored: dict | None) -> None:
    """A metric whose scale changes must still hold every verdict stored for it."""
    if stored is None or stored["scale"] == settled.scale.spec:
        return
    found = store.ratings.metric_value_range(settled.name)
    if not found["n"]:
        return
    probe = {"low": found["low"], "high": found["high"]}
    scale = settled.scale
    fits = scale.check(probe["low"]) is None and scale.check(probe["high"]) is None
    if scale.kind in ("binary", "ordinal") and found["fractional"]:
        fits = False
    if scale.kind == "binary":
        fits = fits and probe["low"] in (0, 1) and probe["high"] in (0, 1)
    if not fits:
        msg = (
            f"{settled.name} holds {found['n']} ratings from {found['low']:g} to"
            f" {found['high']:g}, which do not fit {scale.spec} (it was {stored['scale']})"
        )
        raise LabelerError(msg, field="metric-scale")


# the import ---------------------------------------------------------------------------------


def _staged_rows(
    rows: Iterable[Rating], path: Path, items: list, seen: dict[str, Item]
) -> Iterator[tuple]:
    """Rating rows for the staging table; each item's details collected once in ``items``.

    Checked here, as the file streams by, so the error names the very line: an item's details
    may not contradict an earlier row's, one verdict per (item, metric, rater), one kind per
    rater.
    """
    given: set[tuple[str, str, str]] = set()
    kinds: dict[str, str] = {}
    for row in rows:
        item = row.item
        first = seen.get(item.key)
        if first is None:
            seen[item.key] = item
            contexts = None if item.contexts is None else json.dumps(list(item.contexts))
            items.append((item.key, row.line, item.question, item.answer, contexts, item.chunk_id))
        elif first is not item and first != item:
            for name in ("question", "answer", "contexts", "chunk_id"):
                a, b = getattr(first, name), getattr(item, name)
                if a is not None and b is not None and a != b:
                    msg = f"item {shown(item.key)} was given another {name} on an earlier line"
                    raise LabelerError(msg, path=path, line=row.line, field=name)
        triple = (item.key, row.metric, row.rater)
        if triple in given:
            msg = f"{shown(row.rater)} rates this item on this metric twice in the file"
            raise LabelerError(msg, path=path, line=row.line, field="rater")
        given.add(triple)
        if kinds.setdefault(row.rater, row.kind) != row.kind:
            msg = f"rater {shown(row.rater)} is called both a model and a human in this file"
            raise LabelerError(msg, path=path, line=row.line, field="rater_kind")
        if not math.isfinite(row.value):
            msg = f"expected a number, got {row.value!r}"
            raise LabelerError(msg, path=path, line=row.line, field="verdict")
        yield (
            row.line,
            item.key,
            row.metric,
            row.rater,
            row.kind,
            float(row.value),
            None if row.passed is None else int(row.passed),
            row.rationale,
            None
            if row.extra is None
            else json.dumps(row.extra, ensure_ascii=False, sort_keys=True),
        )


def stage_ratings(store: Store, rows: Iterable[Rating], path: Path) -> None:
    """Stage ``rows`` (and their items) in the temporary tables, checked as they stream by;
    inside the caller's transaction."""
    items: list[tuple] = []
    seen: dict[str, Item] = {}
    store.ratings.begin_rating_stage()
    batch: list[tuple] = []
    for staged in _staged_rows(rows, path, items, seen):
        batch.append(staged)
        if len(batch) >= 50_000:
            store.ratings.stage_ratings(batch)
            batch.clear()
            store.ratings.stage_items(items)
            items.clear()
    store.ratings.stage_ratings(batch)
    store.ratings.stage_items(items)


def merge_ratings(
    store: Store,
    path: Path,
    settled: Iterable[MetricSettled],
    *,
    chunking: str,
    source: str,
    action: str = "import",
    value_fields: Mapping[str, str] | None = None,
) -> tuple[dict[str, tuple[int, int, int]], dict[str, int]]:
    """Check the staged ratings against their settled scales and the database, turn people's
    relevance grades into labels, and merge the rest into the ratings; inside the caller's
    transaction. Returns (labels written per reviewer, the merge's counts). ``value_fields``:
    where the file holds a metric's values, when not in a field called "verdict" (a Ragas
    column named after the metric), for the error to name."""
    from labeler.importers.qrels import write_labels

    for metric in settled:
        scale = metric.scale
        # A template the store fills with the value: the name's braces are its text.
        named = f"{Quoted(metric.name)}".replace("{", "{{").replace("}", "}}")
        store.ratings.check_staged_verdicts(
            str(path),
            metric.name,
            _sql_condition(scale),
            f"{{!r}} is not a verdict on {named}'s scale: {scale.describe()}",
            field=(value_fields or {}).get(metric.name, "verdict"),
        )
    store.ratings.resolve_staged_items(chunking, str(path))
    store.ratings.check_staged_ratings(str(path))
    labels: dict[str, tuple[int, int, int]] = {}
    for name, lines in store.ratings.staged_human_relevance().items():
        report = write_labels(store, path, lines, reviewer=name, chunking=chunking, skipped=[0])
        labels[name] = (report.added, report.updated, report.unchanged)
    store.ratings.drop_staged_human_relevance()
    counts = store.ratings.merge_staged_ratings(chunking, source, action=action)
    return labels, counts


def declare_metric(store: Store, metric: MetricSettled) -> None:
    """Store a metric's settled scale (and threshold)."""
    store.ratings.save_metric(
        metric.name,
        scale=metric.scale.spec,
        threshold=metric.scale.threshold if metric.scale.kind == "score" else None,
        threshold_source=metric.threshold_source,
        pass_when=metric.scale.pass_when,
    )


def save_settled(store: Store, metric: MetricSettled, *, stated: bool) -> None:
    """Store a metric's settled scale; the staged passes of a score metric follow it."""
    declare_metric(store, metric)
    if metric.scale.kind == "score":
        store.ratings.settle_staged_passes(metric.name, stated=stated)
        if stated:
            store.ratings.rescore_metric(metric.name)


def import_judgements(
    store: Store,
    path: str | Path,
    *,
    fmt: str | None = None,
    scales: dict[str, str] | None = None,
    thresholds: dict[str, float] | None = None,
    judge: str | None = None,
    reviewer: str | None = None,
    chunking: str | None = None,
) -> JudgeImport:
    """Import a judge file (see the module docstring); returns what changed."""
    path = check_file(path)
    scales, thresholds = dict(scales or {}), dict(thresholds or {})
    chunking = chunking or store.corpus.current_chunking()
    kind = get_format(fmt) if fmt else detect_format(path)
    source = kind.read(path, ReadOptions(judge=judge, reviewer=reviewer))
    stored_metrics = store.ratings.metrics()
    with store.write():
        stage_ratings(store, source.rows, path)
        values = store.ratings.staged_metric_values()
        # A metric already stored, or declared, is one: its values are checked, not guessed at.
        for name in sorted(source.tentative - set(scales) - set(stored_metrics)):
            found = values.get(name)
            if found is not None and (found["low"] < 0 or found["high"] > 1):
                store.ratings.drop_staged_metric(name)
                del values[name]
                source.skip(
                    f"column {shown(name)}: not a score from 0 to 1 (its values run from"
                    f" {found['low']:g} to {found['high']:g}), so not a metric"
                )
        for name in (*scales, *thresholds):
            if name not in values:
                msg = (
                    f"the file has no rating of the metric {shown(name)}"
                    f" (it has: {cut(', '.join(values))})"
                )
                raise LabelerError(msg, path=path, field="metric")
        settled = []
        for name, found in values.items():
            metric = settle_scale(
                name,
                declared=scales.get(name),
                threshold=thresholds.get(name),
                stored=stored_metrics.get(name),
                hint=source.hints.get(name),
                values=found,
                path=path,
            )
            check_stored_fit(store, metric, stored_metrics.get(name))
            settled.append(metric)
        for metric in settled:
            save_settled(store, metric, stated=metric.name in thresholds)
        labels, counts = merge_ratings(
            store,
            path,
            settled,
            chunking=chunking,
            source=str(path),
            value_fields=source.value_fields,
        )
    return JudgeImport(
        path=str(path),
        format=kind.name,
        metrics=tuple(settled),
        labels=labels,
        skipped=dict(source.skipped),
        **counts,
    )


__all__ = [
    "JudgeImport",
    "MetricSettled",
    "check_stored_fit",
    "declare_metric",
    "import_judgements",
    "merge_ratings",
    "save_settled",
    "settle_scale",
    "stage_ratings",
]
