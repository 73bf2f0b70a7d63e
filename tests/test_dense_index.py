"""The vector index file: format, lookup, append-only writes, resume after an interruption,
incremental updates, compaction, and the one-writer lock.

The model here is a bag of four letters (each text's counts of a, b, c, d, normalised): real
vectors whose values can be worked by hand, and a record of which texts it was asked for, so
the tests can tell what an update embedded. The shipped model is tested in
test_dense_model.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from labeler.dense.index import (
    MAGIC,
    IndexHeader,
    IndexWriter,
    compact,
    index_path,
    read_header,
    read_vectors,
    update_index,
)
from labeler.dense.model import Embedder, ModelSpec, passage_key
from labeler.errors import LabelerError


class Letters:
    def __init__(self, threads: int = 1) -> None:
        self.asked: list[str] = []

    def passages(self, texts):
        self.asked.extend(texts)
        rows = np.array([[t.count(ch) for ch in "abcd"] for t in texts], dtype=np.float32)
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)

    queries = passages


SPEC = ModelSpec("letters", "letters", ("letters",), "-", 4, "test", Letters)


def embedder(model: Letters | None = None) -> Embedder:
    return Embedder(SPEC, model or Letters(), "1.0")


def pairs(*texts: str) -> list[tuple[bytes, str]]:
    return [(passage_key(None, t), t) for t in texts]


def test_the_file_is_named_after_the_database_and_the_model(tmp_path: Path) -> None:
    path = index_path(tmp_path / "project.db", "multilingual-e5-small-q4@0.3.0")
    assert path == tmp_path / "project.db.multilingual-e5-small-q4@0.3.0.vectors"
    assert index_path(tmp_path / "p.db", "a/b c@1").name == "p.db.a_b_c@1.vectors"


def test_records_round_trip_and_lookup(tmp_path: Path) -> None:
    path = tmp_path / "p.db.letters@1.0.vectors"
    written = update_index(path, embedder(), pairs("ab", "cc", "dddd"), storage="float32")
    assert written == 3
    header, start = read_header(path)
    assert header == IndexHeader("letters@1.0", 4, "float32")
    assert path.read_bytes()[:8] == MAGIC
    assert path.stat().st_size == start + 3 * (16 + 4 * 4)
    held = read_vectors(path)
    rows = held.rows([passage_key(None, "cc"), b"\x00" * 16, passage_key(None, "ab")])
    assert rows[1] == -1
    assert held.matrix[rows[0]].tolist() == [0.0, 0.0, 1.0, 0.0]
    assert held.matrix[rows[2]].tolist() == pytest.approx([2**-0.5, 2**-0.5, 0.0, 0.0])


def test_an_update_embeds_only_new_or_changed_texts(tmp_path: Path) -> None:
    path = tmp_path / "p.vectors"
    first = Letters()
    update_index(path, embedder(first), pairs("ab", "cc", "ab"))
    assert first.asked == ["ab", "cc"]  # equal texts are embedded once
    again = Letters()
    assert update_index(path, embedder(again), pairs("ab", "cc", "abd")) == 1  # new or changed
    assert again.asked == ["abd"]
    assert len(read_vectors(path)) == 3


def test_an_interrupted_update_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "p.vectors"
    texts = pairs("a", "b", "c", "d", "ab")

    def stop_after_first_batch(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        update_index(path, embedder(), texts, batch_size=2, progress=stop_after_first_batch)
    assert len(read_vectors(path)) == 2  # the first batch was on disk before the interruption
    seen: list[tuple[int, int]] = []
    rest = Letters()
    done = update_index(
        path, embedder(rest), texts, batch_size=2, progress=lambda *p: seen.append(p)
    )
    assert done == 3
    assert rest.asked == ["c", "d", "ab"]
    assert seen == [(2, 3), (3, 3)]


def test_a_partial_last_record_is_ignored_then_cut(tmp_path: Path) -> None:
    path = tmp_path / "p.vectors"
    update_index(path, embedder(), pairs("a", "b"))
    whole = path.stat().st_size
    with path.open("ab") as f:
        f.write(b"\x01" * 20)  # a crash in the middle of a write
    assert len(read_vectors(path)) == 2
    update_index(path, embedder(), pairs("c"))
    header, _ = read_header(path)
    assert path.stat().st_size == whole + header.record_dtype().itemsize
    assert len(read_vectors(path)) == 3


def test_float16_storage_is_the_default_and_halves_the_vector(tmp_path: Path) -> None:
    path = tmp_path / "p.vectors"
    update_index(path, embedder(), pairs("ab"))
    held = read_vectors(path)
    assert held.header.storage == "float16"
    assert held.matrix.dtype == np.float16
    assert held.header.record_dtype().itemsize == 16 + 4 * 2


def test_another_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.vectors"
    update_index(path, embedder(), pairs("a"))
    other = Embedder(SPEC, Letters(), "2.0")
    with pytest.raises(LabelerError, match=r"holds letters@1\.0 .* not letters@2\.0"):
        update_index(path, other, pairs("b"))


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "p.vectors"
    header = IndexHeader("letters@1.0", 4, "float16")
    with IndexWriter(path, header), pytest.raises(LabelerError, match="another process"):
        IndexWriter(path, header).open()
    IndexWriter(path, header).open()  # released on close


def test_not_an_index(tmp_path: Path) -> None:
    path = tmp_path / "p.vectors"
    path.write_bytes(b"SQLite format 3\x00")
    with pytest.raises(LabelerError, match="bad magic number") as caught:
        read_vectors(path)
    assert str(caught.value).startswith(str(path))


def test_compact_keeps_only_the_texts_still_there(tmp_path: Path) -> None:
    path = tmp_path / "p.vectors"
    update_index(path, embedder(), pairs("a", "b", "c"))
    keep = [passage_key(None, "c"), passage_key(None, "a"), passage_key(None, "gone")]
    assert compact(path, keep) == 1
    held = read_vectors(path)
    assert len(held) == 2
    assert (held.rows([passage_key(None, "b")]) == -1).all()
    assert held.matrix[held.rows([passage_key(None, "c")])[0]].tolist() == [0, 0, 1, 0]
    assert not path.with_name(path.name + ".compacting").exists()
