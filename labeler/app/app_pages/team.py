"""Team: how the work assigned to each reviewer is going, how far they agree with each other on
the questions they share, and what waits for a lead to settle. For leads and owners (in
single-person mode, the one person is the owner).

The figures are ``labeler.grading.team``'s (its docstring says how each is counted); assigning
work is ``labeler assign`` on the command line.
"""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from labeler.app.state import get_store, reviewer, user_errors
from labeler.app.widgets import caption, note
from labeler.grading.team import MIN_SHARED, team

store = get_store()
me = reviewer()


def _when(stamp: str | None) -> str:
    if stamp is None:
        return "never"
    return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")


def reviewers_table(figures: tuple) -> None:
    rows = [
        {
            "reviewer": r.reviewer,
            "role": r.role or "(no account)",
            "assigned": r.assigned,
            "done": r.done,
            "grades today": r.today,
            "grades this week": r.week,
            "median s / grade": None if r.median_seconds is None else round(r.median_seconds, 1),
            "kappa on the overlap": None if r.kappa is None else round(r.kappa, 2),
            "shared chunks": r.shared,
            "last active": _when(r.last_active),
        }
        for r in figures
    ]
    st.dataframe(rows, hide_index=True, key="team_reviewers", placeholder="-")


def waiting_table(waiting: tuple) -> None:
    st.subheader(f"Waiting for adjudication ({len(waiting)})")
    if not waiting:
        caption("No disagreement is left to settle.")
        return
    rows = [
        {
            "question": w.question_id,
            "chunks to settle": w.open_chunks,
            "reviewers": ", ".join(w.reviewers),
            "text": w.text,
        }
        for w in waiting
    ]
    st.dataframe(rows, hide_index=True, key="team_waiting")
    st.page_link("app_pages/adjudicate.py", label="Settle them on the Adjudicate page")


st.title("Team")
with user_errors():
    found = team(store, actor=me)
    if not found.reviewers:
        note("Nobody has graded or been given work yet: labeler assign --to NAME ...")
    else:
        reviewers_table(found.reviewers)
        caption(
            f"Agreement: quadratic-weighted kappa with the other reviewers on the"
            f" {found.overlap_questions} questions assigned to two, each grade as it stood"
            f" before its reviewer saw the other's (blank below {MIN_SHARED} shared chunks)."
            " Pace: the median time between two grades, breaks over 10 minutes left out."
        )
    waiting_table(found.waiting)
