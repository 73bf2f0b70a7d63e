"""The review of generated questions: flags kept current, a queue, decisions with history and
conflict checks, the view of one question, and stats. Pure core: no Streamlit, no click; the
review page and ``labeler review`` only call these."""

from labeler.review.decisions import (
    REJECT_REASONS,
    BatchResult,
    Decision,
    UndoResult,
    accept,
    check_reason,
    decide_many,
    edit,
    reject,
    skip,
    source_chunks,
    undo,
)
from labeler.review.flagging import (
    FlagRefresh,
    ensure_flags,
    load_config,
    queue_key,
    save_config,
)
from labeler.review.queue import (
    QueueFilter,
    all_but_first,
    keepers,
    list_questions,
    next_question,
    position,
    previous_question,
)
from labeler.review.stats import review_stats
from labeler.review.view import (
    ChunkMatch,
    ContextView,
    Member,
    ReviewView,
    covered_spans,
    open_for_review,
    word_diff,
)

__all__ = [
    "REJECT_REASONS",
    "BatchResult",
    "ChunkMatch",
    "ContextView",
    "Decision",
    "FlagRefresh",
    "Member",
    "QueueFilter",
    "ReviewView",
    "UndoResult",
    "accept",
    "all_but_first",
    "check_reason",
    "covered_spans",
    "decide_many",
    "edit",
    "ensure_flags",
    "keepers",
    "list_questions",
    "load_config",
    "next_question",
    "open_for_review",
    "position",
    "previous_question",
    "queue_key",
    "reject",
    "review_stats",
    "save_config",
    "skip",
    "source_chunks",
    "undo",
    "word_diff",
]
