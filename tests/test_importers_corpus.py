import json
import threading

import pandas as pd
import pytest

from labeler.errors import LabelerError
from labeler.importers import import_chunks, import_documents
from labeler.store import Store
from tests.conftest import CHUNKS, table_counts, write_jsonl


def test_jsonl_import_is_idempotent_and_reports_changes(store: Store, files) -> None:
    first = import_chunks(store, files["chunks"], chunking="v1")
    assert (first.added, first.updated, first.unchanged) == (5, 0, 0)
    again = import_chunks(store, files["chunks"], chunking="v1")
    assert not again.changed
    assert again.summary() == "chunks: nothing changed (5 already present)"
    edited = [dict(c) for c in CHUNKS]
    edited[0]["text"] = "Each API key may send 120 requests per minute."
    write_jsonl(files["chunks"], edited)
    report = import_chunks(store, files["chunks"], chunking="v1")
    assert (report.added, report.updated, report.unchanged) == (0, 1, 4)
    assert store.corpus.get_chunk("v1", "rate-limits").text.startswith("Each API key may send 120")


def test_csv_and_parquet_give_the_same_chunks(store: Store, tmp_path) -> None:
    rows = [
        {
            "id": "a",
            "text": "alpha, with a comma",
            "doc_id": "d",
            "start": 0,
            "end": 19,
            "metadata": json.dumps({"page": 1}),
        },
        {"id": "b", "text": "beta", "doc_id": "d", "start": 20, "end": 24, "metadata": ""},
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "c.csv", index=False)
    parquet_rows = [dict(r, metadata={"page": 1} if r["id"] == "a" else None) for r in rows]
    pd.DataFrame(parquet_rows).to_parquet(tmp_path / "c.parquet")
    assert import_chunks(store, tmp_path / "c.csv", chunking="csv").added == 2
    assert import_chunks(store, tmp_path / "c.parquet", chunking="pq").added == 2
    for chunking in ("csv", "pq"):
        a = store.corpus.get_chunk(chunking, "a")
        assert (a.text, a.doc_id, a.start, a.end) == ("alpha, with a comma", "d", 0, 19)
    metadata = dict(store.conn.execute("SELECT chunking, metadata FROM chunks WHERE id = 'a'"))
    assert metadata == {"csv": '{"page": 1}', "pq": '{"page": 1}'}


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ({"id": "x"}, r'chunks.jsonl:3: field "text": missing or empty'),
        ({"text": "no id"}, r'chunks.jsonl:3: field "id": missing or empty'),
        (
            {"id": "rate-limits", "text": "again"},
            r"chunks.jsonl:3: field \"id\": duplicate chunk id",
        ),
        (
            {"id": "x", "text": "t", "start": 9, "end": 2},
            r'field "end": expected 0 <= start <= end',
        ),
        ({"id": "x", "text": "t", "start": "nine"}, r'field "start": expected a whole number'),
        ({"id": "x", "text": "t", "metadata": [1]}, r'field "metadata": expected an object'),
        ({"id": "x", "text": ["a"]}, r'field "text": expected text, got a list'),
    ],
)
def test_a_bad_line_writes_nothing(store: Store, tmp_path, bad_line, message) -> None:
    path = write_jsonl(tmp_path / "chunks.jsonl", [*CHUNKS[:2], bad_line, *CHUNKS[2:]])
    before = table_counts(store)
    with pytest.raises(LabelerError, match=message):
        import_chunks(store, path)
    assert table_counts(store) == before


def test_a_bad_line_after_many_batches_rolls_back_the_batches(store: Store, tmp_path) -> None:
    rows = [{"id": f"c{i}", "text": f"text {i}"} for i in range(45_000)]
    rows.append({"id": "c7", "text": "duplicate at the end"})
    path = write_jsonl(tmp_path / "big.jsonl", rows)
    with pytest.raises(LabelerError, match=r"big.jsonl:45001: field \"id\": duplicate"):
        import_chunks(store, path)
    assert store.corpus.count_chunks() == 0
    assert store.search.search_chunks("default", "text") == []


def test_wrong_encoding_is_named(store: Store, tmp_path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"id": "a", "text": "café"}\n'.encode("latin-1"))
    with pytest.raises(LabelerError, match=r"latin1.jsonl:1: not valid UTF-8"):
        import_chunks(store, path)
    assert store.corpus.count_chunks() == 0


def test_documents(store: Store, tmp_path) -> None:
    path = write_jsonl(
        tmp_path / "docs.jsonl", [{"id": "api", "title": "API", "text": "full text"}]
    )
    assert import_documents(store, path).added == 1
    assert not import_documents(store, path).changed
    assert store.corpus.get_document("api")["text"] == "full text"
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])
    with pytest.raises(LabelerError, match=r"bad.jsonl:2: field \"id\": duplicate document id"):
        import_documents(store, bad)


def test_batches_read_ahead_index_every_chunk_and_report_progress_here(
    store: Store, tmp_path, monkeypatch
) -> None:
    """The file is read and staged a batch ahead in a thread; the progress callback is still
    called in the importing thread, and the bytes it gets add up to the file's size."""
    monkeypatch.setattr("labeler.importers.corpus.BATCH", 2)
    path = write_jsonl(tmp_path / "chunks.jsonl", CHUNKS)
    threads, read = set(), []

    def progress(size: int) -> None:
        threads.add(threading.get_ident())
        read.append(size)

    report = import_chunks(store, path, chunking="v1", progress=progress)
    assert (report.added, report.updated, report.unchanged) == (5, 0, 0)
    assert threads == {threading.get_ident()}
    assert sum(read) == path.stat().st_size
    # FTS5's own check raises when the index disagrees with the chunks.
    store.conn.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)")
    assert [c.id for c in store.search.search_chunks("v1", "rate limit")] == ["rate-limits"]
    again = import_chunks(store, path, chunking="v1")
    assert (again.added, again.updated, again.unchanged) == (0, 0, 5)
