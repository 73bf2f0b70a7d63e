"""The pooling search is exact BM25: property-tested against FTS5's plain ranking."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeler.store import Store
from labeler.store.search import BM25_B, BM25_K1

# A few common words and many rare ones, so that early termination has something to skip;
# "Café" and "ﬁle" test the tokenizer's folding, "v1" a word that is also a chunking's name.
COMMON = ["retry", "request", "error", "page", "order"]
RARE = ["webhook", "cursor", "hmac", "quota", "token", "Café", "ﬁle", "v1", "2024", "backoff"]
WORDS = COMMON * 4 + RARE


def _store(tmp_path, name: str) -> Store:
    return Store(tmp_path / f"{name}.db")


chunk_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)
corpus = st.lists(
    st.tuples(
        st.sampled_from(["v1", "v1-small"]),
        st.one_of(st.none(), st.sampled_from(WORDS)),
        chunk_text,
    ),
    min_size=1,
    max_size=40,
)
question = st.lists(st.sampled_from([*WORDS, "how", "the", "absent", "a_b"]), max_size=8).map(
    " ".join
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    chunks=corpus,
    text=question,
    limit=st.integers(1, 6),
    first_pass=st.sampled_from([1, 2, 5, 50]),
)
def test_pooling_search_equals_exact_bm25(tmp_path_factory, chunks, text, limit, first_pass):
    """Same chunks, same order, bit-identical scores, whichever words the first pass ranks."""
    store = _store(tmp_path_factory.mktemp("search"), "s")
    try:
        by_chunking: dict[str, list[dict]] = {}
        for i, (chunking, title, body) in enumerate(chunks):
            by_chunking.setdefault(chunking, []).append(
                {"id": f"c{i}", "title": title, "text": body}
            )
        for chunking, rows in by_chunking.items():
            store.corpus.ensure_chunking(chunking)
            store.corpus.upsert_chunks(chunking, rows)
        for chunking in by_chunking:
            exact = store.search.exact_search(chunking, text, limit=limit)
            pooled = store.search.pool_search(chunking, text, limit=limit, first_pass=first_pass)
            assert pooled == exact
    finally:
        store.close()


def test_bm25_scores_are_fts5s_formula_worked_by_hand(store: Store) -> None:
    """One word, three chunks: idf, length normalisation and the title's half weight."""
    store.corpus.ensure_chunking("v1")
    store.corpus.upsert_chunks(
        "v1",
        [
            {"id": "a", "text": "quota quota reset"},
            {"id": "b", "title": "quota", "text": "daily reset at midnight"},
            {"id": "c", "text": "nothing here"},
        ],
    )
    # N = 3 rows, n = 2 hold "quota": idf = ln(1.5 / 2.5) < 0, floored at 1e-6 by FTS5.
    # Row tokens D (chunking column included, "v1" = 1 token): a 4, b 6, c 3; avgdl 13/3.
    hits = store.search.pool_search("v1", "quota")
    assert [h.chunk_id for h in hits] == ["a", "b"]

    def part(f: float, d: int) -> float:
        norm = BM25_K1 * (1 - BM25_B + BM25_B * d / (13 / 3))
        return 1e-6 * (f * (BM25_K1 + 1)) / (f + norm)

    assert math.isclose(hits[0].score, part(2.0, 4), rel_tol=1e-12)
    assert math.isclose(hits[1].score, part(0.5, 6), rel_tol=1e-12)


def test_common_topic_words_still_count(store: Store) -> None:
    """The issue's case: a question whose topic words are common must not lose them.

    "AIRE" (stemmed "air") is in 7 chunks; "skin" and "tumors" in 41 of 198. A chunk on skin
    tumours that does not name AIRE outranks chunks that only mention the air.
    """
    store.corpus.ensure_chunking("v1")
    rows = [{"id": f"skin{i}", "text": f"skin tumors study {i} cohort"} for i in range(40)]
    rows += [{"id": f"air{i}", "text": f"air quality report {i}"} for i in range(6)]
    rows += [{"id": f"filler{i}", "text": f"filler words {i}"} for i in range(150)]
    rows += [
        {"id": "answer", "text": "AIRE is expressed in some skin tumors"},
        {"id": "short", "text": "skin tumors skin tumors"},
    ]
    store.corpus.upsert_chunks("v1", rows)
    text = "AIRE is expressed in some skin tumors"
    hits = store.search.pool_search("v1", text, limit=3, first_pass=1)
    assert hits == store.search.exact_search("v1", text, limit=3)
    assert [h.chunk_id for h in hits[:2]] == ["answer", "short"]


