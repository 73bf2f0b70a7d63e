"""Warm the server once: import what the Results page needs, in a background thread, while the
reviewer reads the first page.

The Results page's first open paid for one-time work of the server process: importing the
metric engine's comparison and summary modules, label next, the versions' reader and diff, and
pandas' Arrow-backed strings (pyarrow.compute and its version checks, about 0.3 s of CPU on
the first DataFrame of strings). py-spy found these at about half the page's CPU on its first
open (issue #23). Done once per process, off the script thread, they cost a page nothing.
"""

from __future__ import annotations

import threading

_STARTED = threading.Event()


def _warm() -> None:
    import pandas as pd

    import labeler.app.tables
    import labeler.grading.decide
    import labeler.metrics.comparison
    import labeler.metrics.summary
    import labeler.sources
    import labeler.versions.diff  # noqa: F401

    pd.DataFrame({"text": ["a"]}).astype(str)  # pandas' Arrow strings load on first use


def start() -> None:
    """Start the warm-up once per server process (later calls do nothing)."""
    if _STARTED.is_set():
        return
    _STARTED.set()
    threading.Thread(target=_warm, name="labeler-warm", daemon=True).start()


__all__ = ["start"]
