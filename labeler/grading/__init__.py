"""The grading loop: which question a reviewer works on next, its candidate chunks, the grades.

- ``queue`` and ``queues``: what a queue is, how a reviewer walks one, and the one list of
  queues (every question by id; "decide A vs B", ``decide``);
- ``cursor``: which chunk a grade key grades;
- ``labeling``: open a question, grade, note, mark, add a candidate, progress;
- ``candidates``: a question's pool, blind, with every source that put a chunk there;
- ``search_pools``, ``dense_pools`` and ``worker``: the BM25 and dense pools, computed ahead
  by a background thread or ``compute_pools``; ``completion``: who has fully graded what;
- ``consensus``, ``disputes``: one grade per chunk from several reviewers, and settling the
  disagreements;
- ``current``, ``decide``: the current labels and runs for the metric engine, and the queue of
  the pairs that decide between two runs.

Pure core: no Streamlit, no click. Names load on first use (``labeler.lazy``).
"""

from labeler.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "queue": ("Queue", "QueueFamily"),
        "queues": (
            "DEFAULT_QUEUE",
            "QUEUES",
            "get_queue",
            "marked_chunks",
            "next_question",
            "previous_question",
            "queue_rows",
        ),
        "cursor": ("after_grade", "first_to_grade", "move"),
        "labeling": (
            "CandidateView",
            "QuestionView",
            "add_candidate",
            "grade",
            "mark",
            "open_question",
            "progress",
            "refresh_progress",
            "set_note",
        ),
        "candidates": (
            "PoolEntry",
            "describe_sources",
            "ensure_pools",
            "inspect_pools",
            "pool",
            "pools_ready",
        ),
        "search_pools": ("SEARCH_POOL_SIZE", "ensure_search_pool", "pool_query"),
        "dense_pools": ("DENSE",),
        "worker": ("ComputeReport", "PoolWorker", "compute_pools"),
        "consensus": ("POLICIES", "Consensus", "DisagreementError", "get_policy"),
        "disputes": ("Disputes", "adjudicate", "adjudication_history"),
        "current": ("Labels", "current_labels", "stored_run"),
        "decide": ("DECIDE", "Comparison", "DecisionQueue", "decide_runs", "decision_queue"),
    },
)
