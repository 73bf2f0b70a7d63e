"""The one list of the app's pages: the entrypoint's navigation and the page tests read it.

Each page names the right it needs (``labeler.accounts.roles``): the navigation lists only the
pages the logged-in account's role may open (in single-person mode, all of them: the one person
is the owner), and the core refuses the actions behind them whatever a crafted URL asks.
"""

from pathlib import Path
from typing import NamedTuple

from labeler.accounts.roles import Right

PAGES_DIR = Path(__file__).resolve().parent / "app_pages"


class Page(NamedTuple):
    file: str
    title: str
    icon: str
    section: str
    right: Right


# The one list of pages. A page joins the app by a line here.
PAGES = [
    Page("label.py", "Grade chunks", ":material/checklist:", "Label", Right.GRADE),
    Page("review.py", "Review questions", ":material/rate_review:", "Label", Right.REVIEW),
    Page("remap.py", "Remap queue", ":material/call_split:", "Label", Right.REMAP),
    Page(
        "judge_review.py",
        "Spot-check the judge",
        ":material/fact_check:",
        "Label",
        Right.SPOT_CHECK,
    ),
    Page("adjudicate.py", "Adjudicate", ":material/gavel:", "Label", Right.ADJUDICATE),
    Page("results.py", "Results", ":material/leaderboard:", "Evaluate", Right.GRADE),
    Page("judge_report.py", "Judge report", ":material/balance:", "Evaluate", Right.JUDGE),
    Page("export.py", "Export test sets", ":material/inventory_2:", "Test sets", Right.EXPORT),
    Page("team.py", "Team", ":material/groups:", "Project", Right.TEAM),
    Page("data.py", "Data", ":material/database:", "Project", Right.IMPORT),
]

__all__ = ["PAGES", "PAGES_DIR", "Page"]
