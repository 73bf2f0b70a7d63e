"""The project's current labels and imported runs, as the metric engine takes them.

- ``current_labels``: the current labels of a chunking, one grade per (question, chunk) by the
  same consensus rules as an export (``labeler.grading.consensus``: adjudications first,
  agreement, then the policy), over every accepted question (those without a label are the
  normal starting point of label-next, not an error).
- ``stored_run``: an imported run by name, ranked as it was imported; ``kept_run`` the same,
  kept until a run is imported (a grade changes labels, never runs).

The metric engine knows nothing of the database: these hand it plain ``Qrels`` and ``Run``
values (``labeler.sources`` adds test-set versions and run files).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from labeler.errors import NotFoundError
from labeler.grading.consensus import (
    Consensus,
    DisagreementError,
    Policy,
    QuestionConsensus,
    by_question,
    combine,
    get_policy,
)

if TYPE_CHECKING:
    from labeler.metrics.tables import Qrels, Run
    from labeler.store import Store


@dataclass(frozen=True, slots=True, eq=False)
class Labels:
    """Qrels with what an evaluation needs to know of them.

    ``questions``: the questions they cover (with or without a label); ``unanswerable``:
    questions marked as having no relevant chunk (every chunk of theirs is known irrelevant);
    ``description``: how a person would name them; ``testset``: a version's identity;
    ``turns`` (the turn number of those that are turns of a conversation) and ``tags``: what
    the breakdown of a conversational test set reads (``labeler.metrics.breakdown``).
    """

    qrels: Qrels
    questions: tuple[str, ...]
    unanswerable: frozenset[str]
    description: str
    disagreements: int = 0
    settled: int = 0
    testset: dict[str, Any] | None = None
    turns: Mapping[str, int] = field(default_factory=dict)
    tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def settled(
    store: Store, *, policy: str | None = None, chunking: str | None = None
) -> tuple[list[str], Consensus]:
    """The accepted questions (by id) and the consensus of every reviewer's current labels on
    them in ``chunking``: what ``current_labels`` scores and ``labeler.grading.counts`` counts.

    Each question is settled on its own labels, so the answer is kept per database, chunking
    and policy with each question's part, and after a change only the questions the history
    names since are settled again: the "decide A vs B" queue asks after every grade (issue
    #23). Anything else (another set of accepted questions, a history that went back) settles
    every question again."""
    chosen = get_policy(policy)
    chunking = chunking or store.corpus.current_chunking()
    identity = _identity(store)
    key = (identity, chunking, policy)
    with store.snapshot():
        questions = store.questions.accepted_ids()
        event = store.labels.last_event()
        with _SETTLED_LOCK:
            kept = _SETTLED.get(key) if identity is not None else None
        if kept is not None and kept.questions == questions and kept.event <= event:
            changed = store.labels.changed_since(kept.event, chunking) & set(questions)
            parts = dict(kept.parts)
            for question in changed:
                parts.pop(question, None)
            if changed:
                parts.update(_parts(store, chunking, chosen, changed))
        else:
            parts = _parts(store, chunking, chosen, None, set(questions))
    if identity is not None:
        with _SETTLED_LOCK:
            _SETTLED[key] = _Settled(event, questions, parts)
            while len(_SETTLED) > _KEEP_SETTLED:
                _SETTLED.pop(next(iter(_SETTLED)))
    return questions, combine(parts)


def _identity(store: Store) -> tuple | None:
    """The database file itself (a file put in its place, as ``labeler demo --reset`` does,
    is another); None for a database in memory (nothing is kept for it)."""
    try:
        found = os.stat(store.path)
    except OSError:
        return None
    return (str(store.path), found.st_dev, found.st_ino)


@dataclass(frozen=True, slots=True)
class _Settled:
    event: int  # the last change of the history it has seen
    questions: list[str]
    parts: dict[str, QuestionConsensus]


_SETTLED: dict[tuple, _Settled] = {}
_SETTLED_LOCK = threading.Lock()  # the app asks from several threads
_KEEP_SETTLED = 8


def _parts(
    store: Store,
    chunking: str,
    policy: Policy | None,
    questions: set[str] | None,
    accepted: set[str] | None = None,
) -> dict[str, QuestionConsensus]:
    """The consensus of ``questions`` (None: of every ``accepted`` question), one part each."""
    wanted = (accepted or set()) if questions is None else questions
    labels = [row for row in store.labels.chunking_labels(chunking, questions) if row[0] in wanted]
    marks = [row for row in store.labels.unanswerable_marks(chunking) if row[0] in wanted]
    adjudications = store.adjudications.current(chunking)
    return by_question(labels, marks, adjudications, policy=policy, questions=wanted)


def current_labels(
    store: Store, *, policy: str | None = None, chunking: str | None = None
) -> Labels:
    """The consensus of every reviewer's current labels in ``chunking`` (default: the current
    one), over the accepted questions. Disagreements without a policy stop, as for export (the
    faces pass the project's policy, ``labeler.grading.policy``, unless told another)."""
    from labeler.metrics.tables import Qrels

    chunking = chunking or store.corpus.current_chunking()
    questions, agreed = settled(store, policy=policy, chunking=chunking)
    wanted = set(questions)
    with store.snapshot():
        turns = {q: t.number for q, t in store.conversations.all().items() if q in wanted}
        tags = {q: tuple(t) for q, t in store.questions.tag_map().items() if q in wanted}
    if agreed.disagreements:
        raise DisagreementError(agreed.disagreements)
    rows = [(q, c, g) for q, grades in agreed.grades.items() for c, g in grades.items()]
    qrels = Qrels.from_rows(
        [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], source=None
    ).with_questions(questions, unanswerable=agreed.unanswerable)
    how = f"settled by {policy}" if policy is not None else "no disagreements"
    return Labels(
        qrels=qrels,
        questions=tuple(questions),
        unanswerable=agreed.unanswerable,
        description=f"current labels of chunking {chunking} ({how})",
        settled=agreed.settled,
        turns=turns,
        tags=tags,
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


_RUNS: dict[tuple, Run] = {}  # runs as the engine takes them, per database, name and revision
_RUNS_LOCK = threading.Lock()  # the app reads them from several threads
_KEEP_RUNS = 16


def kept_run(store: Store, name: str) -> Run:
    """``stored_run``, kept per database, name and runs' revision. Reading a run again cost
    about 16 ms of each key in the "decide A vs B" queue on the demo, and 2 s of CPU for three
    runs of 10,000 questions x 20 on every open of the Results page (issue #23)."""
    key = (str(store.path), name, store.labels.revision()[1])
    with _RUNS_LOCK:
        kept = _RUNS.get(key)
    if kept is None:
        kept = stored_run(store, name)
        with _RUNS_LOCK:
            while len(_RUNS) >= _KEEP_RUNS:
                _RUNS.pop(next(iter(_RUNS)))
            _RUNS[key] = kept
    return kept


__all__ = ["Labels", "current_labels", "kept_run", "settled", "stored_run"]
