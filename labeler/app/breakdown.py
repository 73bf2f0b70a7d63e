"""The Results page's breakdown of a conversational test set: each run's figures by turn (first,
later), answerability, question type and multi-turn type, as ``labeler eval`` prints them
(``labeler.metrics.breakdown``). Drawn only when the labels hold turns of conversations."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from labeler.app.tables import Column, show_table
from labeler.grading.current import Labels
from labeler.metrics.breakdown import breakdown_rows, turn_groups
from labeler.metrics.evaluation import RunResult


def section(results: Sequence[RunResult], metrics: Sequence[str], labels: Labels) -> None:
    if not results or not labels.turns:
        return
    groups = turn_groups(results[0].questions, labels.turns, labels.tags)
    rows = breakdown_rows(results, metrics, groups)
    if not rows:
        return
    st.subheader("By turn")
    columns = [Column(c, "number" if c in metrics else "auto") for c in rows[0]]
    show_table(rows, columns, key="results_by_turn")
    st.caption(
        "The test set holds conversations: the means over the scored turns of each group."
        " First turns stand alone; later turns are follow-ups a retriever must read with the"
        " conversation. A turn tagged with several question types is in each of their groups."
    )


__all__ = ["section"]
