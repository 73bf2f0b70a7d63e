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

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

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


def _fewest_shared(n: int) -> int:
    """The least k with ``k / n >= MIN_SHARED_WORDS`` as floats divide (``shared_words``)."""
    k = math.ceil(n * MIN_SHARED_WORDS)
    while k > 0 and (k - 1) / n >= MIN_SHARED_WORDS:
        k -= 1
    while k / n < MIN_SHARED_WORDS:
        k += 1
    return k


class _Corpus:
    """A small chunking (``SCORE_ALL_UP_TO`` chunks at most) held in memory for matching:
    texts by hash, normalised texts, and which chunks hold each word, so the chunks worth
    scoring against a context are found by one count over the words' lists (numpy) instead
    of a set intersection with every chunk (0.3 ms a context on 336 chunks: 200,000 distinct
    contexts took a minute)."""

    def __init__(self, chunks: Iterable[tuple[str, str]]) -> None:
        self.ids: list[str] = []
        self.bodies: list[str] = []
        self.by_hash: dict[str, list[str]] = {}
        self.first_body: dict[str, int] = {}
        postings: dict[str, list[int]] = {}
        sizes = []
        for index, (chunk_id, text) in enumerate(chunks):
            flat = normalise(text)
            self.ids.append(chunk_id)
            self.bodies.append(flat)
            self.by_hash.setdefault(text_hash(text), []).append(chunk_id)
            self.first_body.setdefault(flat, index)
            body_words = words(flat)
            sizes.append(len(body_words))
            for word in body_words:
                postings.setdefault(word, []).append(index)
        self.postings = {w: np.array(rows, dtype=np.int64) for w, rows in postings.items()}
        self.sizes = np.array(sizes, dtype=np.int64)
        # need[n]: the fewest shared words that make n words' share MIN_SHARED_WORDS or more,
        # by the very division shared_words makes (n = 0 never shares).
        top = max(sizes, default=0)
        need = [_fewest_shared(n) for n in range(1, top + 1)]
        self.need = np.array([top + 1, *need], dtype=np.int64)

    def exact(self, hashes: Iterable[str]) -> list[str]:
        return sorted({c for digest in hashes for c in self.by_hash.get(digest, ())})

    def sharing(self, query_words: frozenset[str]) -> np.ndarray:
        """The chunks (in order) for which ``shared_words`` with ``query_words`` is at least
        ``MIN_SHARED_WORDS``: the same division, so the same chunks as the set test."""
        postings = self.postings
        lists = [postings[w] for w in query_words if w in postings]
        if not lists:
            return np.zeros(0, dtype=np.int64)
        shared = np.bincount(np.concatenate(lists), minlength=len(self.ids))
        return np.flatnonzero(shared >= self.need[np.minimum(self.sizes, len(query_words))])


class ContextMatcher:
    """Matches contexts to the chunks of one chunking; built once per import."""

    def __init__(self, store: Store, chunking: str) -> None:
        self.store = store
        self.chunking = chunking
        self._corpus: _Corpus | None = None
        self._size = store.corpus.count_chunks(chunking)
        # Each distinct context is matched once per import: a file repeats them (a multi-hop
        # question shares its passages with others; a cell of 16,000 copies of one context
        # took 10 s to match one by one).
        self._matched: dict[tuple[str, tuple[str, ...]], ContextMatch] = {}

    def _small(self) -> _Corpus | None:
        """The chunking in memory when it is small enough to score every chunk, else None."""
        if self._size > SCORE_ALL_UP_TO:
            return None
        if self._corpus is None:
            self._corpus = _Corpus(self.store.corpus.iter_chunk_texts(self.chunking))
        return self._corpus

    def _shortlist(self, text: str) -> list[tuple[str, str, frozenset[str]]]:
        """(chunk id, normalised text, words) of the chunks of a large chunking worth scoring
        against ``text``: the full-text search's best matches of its stretches."""
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
        key = (context, tuple(ids))
        found = self._matched.get(key)
        if found is None:
            found = self._matched[key] = self._match(context, key[1])
        return found

    def _match(self, context: str, ids: tuple[str, ...]) -> ContextMatch:
        wanted = [i for i in ids if i]
        if wanted:
            known = self.store.corpus.get_chunks(self.chunking, wanted)
            if known:
                return ContextMatch("id", tuple(i for i in wanted if i in known), 100.0)
        text = strip_hop(context)
        if not text.strip():
            return ContextMatch("none")
        hashes = {text_hash(text), text_hash(text.strip()), text_hash(context)}
        corpus = self._small()
        if corpus is not None:
            exact = corpus.exact(hashes)
        else:
            found = self.store.corpus.chunk_ids_by_text_hash(self.chunking, hashes)
            exact = sorted({c for ids_ in found.values() for c in ids_})
        if exact:
            return ContextMatch("exact", tuple(exact[:MAX_PER_CONTEXT]), 100.0)
        query = normalise(text)
        query_words = words(query)
        scored = []
        if corpus is not None:
            first = corpus.first_body.get(query)
            if first is not None:
                return ContextMatch("exact", (corpus.ids[first],), 100.0)
            for index in corpus.sharing(query_words).tolist():
                score = similarity(query, corpus.bodies[index])
                if score >= FUZZY_CUTOFF:
                    scored.append((-score, corpus.ids[index]))
        else:
            for chunk_id, body, body_words in self._shortlist(text):
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
