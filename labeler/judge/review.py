"""The blind spot-check: a reviewer works through a sample plan, giving a verdict on each item
before the judge's verdict and rationale are shown.

Everything the review page does goes through here, so a test can drive it without a browser.
A verdict on ``relevance`` is a grade (a label, with its history, through the labelling core);
on any other metric it is the reviewer's rating (with its history). On a score metric people
give pass or fail, kept as 1 or 0 with its pass/fail.

Blindness is kept by the caller showing ``judge`` and ``others`` only once ``mine`` is set; the
item itself never says which stratum it was drawn from.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeler.accounts.roles import Right, require
from labeler.errors import LabelerError, NotFoundError
from labeler.grading import labeling
from labeler.judge.metrics import definition_of
from labeler.judge.report import metric_scale
from labeler.judge.scales import RELEVANCE, Scale
from labeler.models import Turn
from labeler.store import Store, check_reviewer
from labeler.store.ratings import parse_relevance_key


@dataclass(frozen=True, slots=True)
class Verdict:
    rater: str
    kind: str
    code: int
    label: str
    value: float
    rationale: str | None


@dataclass(frozen=True, slots=True)
class ReviewItem:
    plan: str | None  # None: one item opened on its own (from the report)
    position: int
    total: int
    key: str
    metric: str
    scale: Scale
    definition: str | None
    question: str | None
    question_id: str | None
    chunk_id: str | None
    chunk_title: str | None
    chunk_text: str | None
    answer: str | None
    contexts: tuple[str, ...]
    mine: Verdict | None
    judge: Verdict | None
    others: tuple[Verdict, ...]
    # For a question that is a turn of a conversation: the conversation before it, to judge
    # a follow-up by ("and in the sandbox?" means nothing alone).
    turn: Turn | None = None

    @property
    def revealed(self) -> bool:
        """The judge's verdict may be shown: this reviewer has given theirs."""
        return self.mine is not None


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    total: int


def _plan(store: Store, name: str) -> dict:
    plan = store.plans.get(name)
    if plan is None:
        msg = f"no sample plan named {name!r} (make one with labeler judge sample)"
        raise NotFoundError(msg, field="plan")
    return plan


def plan_keys(store: Store, name: str) -> list[str]:
    return [row["item"] for row in store.plans.items(name)]


def _context(
    store: Store,
    plan_name: str | None,
    reviewer: str,
    metric: str | None,
    judge: str | None,
    chunking: str | None,
) -> tuple[str, str, str, str | None]:
    """(reviewer, chunking, metric, judge) of a reviewer's step: the metric and judge of a
    plan, or of one item opened with its metric (and judge)."""
    reviewer = check_reviewer(reviewer)
    require(store, reviewer, Right.SPOT_CHECK)
    chunking = chunking or store.corpus.current_chunking()
    if plan_name is not None:
        plan = _plan(store, plan_name)
        return reviewer, chunking, plan["metric"], plan["judge"]
    if metric is None:
        msg = "open an item of a sample plan, or name its metric"
        raise LabelerError(msg, field="metric")
    metric_scale(store, metric)  # raises for an unknown metric
    return reviewer, chunking, metric, judge


def _relevance_pair(key: str) -> tuple[str, str]:
    """(question, chunk) of a relevance item's key."""
    pair = parse_relevance_key(key)
    if pair is None:
        msg = f"item {key!r} is not a (question, chunk) pair"
        raise NotFoundError(msg, field="item")
    return pair


def plans_with(store: Store, metric: str, key: str) -> list[str]:
    """The sample plans of ``metric`` that hold the item ``key``."""
    return [
        p["name"]
        for p in store.plans.all()
        if p["metric"] == metric and key in plan_keys(store, p["name"])
    ]


def _verdicts(store: Store, metric: str, scale: Scale, key: str, chunking: str) -> list[Verdict]:
    found = []
    for row in store.ratings.item_ratings(metric, key, chunking):
        passed = None if row["passed"] is None else bool(row["passed"])
        code = scale.code(row["value"], passed)
        found.append(
            Verdict(
                row["rater"],
                row["kind"],
                code,
                scale.labels[code],
                row["value"],
                row["rationale"],
            )
        )
    return found


