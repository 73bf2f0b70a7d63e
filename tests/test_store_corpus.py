import pytest

from labeler.models import Chunk
from labeler.store import Store, fts_terms
from labeler.store.corpus import fts_query, stage_chunks


def test_upsert_chunks_counts_added_updated_and_keeps_the_index_in_step(store: Store) -> None:
    store.corpus.ensure_chunking("v1")
    rows = [{"id": "a", "text": "retry after 429"}, {"id": "b", "text": "next page cursor"}]
    assert store.corpus.upsert_chunks("v1", rows) == (2, 0)
    assert store.corpus.upsert_chunks("v1", rows) == (0, 0)
    changed = [{"id": "a", "text": "webhook signatures"}, {"id": "b", "text": "next page cursor"}]
    assert store.corpus.upsert_chunks("v1", changed) == (0, 1)
    # The old text left the full-text index with the update.
    assert store.search.search_chunks("v1", "retry") == []
    assert [c.id for c in store.search.search_chunks("v1", "webhook")] == ["a"]


def test_search_is_scoped_to_one_chunking_and_ranks_by_bm25(store: Store) -> None:
    store.corpus.ensure_chunking("v1")
    store.corpus.ensure_chunking("v2")
    store.corpus.upsert_chunks(
        "v1",
        [
            {"id": "x", "text": "rate limits: 100 requests per minute, then 429"},
            {"id": "y", "text": "429 429 429 retry retry"},
            {"id": "z", "text": "pagination"},
        ],
    )
    store.corpus.upsert_chunks("v2", [{"id": "x2", "text": "429 retry"}])
    assert [c.id for c in store.search.search_chunks("v1", "retry 429")] == ["y"]
    assert [c.id for c in store.search.search_chunks("v1", "429", limit=5)] == ["y", "x"]
    assert [c.id for c in store.search.search_chunks("v2", "429")] == ["x2"]
    # No chunk holds all words: the search box falls back to any of them.
    assert {c.id for c in store.search.search_chunks("v1", "pagination webhook")} == {"z"}


def test_search_terms_are_quoted_so_user_text_is_never_fts_syntax(store: Store) -> None:
    store.corpus.ensure_chunking("v1")
    store.corpus.upsert_chunks("v1", [{"id": "a", "text": "NEAR the OR operator AND title:x"}])
    assert [c.id for c in store.search.search_chunks("v1", 'NEAR( "OR" title:x * ^')] == ["a"]
    assert fts_query(["say", 'a"b'], any_term=True) == '"say" OR "a""b"'
    assert store.search.search_chunks("v1", "the of and") == []  # only stop words


def test_fts_terms_drop_stop_words_and_repeats() -> None:
    assert fts_terms("How do I retry, and RETRY after a 429?") == ["retry", "after", "429"]


def test_search_by_chunking_name_does_not_match_every_chunk(store: Store) -> None:
    store.corpus.ensure_chunking("default")
    store.corpus.upsert_chunks(
        "default", [{"id": "a", "text": "alpha"}, {"id": "b", "text": "beta"}]
    )
    assert store.search.search_chunks("default", "default") == []


def test_neighbours_follow_document_order(store: Store) -> None:
    store.corpus.ensure_chunking("v1")
    store.corpus.upsert_chunks(
        "v1",
        [
            {"id": "c3", "doc_id": "d", "text": "three", "start": 20, "end": 25},
            {"id": "c1", "doc_id": "d", "text": "one", "start": 0, "end": 3},
            {"id": "c2", "doc_id": "d", "text": "two", "start": 10, "end": 13},
            {"id": "other", "doc_id": "e", "text": "elsewhere"},
        ],
    )
    middle = store.corpus.get_chunk("v1", "c2")
    assert [c.id for c in store.corpus.neighbours(middle)] == ["c1", "c2", "c3"]
    first = store.corpus.get_chunk("v1", "c1")
    assert [c.id for c in store.corpus.neighbours(first)] == ["c1", "c2"]
    lone = Chunk(id="x", chunking="v1", text="no document")
    assert store.corpus.neighbours(lone) == [lone]


def test_first_chunking_becomes_current_and_can_be_switched(store: Store) -> None:
    assert store.corpus.current_chunking() == "default"
    store.corpus.ensure_chunking("v1")
    store.corpus.ensure_chunking("v2")
    assert store.corpus.current_chunking() == "v1"
    store.corpus.set_current_chunking("v2")
    assert store.corpus.current_chunking() == "v2"


def test_store_uses_wal_and_a_busy_timeout(store: Store) -> None:
    assert store.db.journal_mode == "wal"
    assert store.scalar("PRAGMA busy_timeout") >= 10_000


def test_migrations_are_recorded_and_reopening_applies_nothing(tmp_path) -> None:
    path = tmp_path / "m.db"
    Store(path).close()
    with Store(path) as again:
        names = [r["name"] for r in again.query("SELECT name FROM _sqlite_migrations")]
    assert names[0] == "0001_initial"
    assert len(names) == len(set(names))


def test_chunks_staged_apart_are_written_as_the_rows_are(store: Store) -> None:
    """``stage_chunks`` (an importer's reading thread) then ``upsert_chunks`` is the same
    write as ``upsert_chunks`` of the rows; a field the row lacks keeps its stored value."""
    store.corpus.ensure_chunking("v1")
    rows = [
        {"id": "a", "text": "retry after 429", "doc_id": "d", "start": 0, "metadata": {"p": 1}},
        {"id": "b", "text": "next page cursor", "title": "Paging"},
    ]
    assert store.corpus.upsert_chunks("v1", stage_chunks("v1", rows)) == (2, 0)
    stored = store.query("SELECT id, doc_id, title, start, metadata FROM chunks ORDER BY id")
    assert stored == [
        {"id": "a", "doc_id": "d", "title": None, "start": 0, "metadata": '{"p": 1}'},
        {"id": "b", "doc_id": None, "title": "Paging", "start": None, "metadata": None},
    ]
    assert store.corpus.upsert_chunks("v1", stage_chunks("v1", [{"id": "a", "text": "x"}])) == (
        0,
        1,
    )
    assert store.corpus.get_chunk("v1", "a").doc_id == "d"
    assert [c.id for c in store.search.search_chunks("v1", "cursor")] == ["b"]
    with pytest.raises(ValueError, match="rows staged for chunking 'v1', not 'v2'"):
        store.corpus.upsert_chunks("v2", stage_chunks("v1", rows))
