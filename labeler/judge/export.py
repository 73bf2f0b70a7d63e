"""``labeler judge export --to ragas-annotated``: the spot-check as a Ragas annotated file, so a
team can align its Ragas metric (``metric.train(path)``) with the people's verdicts.

One sample per item that has both the judge's rating and a human verdict (majority or
adjudicated, as in the report; tied items are left out): ``metric_input`` (the sample Ragas
judged: ``user_input``, ``response``, ``retrieved_contexts``; for relevance, the question and
the chunk as the one retrieved context), ``metric_output`` (the judge's value), ``prompts``
(those the judge's file carried, else one prompt ``labeler_judge`` with the judge's verdict and
reason, and the person's as ``edited_output`` when they differ), ``is_accepted`` (the human
verdict is the judge's), and ``target``, the human verdict as a value (binary and ordinal
scales; a person's pass/fail on a score metric is not a score, so it is left null there).
Re-importing the file gives the same ratings back.
"""

from __future__ import annotations

import json
from pathlib import Path

from labeler.atomic import write_atomically
from labeler.errors import LabelerError
from labeler.judge.report import human_verdicts, metric_scale, report_metrics
from labeler.judge.sampling import choose_judge
from labeler.judge.scales import RELEVANCE
from labeler.store import Store
from labeler.store.ratings import parse_relevance_key

TARGETS = ("ragas-annotated",)
PROMPT = "labeler_judge"


def _metric_input(store: Store, metric: str, key: str, chunking: str) -> dict:
    if metric == RELEVANCE:
        pair = parse_relevance_key(key)
        question = store.questions.get(pair[0]) if pair else None
        chunk = store.corpus.get_chunk(chunking, pair[1]) if pair else None
        return {
            "user_input": question.text if question else None,
            "retrieved_contexts": [chunk.text] if chunk else [],
        }
    row = store.ratings.rating_items_by_key([key]).get(key, {})
    found = {"user_input": row.get("question")}
    if row.get("answer") is not None:
        found["response"] = row["answer"]
    if row.get("contexts"):
        found["retrieved_contexts"] = row["contexts"]
    return found


def annotated_samples(store: Store, metric: str, judge: str, *, chunking: str) -> list[dict]:
    scale = metric_scale(store, metric)
    humans: dict[str, dict[str, int]] = {}
    judged: dict[str, tuple[int, float, str | None]] = {}
    reasons: dict[str, list[str]] = {}
    for key, rater, kind, value, passed, rationale in store.ratings.metric_ratings(
        metric, chunking
    ):
        code = scale.code(value, None if passed is None else bool(passed))
        if kind == "human":
            humans.setdefault(key, {})[rater] = code
            if rationale:
                reasons.setdefault(key, []).append(rationale)
        elif rater == judge:
            judged[key] = (code, value, rationale)
    adjudicated = (
        store.adjudications.relevance_adjudications(chunking) if metric == RELEVANCE else {}
    )
    verdicts, _, _ = human_verdicts(humans, adjudicated)
    extras = store.ratings.rating_extras(metric, judge)
    samples = []
    for key in sorted(k for k in judged if k in verdicts):
        code, value, rationale = judged[key]
        human = verdicts[key]
        target = None
        if scale.kind == "ordinal":
            target = scale.low + human
        elif scale.kind == "binary":
            target = human
        extra = extras.get(key) or {}
        metric_input = extra.get("metric_input") or _metric_input(store, metric, key, chunking)
        prompts = extra.get("prompts")
        if not prompts:
            edited = None
            if human != code or reasons.get(key):
                edited = {
                    "verdict": target if target is not None else human,
                    "reason": " / ".join(reasons.get(key, [])) or None,
                }
            prompts = {
                PROMPT: {
                    "prompt_input": metric_input,
                    "prompt_output": {"verdict": value, "reason": rationale},
                    "edited_output": edited,
                }
            }
        samples.append(
            {
                "metric_input": metric_input,
                "metric_output": int(value)
                if value == int(value) and scale.kind != "score"
                else value,
                "prompts": prompts,
                "is_accepted": human == code,
                "target": target,
            }
        )
    return samples


def ragas_annotated(
    store: Store,
    *,
    metrics: tuple[str, ...] | None = None,
    judge: str | None = None,
    chunking: str | None = None,
) -> dict[str, list[dict]]:
    """{metric: [sample, ...]} for every metric (or ``metrics``) with a judge to export."""
    chunking = chunking or store.corpus.current_chunking()
    names = list(metrics) if metrics else report_metrics(store, chunking)
    found: dict[str, list[dict]] = {}
    with store.snapshot():
        for name in names:
            try:
                chosen = choose_judge(store, name, judge, chunking)
            except LabelerError:
                if metrics:
                    raise
                continue  # every metric: skip those without (that) judge
            found[name] = annotated_samples(store, name, chosen, chunking=chunking)
    return found


def write_json(data: object, out: str | Path) -> Path:
    """Write atomically, with ordinary permissions (``labeler.atomic``)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return write_atomically(out, text.encode("utf-8"))


__all__ = ["PROMPT", "TARGETS", "annotated_samples", "ragas_annotated", "write_json"]
