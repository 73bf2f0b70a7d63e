from labeler.grading.candidates import SOURCE_KINDS, blind_key, describe_sources, pool
from labeler.importers import import_run
from labeler.store import Store


def by_name(entry) -> dict[tuple[str, str], int | None]:
    """{(kind, name): rank} of an entry's sources."""
    return {(s.kind, s.name): s.rank for s in entry.sources}


def test_pool_is_the_union_of_runs_search_additions_and_labels(loaded: Store, tmp_path) -> None:
    q1 = loaded.questions.get("q1")
    entries = {e.chunk_id: by_name(e) for e in pool(loaded, q1, "default")}
    assert entries["error-codes"][("run", "bm25")] == 1
    assert entries["rate-limits"][("run", "bm25")] == 3
    # Full-text search on "retry 429 response client" finds both chunks that mention 429.
    assert ("search", "bm25") in entries["rate-limits"]
    assert ("search", "bm25") in entries["error-codes"]
    loaded.pools.add("q1", "default", ["authentication"], source="search", added_by="ana")
    loaded.labels.set_grade("q1", "default", "authentication", "ben", 0)
    entries = {e.chunk_id: by_name(e) for e in pool(loaded, q1, "default")}
    assert set(entries["authentication"]) == {("added", "ana"), ("labelled", "ben")}


def test_sources_are_listed_in_one_order_of_kinds(loaded: Store) -> None:
    """Runs, then the search, generators, additions and labels: the grading page's caption
    and ``labeler pool`` list a chunk's sources in the same order."""
    loaded.pools.add("q1", "default", ["rate-limits"], source="search", added_by="ana")
    loaded.labels.set_grade("q1", "default", "rate-limits", "ben", 1)
    entry = next(
        e
        for e in pool(loaded, loaded.questions.get("q1"), "default")
        if e.chunk_id == "rate-limits"
    )
    kinds = [s.kind for s in entry.sources]
    assert kinds == sorted(kinds, key=SOURCE_KINDS.index)
    assert kinds[0] == "run"
    assert kinds[-2:] == ["added", "labelled"]


def test_pool_depth_limits_each_run(loaded: Store, tmp_path) -> None:
    shallow = tmp_path / "shallow.trec"
    shallow.write_text("q3 Q0 webhooks 1 2 deep\nq3 Q0 pagination 2 1 deep\n", encoding="utf-8")
    import_run(loaded, shallow, name="deep", pool_depth=1)
    q3 = loaded.questions.get("q3")
    from_run = {e.chunk_id for e in pool(loaded, q3, "default") if ("run", "deep") in by_name(e)}
    assert from_run == {"webhooks"}


def test_blind_order_is_stable_and_not_the_run_order(loaded: Store) -> None:
    q1 = loaded.questions.get("q1")
    first = [e.chunk_id for e in pool(loaded, q1, "default")]
    assert first == [e.chunk_id for e in pool(loaded, q1, "default")]
    assert first == sorted(first, key=lambda c: blind_key("q1", c))
    assert blind_key("q1", "a") != blind_key("q2", "a")


def test_search_pool_is_cached_until_the_corpus_changes(loaded: Store) -> None:
    q1 = loaded.questions.get("q1")
    pool(loaded, q1, "default")
    key = loaded.pools.fts_pool_hash("q1", "default")
    pool(loaded, q1, "default")
    assert loaded.pools.fts_pool_hash("q1", "default") == key
    loaded.corpus.upsert_chunks("default", [{"id": "new", "text": "retry a 429 with backoff"}])
    entries = {e.chunk_id for e in pool(loaded, q1, "default")}
    assert loaded.pools.fts_pool_hash("q1", "default") != key
    assert "new" in entries


def test_describe_sources_reads_like_a_sentence(loaded: Store) -> None:
    q1 = loaded.questions.get("q1")
    entry = next(e for e in pool(loaded, q1, "default") if e.chunk_id == "rate-limits")
    assert describe_sources(entry).startswith("bm25 #3, full-text search #")
