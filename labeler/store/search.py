"""Full-text search over the chunks: the search box, passage lookup, and the exact BM25 top-k
that pools use.

All three rank with FTS5's own ``bm25()`` over title and text (a title hit counts half a text hit;
the chunking column weighs nothing), best first, equal scores in index (rowid) order.

The pooling search must equal exact BM25: on a large corpus the question's common words are
often its topic words, and leaving them out loses relevant chunks (issue #13 measured recall@10
falling from 0.684 to 0.639 at 178k chunks with the old per-word cap). It is exact and still
cheap, by MaxScore-style early termination (Turtle and Flood, 1995) over FTS5's own ranking:

- every word's BM25 contribution to a chunk's score is below ``(k1 + 1) * idf(word)`` (the term
  frequency part of BM25 tends to ``k1 + 1`` and never reaches it), so a chunk that holds none
  of the question's rarer words scores below the sum of those bounds over its common words;
- so the chunks holding a rare word are ranked first (exactly: FTS5 scores them with every
  word of the question), and once the 10th of them scores above the bound of the words left
  out, no chunk made only of those words can reach the top 10. Else one more word joins, and
  in the worst case the search is the plain exact query.

Scores are bit-identical to the exact query's: the words are always put to FTS5 in one
canonical order (fewest chunks first), and FTS5 sums each word's part in query order, adding
exactly 0.0 for a word a chunk does not hold. ``exact_search`` is that plain query, kept as the
reference the tests and benchmarks compare with.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import NamedTuple

from labeler.models import Chunk
from labeler.store.base import Facet

# Words that carry no signal for BM25 over questions ("how do I ...").
STOP_WORDS = frozenset(
    (
        "a an and are as at be but by can could did do does for from had has have how i if in"
        " into is it its me my of on or our should so than that the their them then there"
        " these they this to was we were what when where which who whom why will with would"
        " you your"
    ).split()
)
_TOKEN = re.compile(r"\w+", re.UNICODE)

# FTS5's BM25 constants (fts5_aux.c), and the column weights the store ranks with.
BM25_K1 = 1.2
BM25_B = 0.75
BM25_WEIGHTS = "0.0, 0.5, 1.0"  # chunking, title, text
# The first pass of the pooling search ranks the chunks holding the question's rarest words,
# up to this many (word, chunk) postings: enough to find a 10th score that rules out most of
# the common words, small enough to cost a few milliseconds.
FIRST_PASS_POSTINGS = 3_000
# Passage lookup (search_chunks with any_term): words in more chunks than this are left out,
# and the words kept hold at most this many (word, chunk) postings in all.
TERM_MAX_CHUNKS = 5_000
POSTINGS_BUDGET = 20_000
# Highlighting (the grading page marks a question's words in each chunk): a word found in more
# than this share of the chunks points at nothing and is left unmarked ("one", "order" in a
# shop's corpus); a question made only of such words has its rarest one marked.
HIGHLIGHT_MAX_SHARE = 0.05
# Float sums may round up by a few ulps; the bound is checked with this much to spare.
_BOUND_MARGIN = 1e-9

CHUNK_COLUMNS = 'c.id, c.chunking, c.doc_id, c.title, c.text, c.start, c."end"'


class SearchHit(NamedTuple):
    """One result of the pooling search: the chunk, its 1-based rank, its BM25 score."""

    chunk_id: str
    rank: int
    score: float


def fts_terms(text: str) -> list[str]:
    """The distinct lower-cased words of ``text`` that are worth searching for, in order."""
    seen: dict[str, None] = {}
    for token in _TOKEN.findall(text.lower()):
        if token not in STOP_WORDS and token not in seen:
            seen[token] = None
    return list(seen)


def fts_query(terms: Sequence[str], *, any_term: bool) -> str:
    """An FTS5 query with every term quoted, so user text can never be read as FTS syntax."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in terms]
    return (" OR " if any_term else " ").join(quoted)


def _row_to_chunk(row: dict) -> Chunk:
    return Chunk(
        id=row["id"],
        chunking=row["chunking"],
        text=row["text"],
        doc_id=row["doc_id"],
        title=row["title"],
        start=row["start"],
        end=row["end"],
    )


