"""Matching the contexts a generated question came from (Ragas, DeepEval) to our chunks.

A context is matched to chunks, in order:

1. by id, when the file names chunk ids (``reference_context_ids``, our own exports) that the
   chunking holds;
2. exactly: the context's text (its ``<N-hop>`` prefix removed) is a chunk's text, byte for
   byte, or once whitespace is collapsed;
3. fuzzily, with rapidfuzz, over the chunks of the chunking; when it has more than
   ``SCORE_ALL_UP_TO`` chunks, over a shortlist: the ``SHORTLIST`` best full-text matches of
   each ``SEGMENT_WORDS``-word stretch of the context, searched by its ``QUERY_TERMS`` longest
   words (long words are the rare ones). Texts are compared lower-cased
   with runs of whitespace collapsed. A chunk is scored only if most words of the shorter text
   (``MIN_SHARED_WORDS``) occur in the longer one, a cheap test that rules out the unrelated
   chunks of a shortlist. The score is ``fuzz.partial_ratio`` (the best alignment of the
   shorter text inside the longer) when the shorter has at least ``MIN_ALIGNED`` characters and
   is less than ``SAME_LENGTH`` of the longer: so a context that spans several of our smaller
   chunks matches each of them, and a context cut from one of our larger chunks matches it.
   Otherwise it is ``fuzz.ratio`` over the whole texts: texts of about the same length are
   simply compared, and a short text like "Geography" does not match every chunk that
   mentions geography. Chunks scoring ``FUZZY_CUTOFF`` or more match, best first, at most
   ``MAX_PER_CONTEXT``.

Nothing else is guessed: a context with no match is reported, with the line it came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from labeler.store import Store, fts_terms
from labeler.store.base import text_hash

FUZZY_CUTOFF = 90.0
MIN_ALIGNED = 80
SAME_LENGTH = 0.8
MIN_SHARED_WORDS = 0.7
MAX_PER_CONTEXT = 5
SCORE_ALL_UP_TO = 2000
SHORTLIST = 50
SEGMENT_WORDS = 100
QUERY_TERMS = 16

_HOP = re.compile(r"^\s*<\d+-hop>\s*")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


def strip_hop(text: str) -> str:
    """Ragas' multi-hop contexts start with ``<1-hop>\\n\\n``: not part of the chunk's text."""
    return _HOP.sub("", text, count=1)


def normalise(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


@dataclass(frozen=True, slots=True)
class ContextMatch:
    """How one context matched: ``how`` is "id", "exact", "fuzzy" or "none"."""

    how: str
    chunk_ids: tuple[str, ...] = ()
    score: float | None = None


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text))


def shared_words(a: frozenset[str], b: frozenset[str]) -> float:
    """The share of the smaller word set found in the larger: 1.0 when one text's words are
    all in the other."""
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    return len(small & large) / len(small) if small else 0.0


def similarity(context: str, chunk: str) -> float:
    """0-100, as described in the module docstring; both texts already normalised."""
    from rapidfuzz import fuzz

    shorter, longer = sorted((context, chunk), key=len)
    if len(shorter) < MIN_ALIGNED or len(shorter) >= SAME_LENGTH * len(longer):
        return fuzz.ratio(context, chunk)
    return fuzz.partial_ratio(shorter, longer)


class ContextMatcher:
    """Matches contexts to the chunks of one chunking; built once per import."""

    def __init__(self, store: Store, chunking: str) -> None:
        self.store = store
        self.chunking = chunking
        self._all: list[tuple[str, str, frozenset[str]]] | None = None
        self._size = store.corpus.count_chunks(chunking)

    def _candidates(self, text: str) -> list[tuple[str, str, frozenset[str]]]:
        """(chunk id, normalised text, words) of the chunks worth scoring against ``text``."""
        if self._size <= SCORE_ALL_UP_TO:
            if self._all is None:
                self._all = []
                for chunk_id, body in self.store.corpus.iter_chunk_texts(self.chunking):
                    flat = normalise(body)
                    self._all.append((chunk_id, flat, words(flat)))
            return self._all
        found: dict[str, str] = {}
        tokens = text.split()
        for start in range(0, max(len(tokens), 1), SEGMENT_WORDS):
            segment = " ".join(tokens[start : start + SEGMENT_WORDS])
            # Long words are the rare ones, and a few rare words find a passage as well as all
            # of them, at a fraction of the cost (a common word matches half the corpus).
            terms = sorted(fts_terms(segment), key=len, reverse=True)[:QUERY_TERMS]
            query = " ".join(terms)
            for chunk in self.store.search.search_chunks(
                self.chunking, query, limit=SHORTLIST, any_term=True
            ):
                found.setdefault(chunk.id, chunk.text)
        return [(c, flat, words(flat)) for c, body in found.items() for flat in (normalise(body),)]

    def match(self, context: str, *, ids: Iterable[str] = ()) -> ContextMatch:
        wanted = [i for i in ids if i]
        if wanted:
            known = self.store.corpus.get_chunks(self.chunking, wanted)
            if known:
                return ContextMatch("id", tuple(i for i in wanted if i in known), 100.0)
        text = strip_hop(context)
        if not text.strip():
            return ContextMatch("none")
        hashes = {text_hash(text), text_hash(text.strip()), text_hash(context)}
        found = self.store.corpus.chunk_ids_by_text_hash(self.chunking, hashes)
        exact = sorted({c for ids_ in found.values() for c in ids_})
        if exact:
            return ContextMatch("exact", tuple(exact[:MAX_PER_CONTEXT]), 100.0)
        query = normalise(text)
        query_words = words(query)
        scored = []
        for chunk_id, body, body_words in self._candidates(text):
            if body == query:
                return ContextMatch("exact", (chunk_id,), 100.0)
            if shared_words(query_words, body_words) < MIN_SHARED_WORDS:
                continue
            score = similarity(query, body)
            if score >= FUZZY_CUTOFF:
                scored.append((-score, chunk_id))
        if not scored:
            return ContextMatch("none")
        scored.sort()
        best = scored[:MAX_PER_CONTEXT]
        return ContextMatch("fuzzy", tuple(c for _, c in best), -best[0][0])


__all__ = [
    "FUZZY_CUTOFF",
    "MAX_PER_CONTEXT",
    "MIN_ALIGNED",
    "MIN_SHARED_WORDS",
    "SAME_LENGTH",
    "SCORE_ALL_UP_TO",
    "ContextMatch",
    "ContextMatcher",
    "normalise",
    "shared_words",
    "similarity",
    "strip_hop",
    "words",
]
