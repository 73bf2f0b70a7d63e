"""Where a question's words occur in a text, as the full-text index sees words.

The grading page highlights the question's words in each chunk. "A word" must mean what it means
to the search that found the chunk: whole tokens of the ``unicode61`` tokenizer (diacritics
removed), compared after the Porter stemmer, so "retry" lights up "retrying" and "per" does not
light up inside "performance". Rather than copy the tokenizer and the stemmer, the texts are put
in a throw-away in-memory FTS5 table with the very tokenizer of ``chunks_fts`` and FTS5's own
``highlight()`` says where the matches are. The result is character spans into the raw text,
so the caller can escape the text piece by piece and only then add its marks.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from labeler.store.search import fts_query, fts_terms

# The tokenizer of chunks_fts (migration 0001_initial); tests/test_store_highlight.py holds
# them equal.
TOKENIZE = "porter unicode61 remove_diacritics 2"

Span = tuple[int, int]


def _markers(texts: Sequence[str]) -> tuple[str, str]:
    """Two characters that occur in none of the texts (private-use code points)."""
    used = set().union(*map(set, texts)) if texts else set()
    free = (chr(c) for c in range(0xE000, 0xF8FF) if chr(c) not in used)
    return next(free), next(free)


def _spans(marked: str, opening: str, closing: str) -> list[Span]:
    spans: list[Span] = []
    position = 0
    start = 0
    for char in marked:
        if char == opening:
            start = position
        elif char == closing:
            spans.append((start, position))
        else:
            position += 1
    return spans


def match_spans(texts: Sequence[str], query: str) -> list[list[Span]]:
    """For each text, the (start, end) character spans of the words of ``query`` in it.

    The query's words are those the search uses (``fts_terms``: lower-cased, stop words left
    out); a span is one whole token, or a run of tokens for a query word the tokenizer splits
    (``next_cursor``). Spans are in order and do not overlap.
    """
    terms = fts_terms(query)
    if not terms or not texts:
        return [[] for _ in texts]
    opening, closing = _markers(texts)
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{TOKENIZE}')")
        conn.executemany(
            "INSERT INTO t (rowid, text) VALUES (?, ?)",
            [(number, text) for number, text in enumerate(texts, start=1)],
        )
        found = dict(
            conn.execute(
                "SELECT rowid, highlight(t, 0, ?, ?) FROM t WHERE t MATCH ?",
                (opening, closing, fts_query(terms, any_term=True)),
            )
        )
    finally:
        conn.close()
    return [
        _spans(found[number], opening, closing) if number in found else []
        for number in range(1, len(texts) + 1)
    ]


__all__ = ["TOKENIZE", "Span", "match_spans"]
