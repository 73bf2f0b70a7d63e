"""The one list of the app's pages: the entrypoint's navigation and the page tests read it."""

from pathlib import Path

PAGES_DIR = Path(__file__).resolve().parent / "app_pages"

# The one list of pages: (file, title, icon, section). A page joins the app by a line here.
PAGES = [
    ("label.py", "Grade chunks", ":material/checklist:", "Label"),
    ("review.py", "Review questions", ":material/rate_review:", "Label"),
    ("remap.py", "Remap queue", ":material/call_split:", "Label"),
    ("judge_review.py", "Spot-check the judge", ":material/fact_check:", "Label"),
    ("adjudicate.py", "Adjudicate", ":material/gavel:", "Label"),
    ("results.py", "Results", ":material/leaderboard:", "Evaluate"),
    ("judge_report.py", "Judge report", ":material/balance:", "Evaluate"),
    ("export.py", "Export test sets", ":material/inventory_2:", "Test sets"),
    ("data.py", "Data", ":material/database:", "Project"),
]

__all__ = ["PAGES", "PAGES_DIR"]
