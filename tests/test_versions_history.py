"""Listing and checking versions, resolving "v2"/"latest", and zipping a version."""

import io
import json
import os
import zipfile
from pathlib import Path

import pytest

from labeler.errors import LabelerError, NotFoundError
from labeler.export import export_testset
from labeler.store import Store
from labeler.versions import history
from labeler.versions.format import seal, version_files
from labeler.versions.history import (
    check_intact,
    check_record,
    list_versions,
    parse_version_ref,
    resolve_version,
    zip_version,
)
from labeler.versions.reading import read_files
from labeler.versions.signing import project_key


@pytest.fixture
def two_versions(loaded: Store, tmp_path: Path) -> Path:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    export_testset(loaded, "orders", out=tmp_path)
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 2)
    export_testset(loaded, "orders", out=tmp_path)
    return tmp_path


def test_versions_are_listed_oldest_first_and_checked(two_versions: Path, loaded: Store) -> None:
    infos = list_versions(two_versions, "orders", store=loaded)
    key = project_key(loaded).public.fingerprint
    ok = f"ok (signed by this project's key {key})"
    assert [(i.number, i.intact, i.status()) for i in infos] == [(1, True, ok), (2, True, ok)]
    assert [i.signature for i in infos] == ["verified", "verified"]
    assert infos[1].manifest["parent"] == 1
    assert infos[0].recorded_hash == infos[0].manifest["content_hash"]
    check_intact(infos)
    assert infos[1].as_dict()["counts"]["questions"] == 2


def test_a_changed_file_is_reported_and_fails_the_check(two_versions: Path) -> None:
    questions = two_versions / "orders" / "v1" / "questions.jsonl"
    os.chmod(questions, 0o644)
    questions.write_text(questions.read_text().replace("429", "430"), encoding="utf-8")
    infos = list_versions(two_versions, "orders")
    assert infos[0].status() == "MODIFIED: questions.jsonl"
    # Without the database, its signature is checked against the key it carries.
    assert infos[1].status().startswith("ok (signed by key SHA256:")
    with pytest.raises(LabelerError, match=r"v1 MODIFIED: questions\.jsonl"):
        check_intact(infos)


def test_a_manifest_edited_to_match_is_caught_by_the_database(
    two_versions: Path, loaded: Store
) -> None:
    folder = two_versions / "orders" / "v1"
    for path in folder.iterdir():
        os.chmod(path, 0o644)
    qrels = folder / "qrels.tsv"
    qrels.write_text(qrels.read_text().replace("\t2\n", "\t1\n"), encoding="utf-8")
    manifest = json.loads((folder / "manifest.json").read_text())
    files = read_files(folder, version_files(manifest))
    manifest = seal(manifest, files)  # files digests and hash recomputed: a forgery
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "signature.json").unlink()  # the signature would tell: gone with it
    info = list_versions(two_versions, "orders", store=loaded)[0]
    assert info.record_differs  # not what this database exported
    assert not info.intact
    assert info.status() == (
        "FORGED: unsigned: it has no signature.json, which every version of its format is"
        " written with"
    )
    with pytest.raises(LabelerError, match="v1 FORGED"):
        check_intact([info])
    with pytest.raises(LabelerError, match=r"recorded the hash .* rewritten after export"):
        check_record(loaded, folder, manifest)
    assert not list_versions(two_versions, "orders")[0].intact  # no database: still unsigned


def test_the_hash_covers_min_grade(two_versions: Path) -> None:
    """min_grade decides what `convert --to ragas` writes: editing it is a modification."""
    folder = two_versions / "orders" / "v1"
    manifest_path = folder / "manifest.json"
    os.chmod(manifest_path, 0o644)
    manifest = json.loads(manifest_path.read_text())
    manifest["min_grade"] = 2
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    info = list_versions(two_versions, "orders")[0]
    assert info.changed == ("manifest.json field min_grade",)  # named by the signature
    assert info.status() == "MODIFIED: manifest.json field min_grade"


def test_an_unreadable_manifest_is_reported(two_versions: Path) -> None:
    manifest = two_versions / "orders" / "v2" / "manifest.json"
    os.chmod(manifest, 0o644)
    manifest.write_text("{", encoding="utf-8")
    info = list_versions(two_versions, "orders")[1]
    assert info.status().startswith("UNREADABLE: not valid JSON")
    with pytest.raises(LabelerError, match="v2 UNREADABLE"):
        check_intact([info])


@pytest.mark.parametrize(("ref", "number"), [("v1", 1), ("2", 2), ("latest", 2), ("V2", 2)])
def test_resolving_a_version(two_versions: Path, ref: str, number: int) -> None:
    assert resolve_version(two_versions, "orders", ref) == two_versions / "orders" / f"v{number}"


def test_resolving_what_is_not_there(two_versions: Path) -> None:
    with pytest.raises(NotFoundError, match=r"no version v7 of 'orders' \(there are: v1, v2\)"):
        resolve_version(two_versions, "orders", "v7")
    with pytest.raises(NotFoundError, match="no versions of 'other'"):
        resolve_version(two_versions, "other", "latest")
    with pytest.raises(LabelerError, match="expected a version like v3"):
        parse_version_ref("vx")


def test_test_set_names_are_folders_holding_versions(two_versions: Path) -> None:
    (two_versions / "empty").mkdir()
    (two_versions / "README.md").write_text("", encoding="utf-8")
    assert history.names_under(two_versions) == ["orders"]
    assert history.names_under(two_versions / "missing") == []


def test_a_zip_holds_the_version_and_is_the_same_every_time(two_versions: Path) -> None:
    folder = two_versions / "orders" / "v2"
    data = zip_version(folder)
    assert zip_version(folder) == data
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == [
            "orders/v2/manifest.json",
            "orders/v2/questions.jsonl",
            "orders/v2/qrels.tsv",
            "orders/v2/chunks.jsonl",
            "orders/v2/completeness.jsonl",
            "orders/v2/signature.json",
        ]
        assert archive.read("orders/v2/qrels.tsv") == (folder / "qrels.tsv").read_bytes()
