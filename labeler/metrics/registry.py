"""The one list of metrics. The parser, the CLI's help, the error for an unknown name, the README's
table and the tests' parametrization all read it, so a metric is added in one place: a
``MetricDef`` in ``binary``, ``graded`` or ``context``.

Names: ``recall@10`` is recall at cutoff 10; in a list, ``recall@k`` (or a bare ``recall``, for a
metric that needs a cutoff) stands for every cutoff of ``-k``; a bare ``ndcg``, ``mrr`` or ``map``
is computed over the whole ranking.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from labeler.errors import LabelerError
from labeler.metrics import binary, context, graded
from labeler.metrics.types import Metric, MetricDef

REGISTRY: dict[str, MetricDef] = {}

DEFAULT_METRICS = "ndcg@k,recall@k,precision@k,mrr@k,hit_rate@k,judged@k"
DEFAULT_KS: tuple[int, ...] = (10,)


def register(definition: MetricDef) -> MetricDef:
    if definition.name in REGISTRY:
        msg = f"metric {definition.name!r} is registered twice"
        raise ValueError(msg)
    REGISTRY[definition.name] = definition
    return definition


for _definition in (
    *binary.DEFINITIONS,
    *graded.DEFINITIONS,
    *context.DEFINITIONS,
    *binary.COVERAGE,
):
    register(_definition)


def get(name: str, *, written: str | None = None, field: str = "metrics") -> MetricDef:
    """The definition of ``name``; the error for an unknown one quotes what the user wrote
    (``written``) and lists every valid name."""
    try:
        return REGISTRY[name]
    except KeyError:
        shown = written if written is not None else name
        valid = (
            f"label next supports {label_next_spellings()}"
            if field == "metric"
            else f"valid metrics: {metric_spellings()}"
        )
        raise LabelerError(f"unknown metric {shown!r}; {valid}", field=field) from None


def metric_spellings() -> str:
    """``hit_rate@k, recall@k, ..., ndcg, ndcg@k, ...``: what a user may write."""
    return ", ".join(d.spelling for d in REGISTRY.values())


def label_next_metrics() -> tuple[MetricDef, ...]:
    """The metrics label next can decide a comparison on (``MetricDef.label_next``)."""
    return tuple(d for d in REGISTRY.values() if d.label_next is not None)


def label_next_spellings() -> str:
    """``recall@k, precision@k, mrr, mrr@k, ...``: what ``labeler next --metric`` takes."""
    return ", ".join(d.spelling for d in label_next_metrics())


def _split(text: str, *, field: str) -> tuple[MetricDef, str, str | None]:
    """(definition, what the user wrote, cutoff text or None) of one name: ``ndcg@10``."""
    written = text.strip()
    name, at, cutoff = written.lower().partition("@")
    definition = get(name, written=written, field=field)
    if at and not cutoff:
        raise LabelerError(f"{text!r}: give a cutoff after '@', e.g. {name}@10", field=field)
    return definition, written, cutoff if at else None


def parse_k(text: str | int, *, field: str = "k") -> int:
    """A cutoff: a positive whole number."""
    value = text.strip() if isinstance(text, str) else text
    if isinstance(value, bool):
        value = None
    elif isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or value < 1:
        raise LabelerError(f"k must be a positive whole number, got {text!r}", field=field)
    return value


def parse_ks(text: str | Iterable[int | str]) -> tuple[int, ...]:
    """``"1,3,10"`` (or a list) -> (1, 3, 10), duplicates dropped, order kept."""
    items = text.replace(" ", ",").split(",") if isinstance(text, str) else list(text)
    ks = [parse_k(item) for item in items if not (isinstance(item, str) and not item.strip())]
    if not ks:
        raise LabelerError("give at least one cutoff, e.g. -k 10", field="k")
    return tuple(dict.fromkeys(ks))


def parse_metric(text: str | Metric, ks: Sequence[int] = DEFAULT_KS) -> tuple[Metric, ...]:
    """One name as a user writes it -> the metrics it stands for (several for ``recall@k``)."""
    if isinstance(text, Metric):
        get(text.name)
        return (text,)
    definition, _, cutoff = _split(text, field="metrics")
    name = definition.name
    if definition.k == "none":
        if cutoff is not None:
            raise LabelerError(f"{text!r}: {name} takes no cutoff", field="metrics")
        return (Metric(name),)
    if cutoff == "k" or (cutoff is None and definition.k == "required"):
        return tuple(Metric(name, k) for k in ks)
    if cutoff is None:
        return (Metric(name),)
    return (Metric(name, parse_k(cutoff, field="metrics")),)


def parse_label_next_metric(text: str | Metric) -> Metric:
    """One metric label next decides on, as a user writes it (``ndcg@10``, ``mrr``): by the
    grammar of ``parse_metric``, one cutoff (no ``@k``), and a metric that declares
    ``label_next``; a metric that needs a cutoff must be given one."""
    field = "metric"
    if isinstance(text, Metric):
        definition, written, cutoff = get(text.name, field=field), str(text), text.k
    else:
        definition, written, raw = _split(text, field=field)
        cutoff = None if raw is None else parse_k(raw, field=field)
    if definition.label_next is None:
        msg = f"label next supports {label_next_spellings()}; {written!r} is not one of them"
        raise LabelerError(msg, field=field)
    if cutoff is None and definition.k == "required":
        raise LabelerError(f"{written!r} needs a cutoff, e.g. {definition.name}@10", field=field)
    return Metric(definition.name, cutoff)


def parse_metrics(
    spec: str | Metric | Iterable[str | Metric] | None = None,
    ks: Sequence[int] | str = DEFAULT_KS,
) -> tuple[Metric, ...]:
    """A list of names (a string split on commas, or an iterable) -> Metrics, duplicates dropped.

    >>> [str(m) for m in parse_metrics("ndcg@k,mrr,recall", ks=(3, 10))]
    ['ndcg@3', 'ndcg@10', 'mrr', 'recall@3', 'recall@10']
    """
    if isinstance(ks, str):
        ks = parse_ks(ks)
    if spec is None:
        spec = DEFAULT_METRICS
    if isinstance(spec, (str, Metric)):
        items = spec.replace(" ", ",").split(",") if isinstance(spec, str) else [spec]
    else:
        items = list(spec)
    metrics: list[Metric] = []
    for item in items:
        if isinstance(item, str) and not item.strip():
            continue
        metrics.extend(parse_metric(item, ks))
    if not metrics:
        raise LabelerError(f"no metric given; valid metrics: {metric_spellings()}", field="metrics")
    return tuple(dict.fromkeys(metrics))


def definition_of(metric: Metric) -> MetricDef:
    return get(metric.name)


def trec_eval_name(metric: Metric) -> str | None:
    """trec_eval's name for the same figure (``ndcg@10`` -> ``ndcg_cut_10``); None if none."""
    definition = get(metric.name)
    if metric.k is None:
        return definition.trec_eval
    if definition.trec_eval_cut is None:
        return None
    return definition.trec_eval_cut.format(k=metric.k)


def _empty(value: float) -> str:
    return f"{value:g}"


def metrics_table_markdown() -> str:
    """The README's metric table, made from the registry (a docs test checks they agree)."""
    lines = [
        "| metric | per question | relevant means | empty ranking | trec_eval |",
        "| --- | --- | --- | --- | --- |",
    ]
    for d in REGISTRY.values():
        names = [n for n in (d.trec_eval, d.trec_eval_cut) if n]
        trec = ", ".join(f"`{n.replace('{k}', 'k')}`" for n in names) or "none"
        formula = d.formula + (f". {d.note}" if d.note else "")
        spelling = ", ".join(f"`{s.strip()}`" for s in d.spelling.split(","))
        lines.append(f"| {spelling} | {formula} | {d.relevance} | {_empty(d.empty)} | {trec} |")
    return "\n".join(lines) + "\n"


__all__ = [
    "DEFAULT_KS",
    "DEFAULT_METRICS",
    "REGISTRY",
    "definition_of",
    "get",
    "label_next_metrics",
    "label_next_spellings",
    "metric_spellings",
    "metrics_table_markdown",
    "parse_k",
    "parse_ks",
    "parse_label_next_metric",
    "parse_metric",
    "parse_metrics",
    "register",
    "trec_eval_name",
]
