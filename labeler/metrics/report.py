"""Several runs against one test set, side by side: the figures, the comparisons with a baseline
run, a breakdown per question tag, for conversations a breakdown by turn
(``labeler.metrics.breakdown``), and the gate. What ``labeler eval`` prints, as data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from labeler.errors import LabelerError
from labeler.metrics.breakdown import breakdown, figures_over, turn_groups
from labeler.metrics.comparison import DEFAULT_RESAMPLES, DEFAULT_SEED, Comparison, compare
from labeler.metrics.evaluation import RunResult, evaluate
from labeler.metrics.registry import DEFAULT_KS, parse_metrics
from labeler.metrics.tables import Qrels, Run
from labeler.metrics.types import DEFAULT_OPTIONS, Metric, Options
from labeler.spreadsheet import write_rows

if TYPE_CHECKING:  # the gate builds reports: it imports this module, not the other way
    from labeler.metrics.gate import GateResult

_EXAMPLES = 3  # ids quoted in a warning


@dataclass(frozen=True, slots=True, eq=False)
class Report:
    results: tuple[RunResult, ...]
    metrics: tuple[str, ...]
    comparisons: tuple[Comparison, ...]
    baseline_run: str | None
    options: Options
    tags: Mapping[str, tuple[str, ...]]
    testset: Mapping[str, Any] | None
    resamples: int
    seed: int
    warnings: tuple[str, ...]
    gate: GateResult | None = None
    # question -> its turn number, for the questions that are turns of a conversation.
    turns: Mapping[str, int] = field(default_factory=dict)

    def with_gate(self, gate: GateResult) -> Report:
        return replace(self, gate=gate, warnings=self.warnings + gate.warnings)

    @property
    def scored(self) -> int:
        return self.results[0].num_scored if self.results else 0

    @property
    def unanswerable(self) -> int:
        """Questions a reviewer marked unanswerable (left out of the averages)."""
        return self.results[0].unanswerable if self.results else 0

    @property
    def no_relevant_label(self) -> int:
        """Questions left out because no label reaches min_grade, unmarked."""
        return self.results[0].no_relevant_label if self.results else 0

    def figures(self) -> dict[str, dict[str, Any]]:
        """run -> {"metrics": {name: mean}, "questions", "unanswerable", "no_relevant_label",
        "missing", "ignored"}."""
        return {
            r.run: {
                "metrics": r.means(),
                "questions": r.num_scored,
                "unanswerable": r.unanswerable,
                "no_relevant_label": r.no_relevant_label,
                "missing": r.missing,
                "ignored": len(r.ignored),
            }
            for r in self.results
        }

    def tag_names(self) -> list[str]:
        return list(dict.fromkeys(t for tags in self.tags.values() for t in tags))

    def by_tag(self) -> dict[str, dict[str, dict[str, Any]]]:
        """tag -> run -> {"metrics", "questions", "unanswerable", "missing"} over the questions
        carrying the tag (a question may carry several)."""
        if not self.results:
            return {}
        questions = self.results[0].questions
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for tag in self.tag_names():
            mask = np.fromiter(
                (tag in self.tags.get(q, ()) for q in questions), dtype=bool, count=len(questions)
            )
            out[tag] = figures_over(self.results, self.metrics, mask)
        return out

    def by_turn(self) -> dict[str, dict[str, dict[str, Any]]]:
        """For a test set holding turns of conversations: group -> run -> figures, the groups
        of ``labeler.metrics.breakdown`` (turn first / later, answerability, question type,
        multi-turn type); empty for one without turns."""
        if not self.results or not self.turns:
            return {}
        groups = turn_groups(self.results[0].questions, self.turns, self.tags)
        return breakdown(self.results, self.metrics, groups)

    def to_json(self, *, by_tag: bool = False) -> dict[str, Any]:
        runs = self.figures()
        if by_tag:
            for tag, per_run in self.by_tag().items():
                for name, figures in per_run.items():
                    runs[name].setdefault("by_tag", {})[tag] = figures
        for group, per_run in self.by_turn().items():
            for name, figures in per_run.items():
                runs[name].setdefault("by_turn", {})[group] = figures
        return {
            "testset": dict(self.testset) if self.testset else None,
            "options": {**self.options.as_dict(), "metrics": list(self.metrics)},
            "runs": runs,
            "baseline_run": self.baseline_run,
            "comparisons": [c.as_dict() for c in self.comparisons],
            "statistics": {"resamples": self.resamples, "seed": self.seed, "confidence": 0.95},
            "gate": self.gate.as_dict() if self.gate else None,
            "warnings": list(self.warnings),
        }

    def write_per_question(self, path: str | Path) -> Path:
        """Every per-question value as CSV ``run,question,metric,value`` (scored questions; a
        question missing from a run appears with its 0s), to find the biggest losers. Ids are
        neutralised against spreadsheet formulas (``labeler.spreadsheet``)."""
        path = Path(path)
        try:
            handle = path.open("w", encoding="utf-8", newline="")
        except OSError as error:
            raise LabelerError(f"cannot write: {error.strerror}", path=path) from None
        with handle:
            write_rows(handle, [("run", "question", "metric", "value")])
            for result in self.results:
                keep = np.flatnonzero(result.scored)
                questions = [result.questions[i] for i in keep.tolist()]
                for metric in self.metrics:
                    values = result.values[metric][keep].tolist()
                    write_rows(
                        handle,
                        (
                            (result.run, q, metric, float(v))
                            for q, v in zip(questions, values, strict=True)
                        ),
                    )
        return path


def _warnings(results: Sequence[RunResult], min_grade: int) -> list[str]:
    notes = []
    for r in results:
        if r.ignored:
            examples = ", ".join(r.ignored[:_EXAMPLES]) + (
                ", ..." if len(r.ignored) > _EXAMPLES else ""
            )
            notes.append(
                f"run {r.run!r}: {len(r.ignored)} questions are not in the test set and were"
                f" ignored ({examples})"
            )
        if r.missing:
            notes.append(
                f"run {r.run!r}: {r.missing} test-set questions have no results (scored 0)"
            )
    if results and results[0].num_scored == 0:
        notes.append(
            f"no question has a chunk graded {min_grade} or more: there is nothing to average"
        )
    return notes


def build_report(
    qrels: Qrels,
    runs: Sequence[Run],
    metrics: str | Sequence[str | Metric] | None = None,
    *,
    ks: Sequence[int] | str = DEFAULT_KS,
    options: Options = DEFAULT_OPTIONS,
    baseline_run: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    tags: Mapping[str, Sequence[str]] | None = None,
    testset: Mapping[str, Any] | None = None,
    turns: Mapping[str, int] | None = None,
) -> Report:
    """Evaluate every run, and compare each with the baseline run (the first, or the one named)."""
    if not runs:
        raise LabelerError("give at least one run", field="run")
    names = [run.name for run in runs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        msg = f"two runs are named {twice[0]!r}: name them with --run NAME=FILE"
        raise LabelerError(msg, field="run")
    if baseline_run is not None and baseline_run not in names:
        msg = f"no run named {baseline_run!r}; runs: {', '.join(names)}"
        raise LabelerError(msg, field="baseline-run")
    parsed = parse_metrics(metrics, ks)
    results = tuple(evaluate(qrels, run, parsed, **options.as_dict()) for run in runs)
    base_name = baseline_run or names[0]
    base = results[names.index(base_name)]
    others = [r for r in results if r is not base]
    comparisons = compare(base, others, resamples=resamples, seed=seed) if others else ()
    return Report(
        results=results,
        metrics=tuple(str(m) for m in parsed),
        comparisons=comparisons,
        baseline_run=base_name if others else None,
        options=options,
        tags={q: tuple(t) for q, t in (tags or {}).items()},
        testset=testset,
        resamples=resamples,
        seed=seed,
        warnings=tuple(_warnings(results, options.min_grade)),
        turns=dict(turns or {}),
    )


__all__ = ["Report", "build_report"]