class Search(Facet):
    __slots__ = ()

    # the search box -----------------------------------------------------------------------

    def search_chunks(
        self, chunking: str, text: str, *, limit: int = 10, any_term: bool = False
    ) -> list[Chunk]:
        """BM25 over title and text (FTS5), best first; equal scores in index order.

        By default every word must match (the search box), falling back to any of them when no
        chunk holds all. ``any_term`` finds where a passage came from (matching an imported
        context, remapping a label): chunks holding any of its selective words (see
        ``selective_terms``), fast on long passages. Pools use the exact ``pool_search``.
        """
        terms = fts_terms(text)
        if not terms:
            return []
        if any_term:
            match = fts_query(self.selective_terms(terms), any_term=True)
            rows = self._ranked_chunks(chunking, match, limit)
        else:
            rows = self._ranked_chunks(chunking, fts_query(terms, any_term=False), limit)
            if not rows and len(terms) > 1:
                rows = self._ranked_chunks(chunking, fts_query(terms, any_term=True), limit)
        return [_row_to_chunk(r) for r in rows]

    def selective_terms(self, terms: Sequence[str]) -> list[str]:
        """A passage's words worth a lookup, rarest first: query-term pruning.

        A word found in more than TERM_MAX_CHUNKS chunks is left out, and words are taken
        rarest first while their chunks add up to at most POSTINGS_BUDGET: a passage's rare
        words say where it came from at a fraction of the cost of all its words. Not for
        pools: on a large corpus a question's topic words are often its common ones (issue
        #13), so pools rank with every word (``pool_search``). A text made only of common
        words keeps its two rarest.
        """
        counts = {term: self._chunks_with(term) for term in terms}
        ranked = sorted((t for t in terms if counts[t]), key=lambda t: counts[t])
        kept, total = [], 0
        for term in ranked:
            if counts[term] > TERM_MAX_CHUNKS or total + counts[term] > POSTINGS_BUDGET:
                break
            kept.append(term)
            total += counts[term]
        return kept or ranked[:2] or list(terms[:1])

    def highlight_terms(self, text: str) -> list[str]:
        """The words of ``text`` (a question) worth marking in the chunks, in its order: those
        in at most HIGHLIGHT_MAX_SHARE of the chunks (their document frequency, from the
        full-text index); when there is none, the rarest word the chunks hold. Counting stops
        past the cut-off, so a common word costs little more than a rare one on a large
        corpus."""
        terms = fts_terms(text)
        if not terms:
            return []
        total = int(self.scalar("SELECT count(*) FROM chunks"))
        cap = max(1, int(total * HIGHLIGHT_MAX_SHARE))
        counts = {term: self._count_upto(term, cap + 1) for term in terms}
        rare = [t for t in terms if 0 < counts[t] <= cap]
        if rare:
            return rare
        present = {t: self._chunks_with(t) for t in terms if counts[t]}
        return [min(present, key=present.__getitem__)] if present else []

    def _count_upto(self, term: str, limit: int) -> int:
        """Chunks (title or text) holding ``term``, counted up to ``limit``."""
        match = "{title text} : " + fts_query([term], any_term=False)
        return int(
            self.scalar(
                "SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?"
                " LIMIT ?)",
                (match, limit),
            )
        )

    def _chunks_with(self, term: str) -> int:
        """How many chunks hold ``term``, counted up to TERM_MAX_CHUNKS + 1 (cheap either way)."""
        return self._count_upto(term, TERM_MAX_CHUNKS + 1)

    # the pooling search -------------------------------------------------------------------

    def pool_search(
        self,
        chunking: str,
        text: str,
        *,
        limit: int = 10,
        first_pass: int = FIRST_PASS_POSTINGS,
    ) -> list[SearchHit]:
        """Exact BM25 top ``limit`` over any of the question's words, by early termination.

        Equal, chunk for chunk and score for score, to ``exact_search`` (see the module
        docstring for why). ``first_pass`` is how many postings the first pass may rank.
        """
        ranked = self._counted_terms(text) if limit > 0 else []
        if not ranked:
            return []
        terms = [t for _, t in ranked]
        rows_upper = int(self.scalar("SELECT coalesce(max(pk), 0) FROM chunks"))
        bounds = [_score_bound(count, rows_upper) for count, _ in ranked]
        # tail[i]: the most that the words terms[i:] can add to a chunk's score.
        tail = [0.0] * (len(terms) + 1)
        for i in range(len(terms) - 1, -1, -1):
            tail[i] = tail[i + 1] + bounds[i]
        essential, postings = 1, ranked[0][0]
        while essential < len(terms) and postings + ranked[essential][0] <= first_pass:
            postings += ranked[essential][0]
            essential += 1
        while True:
            rows = self._rank_essential(chunking, terms, essential, limit)
            theta = rows[limit - 1][1] if len(rows) >= limit else 0.0
            needed = essential
            while needed < len(terms) and tail[needed] * (1 + _BOUND_MARGIN) >= theta:
                needed += 1
            if needed == essential:
                break
            essential = needed
        ids = self._chunk_ids([rowid for rowid, _ in rows])
        return [
            SearchHit(ids[rowid], rank, score) for rank, (rowid, score) in enumerate(rows, start=1)
        ]

    def exact_search(self, chunking: str, text: str, *, limit: int = 10) -> list[SearchHit]:
        """The reference: one FTS5 query ranking every chunk that holds any of the words."""
        ranked = self._counted_terms(text)
        if not ranked:
            return []
        match = fts_query([t for _, t in ranked], any_term=True)
        rows = self._ranked_rowids(chunking, match, limit)
        ids = self._chunk_ids([rowid for rowid, _ in rows])
        return [
            SearchHit(ids[rowid], rank, score) for rank, (rowid, score) in enumerate(rows, start=1)
        ]

    def _counted_terms(self, text: str) -> list[tuple[int, str]]:
        """(chunks holding it, word) for the question's words found in the corpus, fewest
        first: the one order every query puts them in, so scores add up the same way."""
        counted = [(self._phrase_count(term), term) for term in fts_terms(text)]
        return sorted((count, term) for count, term in counted if count)

    def _phrase_count(self, term: str) -> int:
        """Rows whose title or text hold ``term``: FTS5's own count for the word's idf."""
        match = "{title text} : " + fts_query([term], any_term=False)
        sql = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?"
        return int(self.scalar(sql, (match,)))

    def _rank_essential(
        self, chunking: str, terms: list[str], essential: int, limit: int
    ) -> list[tuple[int, float]]:
        """The exact top ``limit`` among the chunks holding one of ``terms[:essential]``.

        Two queries, each scoring with every word: chunks that also hold a later word, and
        chunks that hold none (for them the later words add exactly 0.0).
        """
        if essential >= len(terms):
            return self._ranked_rowids(chunking, fts_query(terms, any_term=True), limit)
        rare = fts_query(terms[:essential], any_term=True)
        common = fts_query(terms[essential:], any_term=True)
        rows = self._ranked_rowids(chunking, f"({rare}) AND ({common})", limit)
        rows += self._ranked_rowids(chunking, f"({rare}) NOT ({common})", limit)
        rows.sort(key=lambda row: (-row[1], row[0]))
        return rows[:limit]

    def _ranked_rowids(self, chunking: str, match: str, limit: int) -> list[tuple[int, float]]:
        """(rowid, score) of the best ``limit`` chunks of ``chunking`` matching ``match``."""
        bm25 = f"bm25(chunks_fts, {BM25_WEIGHTS})"
        if self._single_chunking():
            sql = (
                f"SELECT rowid, -{bm25} FROM chunks_fts WHERE chunks_fts MATCH ?"
                f" ORDER BY {bm25}, rowid LIMIT ?"
            )
            params: tuple = (f"{{title text}} : ({match})", limit)
        else:
            # The chunking column narrows the match (its weight is 0: the score is the same);
            # the join checks the name exactly ("v1" is also a word of "v1-small").
            name = chunking.replace('"', '""')
            sql = (
                f"SELECT chunks_fts.rowid, -{bm25} FROM chunks_fts"
                " JOIN chunks c ON c.pk = chunks_fts.rowid"
                " WHERE chunks_fts MATCH ? AND c.chunking = ?"
                f" ORDER BY {bm25}, chunks_fts.rowid LIMIT ?"
            )
            params = (f'chunking : "{name}" AND {{title text}} : ({match})', chunking, limit)
        return [(int(rowid), float(score)) for rowid, score in self.conn.execute(sql, params)]

    def _chunk_ids(self, rowids: Sequence[int]) -> dict[int, str]:
        if not rowids:
            return {}
        placeholders = ", ".join("?" * len(rowids))
        return dict(
            self.conn.execute(f"SELECT pk, id FROM chunks WHERE pk IN ({placeholders})", rowids)
        )

    def _ranked_chunks(self, chunking: str, match: str, limit: int) -> list[dict]:
        rows = self._ranked_rowids(chunking, match, limit)
        if not rows:
            return []
        found = {
            r["pk"]: r
            for r in self.query(
                f"SELECT c.pk, {CHUNK_COLUMNS} FROM chunks c WHERE c.pk IN"
                f" ({', '.join('?' * len(rows))})",
                [rowid for rowid, _ in rows],
            )
        }
        return [found[rowid] for rowid, _ in rows if rowid in found]

    def _single_chunking(self) -> bool:
        return int(self.scalar("SELECT count(*) FROM chunkings")) <= 1


def _score_bound(count: int, rows_upper: int) -> float:
    """The most one word can add to a chunk's BM25 score: ``(k1 + 1) * idf``.

    FTS5's idf is ``log((N - n + 0.5) / (n + 0.5))``, floored at 1e-6, for N rows of which n
    hold the word; ``rows_upper`` >= N (the largest rowid) keeps it an upper bound.
    """
    idf = math.log((rows_upper - count + 0.5) / (count + 0.5))
    return (BM25_K1 + 1.0) * max(idf, 1e-6)


__all__ = ["STOP_WORDS", "Search", "SearchHit", "fts_query", "fts_terms"]
