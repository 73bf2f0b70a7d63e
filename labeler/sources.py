"""Where an evaluation's labels and runs come from: the project's store, a test-set version, a
file. The metric engine knows nothing of the database; this module hands it plain ``Qrels``
and ``Run`` values, for the Results page and ``labeler next``.

- ``current_labels``: the current labels of a chunking, one grade per (question, chunk) by the
  same consensus rules as an export (``labeler.exporters.consensus``: adjudications first,
  agreement, then the policy), over every accepted question (those without a label are the
  normal starting point of label-next, not an error).
- ``version_labels``: the qrels of an exported version (checked against its manifest).
- ``stored_run``, ``checked_run``, ``resolve_run``: an imported run by name, or a run file read
  for evaluation and checked exactly as an import checks it, without storing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labeler.errors import LabelerError, NotFoundError
from labeler.exporters.consensus import DisagreementError, consensus, get_policy

# A run file, checked as ``labeler import run`` checks it, read without storing it: the
# importer's own reader under the name this module's callers use.
from labeler.importers.runs import read_checked_run as checked_run

if TYPE_CHECKING:
    from labeler.metrics.tables import Qrels, Run
    from labeler.store import Store


@dataclass(frozen=True, slots=True, eq=False)
class Labels:
    """Qrels with what an evaluation needs to know of them.

    ``questions``: the questions they cover (with or without a label); ``unanswerable``:
    questions marked as having no relevant chunk (every chunk of theirs is known irrelevant);
    ``description``: how a person would name them; ``testset``: a version's identity.
    """

    qrels: Qrels
    questions: tuple[str, ...]
    unanswerable: frozenset[str]
    description: str
    disagreements: int = 0
    settled: int = 0
    testset: dict[str, Any] | None = None


def current_labels(
    store: Store, *, policy: str | None = None, chunking: str | None = None
) -> Labels:
    """The consensus of every reviewer's current labels in ``chunking`` (default: the current
    one), over the accepted questions. Disagreements without a policy stop, as for export."""
    from labeler.metrics.tables import Qrels

    chosen = get_policy(policy)
    chunking = chunking or store.corpus.current_chunking()
    with store.snapshot():
        questions = store.questions.accepted_ids()
        wanted = set(questions)
        labels = [row for row in store.labels.chunking_labels(chunking) if row[0] in wanted]
        marks = [row for row in store.labels.unanswerable_marks(chunking) if row[0] in wanted]
        adjudications = store.adjudications.current(chunking)
    agreed = consensus(labels, marks, adjudications, policy=chosen, questions=wanted)
    if agreed.disagreements:
        raise DisagreementError(agreed.disagreements)
    rows = [(q, c, g) for q, grades in agreed.grades.items() for c, g in grades.items()]
    qrels = Qrels.from_rows(
        [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], source=None
    ).with_questions(questions, unanswerable=agreed.unanswerable)
    how = f"settled by {chosen.name}" if chosen is not None else "no disagreements"
    return Labels(
        qrels=qrels,
        questions=tuple(questions),
        unanswerable=agreed.unanswerable,
        description=f"current labels of chunking {chunking} ({how})",
        settled=agreed.settled,
    )


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


def stored_run(store: Store, name: str) -> Run:
    """An imported run, ranked as it was imported."""
    from labeler.metrics.tables import Run

    rows = store.runs.ranking(name)
    if not rows:
        known = ", ".join(store.runs.names()) or "none imported yet"
        raise NotFoundError(f"no imported run named {name!r} (runs: {known})", field="run")
    return Run.from_rows(
        name, [r[0] for r in rows], [r[1] for r in rows], ranks=[r[2] for r in rows]
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


__all__ = [
    "DisagreementError",
    "Labels",
    "checked_run",
    "current_labels",
    "resolve_run",
    "stored_run",
    "version_labels",
]