def test_passage_lookup_leaves_out_words_too_common_to_matter(store: Store, monkeypatch) -> None:
    """search_chunks(any_term=True) finds where a passage came from by its rare words."""
    from labeler.store import search

    store.corpus.ensure_chunking("v1")
    rows = [{"id": f"c{i}", "text": f"common filler {i}"} for i in range(30)]
    rows += [{"id": "r1", "text": "common rare"}, {"id": "r2", "text": "rarer rare word"}]
    store.corpus.upsert_chunks("v1", rows)
    # Exact on a small corpus: every word is kept, rarest first.
    assert store.search.selective_terms(["common", "rare", "rarer"]) == ["rarer", "rare", "common"]
    monkeypatch.setattr(search, "TERM_MAX_CHUNKS", 10)
    assert store.search.selective_terms(["common", "rare", "rarer"]) == ["rarer", "rare"]
    assert {c.id for c in store.search.search_chunks("v1", "common rare", any_term=True)} == {
        "r1",
        "r2",
    }
    # The pooling search keeps the common word: a chunk holding only it can rank.
    pooled = [h.chunk_id for h in store.search.pool_search("v1", "common rare", limit=3)]
    assert pooled[:2] == ["r1", "r2"]
    assert pooled[2].startswith("c")
    # Only common words: the two rarest are kept, so the lookup still finds something.
    assert store.search.selective_terms(["common", "filler"]) == ["common", "filler"]
    assert store.search.selective_terms(["absent"]) == ["absent"]
    monkeypatch.setattr(search, "POSTINGS_BUDGET", 2)
    assert store.search.selective_terms(["common", "rare", "rarer"]) == ["rarer"]


def test_search_box_needs_every_word(store: Store) -> None:
    store.corpus.ensure_chunking("v1")
    store.corpus.upsert_chunks(
        "v1",
        [{"id": "a", "text": "retry the request"}, {"id": "b", "text": "retry later"}],
    )
    assert [c.id for c in store.search.search_chunks("v1", "retry request")] == ["a"]
    assert [h.chunk_id for h in store.search.pool_search("v1", "retry request")] == ["a", "b"]


def test_nothing_to_search_for(store: Store) -> None:
    store.corpus.ensure_chunking("v1")
    store.corpus.upsert_chunks("v1", [{"id": "a", "text": "retry"}])
    assert store.search.pool_search("v1", "how do I") == []
    assert store.search.pool_search("v1", "absent words") == []
    assert store.search.exact_search("v1", "") == []


def test_highlighting_leaves_out_words_common_in_the_corpus(store: Store) -> None:
    """40 chunks: the cut-off is 5 % of them, 2 chunks. "rare" is in 1, "middle" in 2,
    "frequent" in 3, "common" in 30."""
    store.corpus.ensure_chunking("v1")
    texts = ["filler"] * 40
    for i in range(30):
        texts[i] = "common"
    texts[0] += " rare middle frequent"
    texts[1] += " middle frequent"
    texts[2] += " frequent"
    store.corpus.upsert_chunks("v1", [{"id": f"c{i}", "text": t} for i, t in enumerate(texts)])
    search = store.search
    assert search.highlight_terms("Is the rare, middle, frequent or common one?") == [
        "rare",
        "middle",
    ]
    # Only common words: the rarest of them is marked, so the reader still sees something.
    assert search.highlight_terms("common or frequent?") == ["frequent"]
    assert search.highlight_terms("absent words") == []
