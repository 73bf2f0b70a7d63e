"""``labeler embed`` and ``labeler search --dense/--hybrid``: embed a chunking, incrementally,
resume after Ctrl-C and after a crash (a real subprocess, stopped mid-run), search by meaning,
list dense candidates in ``labeler pool``, and say how to install the extra when it is missing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.dense import project
from labeler.dense.fusion import RRF_K
from labeler.dense.index import read_header, read_vectors
from labeler.dense.model import DEFAULT_MODEL, MODELS, ModelSpec, passage_key, passage_text
from labeler.dense.search import HYBRID_DEPTH
from labeler.importers import import_chunks
from labeler.store import Store
from tests.conftest import REPO, write_jsonl
from tests.test_dense_model import need_extra


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_missing_extra_says_how_to_install_it_and_writes_nothing(
    loaded: Store, monkeypatch
) -> None:
    absent = ModelSpec("absent", "labeler-no-such-package", ("no_such",), "absent-x", 4, "-", dict)
    monkeypatch.setitem(MODELS, "absent", absent)
    project.forget()
    db = str(loaded.path)
    result = _run("embed", "--model", "absent", "--depth", "3", "--db", db)
    assert result.exit_code == 2
    assert result.output.strip().endswith("is not installed: pip install 'labeler[absent-x]'")
    assert loaded.get_setting("dense:model") is None
    assert loaded.get_setting("dense:depth") is None
    assert not list(loaded.path.parent.glob("*.vectors"))
    loaded.set_setting("dense:model", "absent")
    searched = _run("search", "--dense", "next page", "--db", db)
    assert searched.exit_code == 2
    assert "pip install 'labeler[absent-x]'" in searched.output
    project.forget()


def test_hybrid_help_states_its_constant() -> None:
    shown = " ".join(_run("search", "--help").output.split())
    assert f"each to {HYBRID_DEPTH}, with k = {RRF_K}" in shown


def test_embed_then_search_and_pool_show_the_letters(letters: Store) -> None:
    db = str(letters.path)
    first = _run("embed", "--depth", "2", "--format", "json", "--db", db)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout.splitlines()[-1])
    assert (report["chunks"], report["embedded"], report["depth"]) == (4, 4, 2)
    assert report["dense_pools"] == 3
    again = _run("embed", "--db", db)
    assert "4 chunks, 0 embedded now, 4 had vectors" in again.output
    assert "dense pools: 0 computed, 3 already current" in again.output
    dense = _run("search", "--dense", "dd", "--limit", "2", "--db", db)
    assert [line.split()[1] for line in dense.output.splitlines()[::2]] == ["c2", "c4"]
    table = _run("pool", "q2", "--db", db).output
    model = project.installed_key("letters")
    rows = {line.split(None, 2)[1]: line.split(None, 2)[2] for line in table.splitlines()[1:]}
    assert rows == {"c2": f"dense {model} #1", "c4": f"search bm25 #1, dense {model} #2"}


# a real `labeler embed`, stopped and resumed --------------------------------------------------


def _corpus(tmp_path: Path, count: int) -> tuple[Path, list[dict]]:
    words = "order refund invoice cursor token webhook retry quota page limit".split()
    chunks = [
        {
            "id": f"c{i:03d}",
            "title": f"Note {i}",
            "text": " ".join(words[(i * k) % len(words)] for k in range(1, 13)) + f" {i}",
        }
        for i in range(count)
    ]
    db = tmp_path / "p.db"
    with Store(db) as store:
        import_chunks(store, write_jsonl(tmp_path / "c.jsonl", chunks))
    return db, chunks


def _records(path: Path) -> int:
    if not path.exists():
        return 0
    header, start = read_header(path)
    return (path.stat().st_size - start) // header.record_dtype().itemsize


def _embed(db: Path) -> subprocess.Popen:
    env = dict(os.environ, LABELER_EMBED_THREADS="1")
    return subprocess.Popen(
        [sys.executable, "-m", "labeler", "embed", "--no-pools", "--format", "json", "--db", db],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop_when(process: subprocess.Popen, path: Path, more_than: int, how: int) -> int:
    """Send ``how`` once the index holds more than ``more_than`` records; the records then."""
    deadline = time.monotonic() + 300
    while _records(path) <= more_than:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "labeler embed wrote nothing in 5 minutes"
        time.sleep(0.02)
    process.send_signal(how)
    process.wait(timeout=120)
    return _records(path)


@pytest.mark.embed
def test_a_killed_embed_resumes_where_it_stopped(tmp_path: Path) -> None:
    need_extra(DEFAULT_MODEL)
    count = 320  # ten batches of 32
    db, chunks = _corpus(tmp_path, count)
    project.forget()
    path = tmp_path / f"p.db.{project.installed_key(DEFAULT_MODEL)}.vectors"

    interrupted = _embed(db)
    kept = _stop_when(interrupted, path, 0, signal.SIGINT)
    _, err = interrupted.communicate()
    assert interrupted.returncode == 130
    assert "the vectors written are kept; run labeler embed again to go on" in err
    assert 0 < kept < count
    assert kept % 32 == 0
    crashed = _embed(db)
    held = _stop_when(crashed, path, kept, signal.SIGKILL)
    assert crashed.returncode == -signal.SIGKILL
    assert kept < held < count
    with Store(db) as store:
        assert project.dense_index(store, "default") is None  # never recorded halfway

    finished = _embed(db)
    out, err = finished.communicate(timeout=600)
    assert finished.returncode == 0, err
    report = json.loads(out.splitlines()[-1])
    assert (report["chunks"], report["embedded"]) == (count, count - held)
    vectors = read_vectors(path)
    keys = [passage_key(c["title"], c["text"]) for c in chunks]
    assert len(vectors) == count
    assert not vectors.missing(keys)
    with Store(db) as store:
        assert project.dense_index(store, "default") is not None
    # What the three runs wrote is what the model gives (float16 on disk).
    model = project.embedder(DEFAULT_MODEL)
    sample = [chunks[0], chunks[-1]]
    fresh = model.embed_passages([passage_text(c["title"], c["text"]) for c in sample])
    stored = vectors.matrix[vectors.rows([passage_key(c["title"], c["text"]) for c in sample])]
    assert np.abs(stored.astype(np.float32) - fresh).max() < 2e-3
