"""How the review is going: acceptance by generator, synthesizer and persona, why questions
were rejected, how many remain, and how long a decision takes."""

from __future__ import annotations

import statistics

from labeler.review.decisions import REJECT_REASONS
from labeler.store import Store

# A decision that took longer than this was a coffee break, not thinking: left out of the median.
IDLE_SECONDS = 30 * 60


def _groups(store: Store, by: str) -> list[dict]:
    rows = []
    for row in store.reviews.counts(by):
        decided = row["accepted"] + row["rejected"]
        rows.append(
            {
                "value": row["value"],
                "pending": row["pending"],
                "accepted": row["accepted"],
                "rejected": row["rejected"],
                "acceptance": row["accepted"] / decided if decided else None,
            }
        )
    return rows


def review_stats(store: Store) -> dict:
    """The figures of ``labeler review stats`` and of the page's stats view.

    ``acceptance`` is accepted / (accepted + rejected), None before any decision;
    ``median_seconds`` is the median time from showing a question on the page to deciding it
    (decisions from the CLI and batches have no such time), None before any.
    """
    by_status = {"pending": 0, "accepted": 0, "rejected": 0}
    for group in _groups(store, "generator"):
        for status in by_status:
            by_status[status] += group[status]
    decided = by_status["accepted"] + by_status["rejected"]
    times = [s for s in store.reviews.decision_seconds() if s <= IDLE_SECONDS]
    reasons = store.reviews.reject_reasons()
    return {
        "total": sum(by_status.values()),
        "remaining": by_status["pending"],
        "accepted": by_status["accepted"],
        "rejected": by_status["rejected"],
        "acceptance": by_status["accepted"] / decided if decided else None,
        "by_generator": _groups(store, "generator"),
        "by_synthesizer": _groups(store, "synthesizer"),
        "by_persona": _groups(store, "persona"),
        "reject_reasons": [
            {"reason": r, "label": REJECT_REASONS.get(r, r), "count": n} for r, n in reasons.items()
        ],
        "median_seconds": statistics.median(times) if times else None,
        "timed_decisions": len(times),
        "decisions_by_reviewer": store.reviews.decisions_by_reviewer(),
        "pending_flags": store.flags.flag_counts("pending"),
    }


__all__ = ["IDLE_SECONDS", "review_stats"]
