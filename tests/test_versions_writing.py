"""Versions exported before signing are signed once, on the first open after migration 0009,
only where they are intact (labeler.versions.writing.resign_recorded)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from labeler.cli import main
from labeler.cli.base import open_store
from labeler.store import Store
from labeler.versions.format import (
    FORMAT_V2,
    ChunkEntry,
    Content,
    QuestionEntry,
    manifest_bytes,
    seal,
    serialise,
)
from labeler.versions.signing import project_key
from labeler.versions.writing import resign_recorded

CONTENT = Content(
    questions={"q1": QuestionEntry("q1", "Eins?")},
    qrels={"q1": {"c1": 2}},
    chunks={"c1": ChunkEntry("c1", "eins")},
)


def old_version(store: Store, out: Path, number: int) -> Path:
    """Version ``number`` of "orders" as a labeler before #19 wrote it: format 2, no
    completeness, no signature, recorded by the database with no signature."""
    folder = out / "orders" / f"v{number}"
    folder.mkdir(parents=True)
    files = serialise(CONTENT)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    fields = {"format": FORMAT_V2, "name": "orders", "version": number, "chunking": "default"}
    manifest = seal({**fields, "created": f"2025-01-0{number}T00:00:00Z"}, files)
    (folder / "manifest.json").write_bytes(manifest_bytes(manifest))
    store.versions.record(
        name="orders",
        version=number,
        content_hash=manifest["content_hash"],
        chunking="default",
        parent=number - 1 or None,
        path=str(folder.resolve()),
        counts={},
        selection={},
        created_at=manifest["created"],
    )
    return folder


def before_0009(path: Path) -> None:
    """Take the database back to before migration 0009: no key, no signature column."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        DROP TABLE signing_key;
        ALTER TABLE testset_versions DROP COLUMN signature;
        DELETE FROM _sqlite_migrations WHERE name = '0009_signing';
        """
    )
    conn.close()


def test_the_first_open_after_0009_signs_the_intact_versions_once(tmp_path: Path) -> None:
    db, out = tmp_path / "p.db", tmp_path / "exports"
    with Store(db) as store:
        intact = old_version(store, out, 1)
        tampered = old_version(store, out, 2)
        gone = old_version(store, out, 3)
    (tampered / "qrels.tsv").write_text("q1\t0\tc1\t0\n", encoding="utf-8")
    for path in gone.iterdir():
        path.unlink()
    gone.rmdir()
    before_0009(db)

    with Store(db) as store:  # migration 0009: a key, and every old version to be signed
        assert store.keys.seed() is not None
        assert [r["version"] for r in store.versions.unsigned()] == [1, 2, 3]
    with open_store(db) as store:  # the CLI's first open signs them
        key = project_key(store).public.fingerprint
        recorded = {n: r["signature"] for n, r in store.versions.recorded("orders").items()}
    assert recorded == {1: key, 2: "unsigned: qrels.tsv", 3: None}  # v3: tried again later
    signature = json.loads((intact / "signature.json").read_text())
    assert signature["key"] == key
    assert (
        signature["signed"]["content_hash"]
        == json.loads((intact / "manifest.json").read_text())["content_hash"]
    )
    assert not (tampered / "signature.json").exists()
    assert sorted(p.name for p in out.joinpath("orders").iterdir()) == ["v1", "v2"]  # no temp

    with Store(db) as store:
        assert resign_recorded(store) == []  # once: nothing but the missing one is left
        assert [r["version"] for r in store.versions.unsigned()] == [3]
    result = CliRunner().invoke(main, ["versions", "orders", "--db", str(db), "--out", str(out)])
    lines = result.output.splitlines()
    assert lines[0].endswith(f"ok (signed by this project's key {key})")
    assert lines[1].endswith("MODIFIED: qrels.tsv")
    assert "MISSING: this database exported it to" in lines[2]
    assert result.exit_code == 2


def test_a_version_resealed_before_the_upgrade_stays_unsigned(tmp_path: Path) -> None:
    """Files consistent with a manifest that is not the one this database recorded."""
    db, out = tmp_path / "p.db", tmp_path / "exports"
    with Store(db) as store:
        folder = old_version(store, out, 1)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["min_grade"] = 2
    files = {n: (folder / n).read_bytes() for n in ("questions.jsonl", "qrels.tsv", "chunks.jsonl")}
    (folder / "manifest.json").write_bytes(manifest_bytes(seal(manifest, files)))
    before_0009(db)
    with open_store(db) as store:
        record = store.versions.recorded("orders")[1]
    assert record["signature"] == (
        "unsigned: its manifest's hash is not the one this database recorded"
    )
    assert not (folder / "signature.json").exists()
