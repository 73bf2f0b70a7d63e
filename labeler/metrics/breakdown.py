"""Figures over a group of questions, and the groups a conversational test set is read by.

A turn of a conversation is scored as any question is; a test set holding turns is also read
by group, since a retriever that does well on first turns can fail every follow-up:

- **turn**: ``first`` (the conversation's first user turn), ``later`` (every turn after it),
  and ``none`` for the questions that stand alone, when the test set mixes both;
- the tags that say what kind of turn it is, where the questions carry them
  (``labeler.conversations.BREAKDOWN_TAGS``: ``answerability``, ``question-type``,
  ``multi-turn``, as ``labeler import mtrag`` names MTRAG's): one group per value of the tag
  ``<name>:<value>``; a turn of several question types is in each of their groups.

Each group's figure is the mean over its scored questions (``RunResult.mean_over``), with the
same counts of questions left out as the whole; a test set without turns has no groups.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from labeler.conversations import BREAKDOWN_TAGS
from labeler.metrics.evaluation import RunResult


@dataclass(frozen=True, slots=True)
class Group:
    facet: str
    value: str
    questions: frozenset[str]

    @property
    def label(self) -> str:
        return f"{self.facet}: {self.value}"


def turn_groups(
    questions: Iterable[str], turns: Mapping[str, int], tags: Mapping[str, Sequence[str]]
) -> list[Group]:
    """The groups of a test set whose ``turns`` say which questions are turns (their number);
    none when no question is a turn."""
    ids = list(questions)
    if not any(q in turns for q in ids):
        return []
    positions: dict[str, set[str]] = {"first": set(), "later": set(), "none": set()}
    for q in ids:
        number = turns.get(q)
        positions["none" if number is None else "first" if number == 1 else "later"].add(q)
    groups = [Group("turn", name, frozenset(found)) for name, found in positions.items() if found]
    for facet in BREAKDOWN_TAGS:
        values: dict[str, set[str]] = {}
        for q in ids:
            for tag in tags.get(q, ()):
                name, colon, value = tag.partition(":")
                if colon and name == facet and value:
                    values.setdefault(value, set()).add(q)
        groups += [Group(facet, v, frozenset(values[v])) for v in sorted(values)]
    return groups


def figures_over(
    results: Sequence[RunResult], metrics: Sequence[str], mask: np.ndarray
) -> dict[str, dict[str, Any]]:
    """run -> {"metrics", "questions", "unanswerable", "no_relevant_label", "missing"} over the
    questions of ``mask`` (in the results' question order)."""
    out = {}
    for r in results:
        marked = r.marked if r.marked is not None else np.zeros_like(mask)
        out[r.run] = {
            "metrics": {m: r.mean_over(m, mask & r.scored) for m in metrics},
            "questions": int((mask & r.scored).sum()),
            "unanswerable": int((mask & ~r.scored & marked).sum()),
            "no_relevant_label": int((mask & ~r.scored & ~marked).sum()),
            "missing": int((mask & ~r.retrieved).sum()),
        }
    return out


def mask_of(results: Sequence[RunResult], questions: frozenset[str]) -> np.ndarray:
    order = results[0].questions
    return np.fromiter((q in questions for q in order), dtype=bool, count=len(order))


def breakdown(
    results: Sequence[RunResult], metrics: Sequence[str], groups: Sequence[Group]
) -> dict[str, dict[str, dict[str, Any]]]:
    """group label -> run -> figures (``figures_over``), in the groups' order."""
    if not results:
        return {}
    return {g.label: figures_over(results, metrics, mask_of(results, g.questions)) for g in groups}


def breakdown_rows(
    results: Sequence[RunResult], metrics: Sequence[str], groups: Sequence[Group]
) -> list[dict[str, Any]]:
    """One row per group and run: ``{"group", "run", "questions", <metric>: mean}`` (a table's
    rows, as the Results page shows them)."""
    return [
        {"group": label, "run": run, "questions": f["questions"], **f["metrics"]}
        for label, per_run in breakdown(results, metrics, groups).items()
        for run, f in per_run.items()
    ]


__all__ = ["Group", "breakdown", "breakdown_rows", "figures_over", "mask_of", "turn_groups"]
