""" "Show the judge's grade after mine": a project setting a lead switches on, naming the judge.

Once on, the grading page shows a reviewer that judge's relevance grade and reason beside a
chunk they have graded, never before: ``labeler.grading.labeling.open_question`` puts them in
the view only for chunks with the reviewer's own current grade, so no face can show them early.
Off by default, since seeing the judge can pull a reviewer's next grades toward it.
"""

from __future__ import annotations

from labeler.errors import NotFoundError
from labeler.store import Store


def relevance_judges(store: Store) -> list[str]:
    return store.ratings.metric_judges().get("relevance", [])


def set_revealed_judge(store: Store, judge: str | None) -> None:
    """Show ``judge``'s relevance grades after reviewers' own (None: show none)."""
    if judge is not None:
        judges = relevance_judges(store)
        if judge not in judges:
            msg = f"{judge!r} has no relevance grade; judges: {', '.join(judges) or 'none yet'}"
            raise NotFoundError(msg, field="judge")
    store.ratings.set_revealed_judge(judge)


def revealed_judge(store: Store) -> str | None:
    return store.ratings.revealed_judge()


__all__ = ["relevance_judges", "revealed_judge", "set_revealed_judge"]
