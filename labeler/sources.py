"""Where an evaluation's labels and runs come from, for the Results page and ``labeler next``:
the project's store (``labeler.grading.current``), a test-set version, a file.

- ``version_labels``: the qrels of an exported version (checked against its manifest).
- ``checked_run``, ``resolve_run``: a run file read for evaluation and checked exactly as an
  import checks it, without storing it; ``--run X``: an imported run, else a file.
- ``next_pairs``: ``labeler next`` on runs given by name or file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from labeler.errors import LabelerError
from labeler.grading.current import Labels, stored_run
from labeler.grading.decide import decide_runs

# A run file, checked as ``labeler import run`` checks it, read without storing it: the
# importer's own reader under the name this module's callers use.
from labeler.importers.runs import read_checked_run as checked_run

if TYPE_CHECKING:
    from labeler.metrics.decision import Decision
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


__all__ = ["checked_run", "next_pairs", "resolve_run", "version_labels"]
