"""Warm the server once: import what the Results page needs, in a background thread, while the
reviewer reads the first page.

The Results page's first open paid for one-time work of the server process: importing the
metric engine's comparison and summary modules, label next, the versions' reader and diff.
py-spy found these at about half the page's CPU on its first open (issue #23). Done once per
process, off the script thread, they cost a page nothing. (The page draws no DataFrame since
its tables became HTML, so pandas' Arrow strings are no longer warmed for it.)

Then the imported runs are read as the engine takes them (``kept_run``, kept until a run is
imported): at 10,000 questions x 3 runs of 20 that read was 1.5-2.2 s of the Results page's
first open. Only up to ``READ_AHEAD_RESULTS`` run lines in all: reading a run costs about 1.5 s
of CPU a million lines, and 3 runs of 1,000,000 lines read ahead took the first seconds of
grading on a fresh server (at 1M chunks, over the first 50 keys: p95 296 ms and 79 ms of server
CPU a key, against 82 ms and 11 ms without it; the thread holds the interpreter while it builds
each run). Larger runs are read when the Results page first needs them.
"""

from __future__ import annotations

import logging
import threading

_STARTED = threading.Event()
READ_AHEAD_RESULTS = 1_000_000  # run lines read ahead, all runs together
log = logging.getLogger(__name__)


def _warm(db: str | None) -> None:
    import labeler.app.tables
    import labeler.grading.decide
    import labeler.metrics.comparison
    import labeler.metrics.summary
    import labeler.sources
    import labeler.versions.diff  # noqa: F401

    if db is not None:
        _read_runs(db)


def _read_runs(db: str) -> None:
    from labeler.grading.current import kept_run
    from labeler.store import Store

    try:
        with Store(db) as store:
            runs = store.runs.all()
            if sum(run["results"] for run in runs) > READ_AHEAD_RESULTS:
                return
            for run in runs:
                kept_run(store, run["name"])
    except Exception:  # a warm-up only: the page reads the runs itself if this fails
        log.debug("could not read the runs ahead", exc_info=True)


def start(db: str | None = None) -> None:
    """Start the warm-up once per server process (later calls do nothing); ``db``: the
    database whose runs to read ahead."""
    if _STARTED.is_set():
        return
    _STARTED.set()
    threading.Thread(target=_warm, args=(db,), name="labeler-warm", daemon=True).start()


__all__ = ["start"]