def open_item(
    store: Store,
    plan_name: str | None,
    key: str,
    reviewer: str,
    *,
    metric: str | None = None,
    judge: str | None = None,
    chunking: str | None = None,
) -> ReviewItem:
    """One item of a plan as ``reviewer`` sees it; or, with ``plan_name`` None, one item of
    ``metric`` opened on its own (the report's links), ``judge`` being the one to compare."""
    reviewer, chunking, metric, judge_name = _context(
        store, plan_name, reviewer, metric, judge, chunking
    )
    keys = plan_keys(store, plan_name) if plan_name is not None else [key]
    if key not in keys:
        msg = f"item {key!r} is not in the plan {plan_name!r}"
        raise NotFoundError(msg, field="item")
    scale = metric_scale(store, metric)
    verdicts = _verdicts(store, metric, scale, key, chunking)
    if plan_name is None and not verdicts:
        msg = f"no rating of {metric} on the item {key!r}"
        raise NotFoundError(msg, field="item")
    mine = next((v for v in verdicts if v.rater == reviewer and v.kind == "human"), None)
    models = [v for v in verdicts if v.kind == "model"]
    if judge_name is None and len(models) == 1:
        judge_name = models[0].rater
    judge = next((v for v in models if v.rater == judge_name), None)
    others = tuple(v for v in verdicts if v is not mine and v is not judge)
    stored = store.ratings.metrics().get(metric)
    details: dict = {}
    pair = parse_relevance_key(key) if metric == RELEVANCE else None
    if pair is not None:
        question = store.questions.get(pair[0])
        chunk = store.corpus.get_chunk(chunking, pair[1])
        details = {
            "question": question.text if question else None,
            "question_id": pair[0],
            "chunk_id": pair[1],
            "chunk_title": chunk.title if chunk else None,
            "chunk_text": chunk.text if chunk else None,
        }
    else:
        row = store.ratings.rating_items_by_key([key]).get(key, {})
        details = {
            "question": row.get("question"),
            "question_id": row.get("question_id"),
            "chunk_id": row.get("chunk_id"),
            "chunk_title": row.get("chunk_title"),
            "chunk_text": row.get("chunk_text"),
            "answer": row.get("answer"),
            "contexts": tuple(row.get("contexts") or ()),
        }
    return ReviewItem(
        plan=plan_name,
        position=keys.index(key) + 1,
        total=len(keys),
        key=key,
        metric=metric,
        scale=scale,
        definition=definition_of(metric, stored["definition"] if stored else None),
        question=details.get("question"),
        question_id=details.get("question_id"),
        chunk_id=details.get("chunk_id"),
        chunk_title=details.get("chunk_title"),
        chunk_text=details.get("chunk_text"),
        answer=details.get("answer"),
        contexts=details.get("contexts", ()),
        mine=mine,
        judge=judge,
        others=others,
        turn=store.conversations.get(details["question_id"])
        if details.get("question_id")
        else None,
    )


def progress(
    store: Store, plan_name: str, reviewer: str, *, chunking: str | None = None
) -> Progress:
    """How far ``reviewer`` is through the plan."""
    chunking = chunking or store.corpus.current_chunking()
    plan = _plan(store, plan_name)
    keys = plan_keys(store, plan_name)
    done = store.plans.rated_plan_items(plan_name, plan["metric"], reviewer, chunking)
    return Progress(done=len(done & set(keys)), total=len(keys))


def next_item(
    store: Store,
    plan_name: str,
    reviewer: str,
    *,
    after: str | None = None,
    chunking: str | None = None,
) -> str | None:
    """The first item after ``after`` (in plan order, wrapping) that ``reviewer`` has not yet
    rated; None when every item is done."""
    chunking = chunking or store.corpus.current_chunking()
    plan = _plan(store, plan_name)
    keys = plan_keys(store, plan_name)
    done = store.plans.rated_plan_items(plan_name, plan["metric"], reviewer, chunking)
    start = keys.index(after) + 1 if after in keys else 0
    for key in keys[start:] + keys[:start]:
        if key not in done:
            return key
    return None


def give_verdict(
    store: Store,
    plan_name: str | None,
    key: str,
    reviewer: str,
    code: int,
    *,
    metric: str | None = None,
    judge: str | None = None,
    chunking: str | None = None,
) -> None:
    """Record ``reviewer``'s verdict (a category code of the metric's scale) on a plan item,
    or, with ``plan_name`` None, on an item of ``metric``."""
    reviewer, chunking, metric, judge = _context(
        store, plan_name, reviewer, metric, judge, chunking
    )
    if reviewer == judge or store.ratings.raters().get(reviewer) == "model":
        msg = f"{reviewer!r} is a judge; review under your own name"
        raise LabelerError(msg, field="reviewer")
    scale = metric_scale(store, metric)
    if not 0 <= code < scale.categories:
        msg = f"expected one of {', '.join(scale.labels)}"
        raise LabelerError(msg, field="verdict")
    if metric == RELEVANCE:
        question_id, chunk_id = _relevance_pair(key)
        labeling.grade(store, question_id, chunk_id, reviewer, code, chunking=chunking)
        return
    if scale.kind == "ordinal":
        store.ratings.set_rating(key, metric, reviewer, float(scale.low + code))
    else:
        store.ratings.set_rating(key, metric, reviewer, float(code), passed=bool(code))


def save_note(
    store: Store,
    plan_name: str | None,
    key: str,
    reviewer: str,
    note: str,
    *,
    metric: str | None = None,
    chunking: str | None = None,
) -> None:
    """Why the reviewer decided as they did (after their verdict)."""
    reviewer, chunking, metric, _ = _context(store, plan_name, reviewer, metric, None, chunking)
    if metric == RELEVANCE:
        question_id, chunk_id = _relevance_pair(key)
        labeling.set_note(store, question_id, chunk_id, reviewer, note, chunking=chunking)
        return
    scale = metric_scale(store, metric)
    mine = next(
        (
            v
            for v in _verdicts(store, metric, scale, key, chunking)
            if v.rater == reviewer and v.kind == "human"
        ),
        None,
    )
    if mine is None:
        msg = "give your verdict before adding a note"
        raise LabelerError(msg, field="note")
    passed = None if scale.kind == "ordinal" else bool(mine.code)
    store.ratings.set_rating(key, metric, reviewer, mine.value, passed=passed, rationale=note)


__all__ = [
    "Progress",
    "ReviewItem",
    "Verdict",
    "give_verdict",
    "next_item",
    "open_item",
    "plan_keys",
    "plans_with",
    "progress",
    "save_note",
]
