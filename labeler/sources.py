"""Where an evaluation's labels and runs come from, for the Results page and ``labeler next``:
the project's store (``labeler.grading.current``), a test-set version, a file.

- ``version_labels``: the qrels of an exported version (checked against its manifest).
- ``checked_run``, ``resolve_run``: a run file read for evaluation and checked exactly as an
  import checks it, without storing it; ``--run X``: an imported run, else a file.
- ``compare_versions``: the same runs scored on two versions of a test set.
- ``next_pairs``: ``labeler next`` on runs given by name or file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from labeler.errors import LabelerError
from labeler.grading.current import Labels, stored_run
from labeler.grading.decide import decide_runs

# A run file, checked as ``labeler import run`` checks it, read without storing it: the
# importer's own reader under the name this module's callers use.
from labeler.importers.runs import read_checked_run as checked_run
from labeler.metrics.summary import QuestionShift, VersionShift, question_shifts, version_shift
from labeler.versions.diff import diff_versions

if TYPE_CHECKING:
    from labeler.metrics.decision import Decision
    from labeler.metrics.evaluation import RunResult
    from labeler.metrics.tables import Run
    from labeler.store import Store


def version_labels(path: str | Path) -> Labels:
    """The labels of an exported version (``exports/NAME/vN``, or ``exports/NAME``: the
    latest), checked against its manifest."""
    from labeler.metrics import read_testset

    version = read_testset(path)
    return Labels(
        qrels=version.qrels,
        questions=tuple(q.id for q in version.questions),
        unanswerable=frozenset(q.id for q in version.questions if q.unanswerable),
        description=f"{version.name} v{version.version}",
        testset=version.identity(),
        turns={q.id: q.turn.number for q in version.questions if q.turn is not None},
        tags={q.id: q.tags for q in version.questions},
    )


def resolve_run(store: Store, spec: str, *, chunking: str | None = None) -> Run:
    """``--run X``: the imported run named X, else the run file X."""
    if spec in set(store.runs.names()):
        return stored_run(store, spec)
    if Path(spec).is_file():
        return checked_run(store, spec, chunking=chunking)
    known = ", ".join(store.runs.names()) or "none imported yet"
    msg = f"{spec!r} is neither an imported run (runs: {known}) nor a file"
    raise LabelerError(msg, field="run")


@dataclass(frozen=True, slots=True)
class VersionComparison:
    """The same runs scored on two versions of a test set: every figure that moves, moves
    because the labels changed (the Results page's "between versions")."""

    older: int
    newer: int
    before: tuple[RunResult, ...]
    after: tuple[RunResult, ...]
    shifts: tuple[VersionShift, ...]
    changes: dict[str, int]

    def sentence(self) -> str:
        c = self.changes
        return (
            f"From v{self.older} to v{self.newer}: {c['questions_added']} questions added,"
            f" {c['questions_removed']} removed; {c['labels_added']} labels added,"
            f" {c['labels_removed']} removed, {c['labels_regraded']} regraded."
            " The runs are the same: every change below comes from the labels."
        )

    def questions(self, run: str, metric: str) -> tuple[QuestionShift, ...]:
        """The questions whose ``metric`` moved for ``run``, largest moves first."""
        at = [r.run for r in self.before].index(run)
        return question_shifts(self.before[at], self.after[at], metric)


def compare_versions(
    runs: Sequence[Run], metrics: Sequence[str], older: str | Path, newer: str | Path
) -> VersionComparison:
    """``runs`` on the versions at ``older`` and ``newer`` (folders, both checked against
    their hashes), on ``metrics``, with what changed between the two."""
    from labeler.metrics.evaluation import evaluate

    old, new = version_labels(older), version_labels(newer)
    before = tuple(evaluate(old.qrels, run, metrics) for run in runs)
    after = tuple(evaluate(new.qrels, run, metrics) for run in runs)
    return VersionComparison(
        older=int(old.testset["version"]),
        newer=int(new.testset["version"]),
        before=before,
        after=after,
        shifts=version_shift(before, after, metrics),
        changes=diff_versions(older, newer).summary(),
    )


def next_pairs(
    store: Store,
    run_a: str,
    run_b: str,
    metric: str,
    *,
    chunking: str | None = None,
    **options: object,
) -> Decision:
    """``labeler next``: is ``run_a`` better than ``run_b`` on ``metric`` with the current
    labels, and which pairs to grade next; runs by imported name or by file (``resolve_run``),
    the rest as ``labeler.grading.decide.decide_runs`` takes it."""
    chunking = chunking or store.corpus.current_chunking()
    return decide_runs(
        store,
        run_a,
        run_b,
        metric,
        chunking=chunking,
        runs=lambda spec: resolve_run(store, spec, chunking=chunking),
        **options,
    )


__all__ = [
    "VersionComparison",
    "checked_run",
    "compare_versions",
    "next_pairs",
    "resolve_run",
    "version_labels",
]
