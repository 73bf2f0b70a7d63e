"""How completely a question is graded: of its pool's candidates, how many have a grade, and how
deep each run that pooled it is graded ("complete to depth d").

The pool is the grading loop's own (``labeler.grading.candidates``): every run's top ``pool_depth``,
the full-text and dense searches, chunks added from the search box or by a generator, and chunks
anyone labelled. A candidate is **graded** when it has a grade in what is being exported: a current
label of any reviewer (a stale one, given for a chunk text since replaced, does not count) whose
(question, chunk) the consensus settles, by agreement, adjudication or the chosen policy. A
disagreement nobody settled leaves the chunk ungraded.

A run's **complete-to depth** is the deepest rank d such that every result it ranked 1 to d is
graded; a run with every pooled result graded is complete to its pool depth (so a run that
returned fewer results than that is complete to it too). A question is **partial** when any
candidate is ungraded; unanswerable questions never are (their mark is a judgement on every
chunk). A requirement (``Requirement``) asks for completeness to depth K of some runs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from labeler.errors import LabelerError

# What an export does with the questions that fall short of what is required.
PARTIAL_CHOICES = ("include", "leave-out", "error")


@dataclass(frozen=True, slots=True)
class RunDepth:
    """One run's part of a question's pool: how many of its results are in the pool
    (``pooled``: its ranks up to ``pool_depth``), how many of them are ungraded, and the rank
    to which all of them are graded (``complete_to``)."""

    run: str
    pool_depth: int
    pooled: int
    ungraded: int
    complete_to: int

    def record(self) -> dict:
        return {
            "pool_depth": self.pool_depth,
            "pooled": self.pooled,
            "ungraded": self.ungraded,
            "complete_to": self.complete_to,
        }


@dataclass(frozen=True, slots=True)
class Completeness:
    """How completely one question is graded (see the module docstring)."""

    question_id: str
    candidates: int
    graded: int
    runs: tuple[RunDepth, ...]
    unanswerable: bool = False

    @property
    def ungraded(self) -> int:
        return self.candidates - self.graded

    @property
    def partial(self) -> bool:
        return not self.unanswerable and self.ungraded > 0

    def complete_to(self, run: str, pool_depth: int) -> int:
        """The run's complete-to depth; a run that pooled nothing here is complete to its
        pool depth."""
        found = next((r for r in self.runs if r.run == run), None)
        return pool_depth if found is None else found.complete_to

    def record(self) -> dict:
        """The question's line in a version's completeness.jsonl."""
        return {
            "id": self.question_id,
            "candidates": self.candidates,
            "graded": self.graded,
            "ungraded": self.ungraded,
            "partial": self.partial,
            "unanswerable": self.unanswerable,
            "runs": {r.run: r.record() for r in self.runs},
        }

    def depths(self) -> str:
        """ "bm25 7/10, hybrid 10/10": each run's complete-to depth over its pool depth."""
        return ", ".join(f"{r.run} {r.complete_to}/{r.pool_depth}" for r in self.runs) or "-"


def completeness(
    question_id: str,
    sources: Iterable[tuple],
    graded: Collection[str],
    depths: Mapping[str, int],
    *,
    unanswerable: bool = False,
) -> Completeness:
    """``question_id``'s completeness from its pool (every source that put a chunk there, as
    ``labeler.grading.candidates.stored_sources`` reads them: ``(question, chunk, kind, name,
    rank, via)``), the chunks graded in what is exported, and each run's pool depth."""
    ranks: dict[str, list[tuple[int, str]]] = {}
    chunks: set[str] = set()
    for _, chunk_id, kind, name, rank, _ in sources:
        chunks.add(chunk_id)
        if kind == "run" and rank is not None:
            ranks.setdefault(name, []).append((rank, chunk_id))
    runs = []
    for run in sorted(ranks):
        ranked = sorted(ranks[run])
        depth = depths.get(run, max(rank for rank, _ in ranked))
        first_ungraded = next((rank for rank, chunk in ranked if chunk not in graded), None)
        runs.append(
            RunDepth(
                run=run,
                pool_depth=depth,
                pooled=len(ranked),
                ungraded=sum(1 for _, chunk in ranked if chunk not in graded),
                complete_to=depth if first_ungraded is None else first_ungraded - 1,
            )
        )
    candidates = chunks | set(graded)
    return Completeness(
        question_id=question_id,
        candidates=len(candidates),
        graded=len(set(graded)),
        runs=tuple(runs),
        unanswerable=unanswerable,
    )


@dataclass(frozen=True, slots=True)
class Requirement:
    """What an export requires of each question: complete to ``depth`` of ``runs`` (every run
    on the chunking when empty), or, with no depth, every candidate graded; and what to do with
    the questions that fall short (``partial``: include them with a warning, leave them out, or
    refuse the export)."""

    depth: int | None = None
    runs: tuple[str, ...] = ()
    partial: str | None = None

    @property
    def action(self) -> str:
        """include by default; leave-out when a depth is required and no action was chosen."""
        if self.partial is not None:
            return self.partial
        return "include" if self.depth is None else "leave-out"

    def check(self) -> None:
        if self.partial is not None and self.partial not in PARTIAL_CHOICES:
            msg = f"expected one of {', '.join(PARTIAL_CHOICES)}, got {self.partial!r}"
            raise LabelerError(msg, field="partial")
        if self.depth is not None and (isinstance(self.depth, bool) or self.depth < 1):
            raise LabelerError(f"expected 1 or more, got {self.depth!r}", field="require-depth")
        if self.runs and self.depth is None:
            msg = "--run names the runs of --require-depth: give --require-depth K too"
            raise LabelerError(msg, field="run")

    def resolve(self, depths: Mapping[str, int], chunking: str) -> tuple[str, ...]:
        """The runs the depth is required of, checked against the runs on ``chunking`` (name:
        pool depth): each must exist and pool at least ``depth`` deep."""
        if self.depth is None:
            return ()
        runs = self.runs or tuple(sorted(depths))
        if not runs:
            msg = f"no run on chunking {chunking!r} to require a depth of (import a run first)"
            raise LabelerError(msg, field="require-depth")
        for run in runs:
            if run not in depths:
                known = ", ".join(sorted(depths)) or "none"
                msg = f"no run {run!r} on chunking {chunking!r} (runs: {known})"
                raise LabelerError(msg, field="run")
            if depths[run] < self.depth:
                msg = (
                    f"run {run!r} pools only its top {depths[run]}, so nothing below is a"
                    f" candidate: require at most {depths[run]}, or import the run again with"
                    f" --pool-depth {self.depth}"
                )
                raise LabelerError(msg, field="require-depth")
        return runs

    def met(self, found: Completeness, runs: Iterable[str], depths: Mapping[str, int]) -> bool:
        """Whether a question meets the requirement (unanswerable questions always do)."""
        if found.unanswerable:
            return True
        if self.depth is None:
            return not found.partial
        return all(found.complete_to(run, depths[run]) >= self.depth for run in runs)

    def describe(self, runs: Sequence[str]) -> str:
        if self.depth is None:
            return "every candidate graded"
        return f"complete to depth {self.depth} of {', '.join(runs)}"

    def as_dict(self, runs: Sequence[str]) -> dict:
        return {"require_depth": self.depth, "runs": list(runs), "partial": self.action}


__all__ = [
    "PARTIAL_CHOICES",
    "Completeness",
    "Requirement",
    "RunDepth",
    "completeness",
]
