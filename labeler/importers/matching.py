"""Kept for code written against round one: generated questions moved to
``labeler.importers.generated``, context matching to ``labeler.importers.contexts``, and
reading other tools' files to ``labeler.readers`` (``iter_items``, ``as_texts``)."""

from __future__ import annotations

from labeler.importers.contexts import (
    FUZZY_CUTOFF,
    MAX_PER_CONTEXT,
    MIN_ALIGNED,
    MIN_SHARED_WORDS,
    SAME_LENGTH,
    SCORE_ALL_UP_TO,
    ContextMatch,
    ContextMatcher,
    normalise,
    shared_words,
    similarity,
    strip_hop,
    words,
)
from labeler.importers.generated import (
    GeneratedImport,
    GeneratedQuestion,
    Unmatched,
    stable_id,
    write_generated,
)
from labeler.readers import as_texts as parse_list
from labeler.readers import iter_items

__all__ = [
    "FUZZY_CUTOFF",
    "MAX_PER_CONTEXT",
    "MIN_ALIGNED",
    "MIN_SHARED_WORDS",
    "SAME_LENGTH",
    "SCORE_ALL_UP_TO",
    "ContextMatch",
    "ContextMatcher",
    "GeneratedImport",
    "GeneratedQuestion",
    "Unmatched",
    "iter_items",
    "normalise",
    "parse_list",
    "shared_words",
    "similarity",
    "stable_id",
    "strip_hop",
    "words",
    "write_generated",
]
