"""#19 item 4: a version forged in each way a probe tried, and every reader refuses it.

The readers: ``labeler eval --testset``, ``labeler versions``, ``labeler versions verify``,
``labeler convert``, ``labeler export`` (which checks every earlier version of the name),
``labeler import testset``, and the versions the Results page offers as labels
(``list_versions`` with the project's store, keeping the intact ones). Each forgery is made on
the project's own exports folder, beside its database; the last test checks a resealed copy
in another folder, away from the database, with the public key alone.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.export import export_testset
from labeler.store import Store
from labeler.versions.checking import inspect
from labeler.versions.format import manifest_bytes, seal, sha256_hex, version_files
from labeler.versions.history import list_versions
from labeler.versions.reading import read_manifest
from labeler.versions.signing import SigningKey, project_key, signature_bytes, signature_record
from tests.conftest import RUN

MALLORY = SigningKey(b"\x09" * 32)  # a forger's own key


@pytest.fixture
def project(loaded: Store, tmp_path: Path, monkeypatch) -> Store:
    """A graded project beside its database, with version v1 of "orders" exported and the
    project's public key and a run file at hand."""
    for chunk, grade in (("error-codes", 1), ("pagination", 0), ("rate-limits", 2)):
        loaded.labels.set_grade("q1", "default", chunk, "ana", grade)
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 2)
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    export_testset(loaded, "orders", out=tmp_path / "exports")
    (tmp_path / "run.trec").write_text(RUN, encoding="utf-8")
    assert cli("key", "export-public", "project.pub").exit_code == 0
    return loaded


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


def writable(folder: Path) -> None:
    for path in folder.iterdir():
        os.chmod(path, 0o644)


def reseal(folder: Path, *, manifest_edit=None, files_edit=None, sign: str = "keep") -> None:
    """Edit a version and recompute its digests and hash, as a forger would; then keep its
    signature, remove it, or sign it again with the forger's own key."""
    writable(folder)
    manifest = read_manifest(folder)
    files = {name: (folder / name).read_bytes() for name in version_files(manifest)}
    if files_edit is not None:
        files_edit(files)
    if manifest_edit is not None:
        manifest_edit(manifest)
    sealed = seal(manifest, files)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "manifest.json").write_bytes(manifest_bytes(sealed))
    if sign == "remove":
        (folder / "signature.json").unlink()
    elif sign == "mallory":
        digests = {name: sha256_hex(data) for name, data in files.items()}
        record = signature_record(MALLORY, sealed, digests)
        (folder / "signature.json").write_bytes(signature_bytes(record))


def regrade(files: dict[str, bytes]) -> None:
    """q1's rate-limits from 2 to 0: the kind of edit that moves every figure."""
    qrels = files["qrels.tsv"].decode()
    assert "q1\t0\trate-limits\t2\n" in qrels
    files["qrels.tsv"] = qrels.replace(
        "q1\t0\trate-limits\t2\n", "q1\t0\trate-limits\t0\n"
    ).encode()


def extra_file(folder: Path) -> None:
    (folder / "notes.txt").write_text("looks harmless", encoding="utf-8")


FORGERIES: dict[str, tuple[Callable[[Path], None], str]] = {
    "content edited, resealed, signature kept": (
        lambda f: reseal(f, files_edit=regrade),
        "qrels.tsv",
    ),
    "content edited, resealed, signature removed": (
        lambda f: reseal(f, files_edit=regrade, sign="remove"),
        "unsigned",
    ),
    "content edited, resealed, signed by another key": (
        lambda f: reseal(f, files_edit=regrade, sign="mallory"),
        "unknown key",
    ),
    "policy changed, resealed": (
        lambda f: reseal(f, manifest_edit=lambda m: m.update(policy="max")),
        "manifest.json field policy",
    ),
    "reviewers changed, resealed": (
        lambda f: reseal(f, manifest_edit=lambda m: m.update(reviewers=["ana", "ben"])),
        "manifest.json field reviewers",
    ),
    "counts changed, resealed": (
        lambda f: reseal(f, manifest_edit=lambda m: m["counts"].update(questions=300)),
        "manifest.json field counts",
    ),
    "created changed, resealed": (
        lambda f: reseal(f, manifest_edit=lambda m: m.update(created="2020-01-01T00:00:00Z")),
        "manifest.json field created",
    ),
    "policy changed, hash left as it was": (
        lambda f: (
            writable(f),
            (f / "manifest.json").write_text(
                (f / "manifest.json").read_text().replace('"policy": null', '"policy": "max"')
            ),
        ),
        "manifest.json field policy",
    ),
    "an extra file": (extra_file, "extra file"),
}


def readers(tmp_path: Path, version: str = "exports/orders/v1") -> dict[str, list[str]]:
    return {
        "eval --testset": ["eval", "--testset", version, "--run", "run.trec", "--resamples", "10"],
        "versions": ["versions", "orders"],
        "versions verify": ["versions", "verify", version],
        "convert": ["convert", version, "--to", "trec", "--out", str(tmp_path / "converted")],
        "export (its parent check)": ["export", "orders"],
        "import testset": ["import", "testset", version],
    }


def results_page_labels(store: Store, tmp_path: Path) -> list[int]:
    """The versions of "orders" the Results page offers as labels: the intact ones, checked
    with the project's store (labeler/app/app_pages/results.py, version_options)."""
    return [
        i.number for i in list_versions(tmp_path / "exports", "orders", store=store) if i.intact
    ]


def test_an_untouched_version_passes_every_reader(project: Store, tmp_path: Path) -> None:
    """The control: the readers below refuse the forgeries, not any version."""
    project.labels.set_grade("q2", "default", "webhooks", "ana", 0)  # so export writes v2
    for reader, args in readers(tmp_path).items():
        result = cli(*args)
        assert result.exit_code == 0, (reader, result.output)
    assert results_page_labels(project, tmp_path) == [1, 2]
    assert cli("versions", "verify", "exports/orders", "--public-key", "project.pub").exit_code == 0


@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_every_reader_refuses_a_forged_version(
    project: Store, tmp_path: Path, forgery: str
) -> None:
    forge, says = FORGERIES[forgery]
    folder = tmp_path / "exports" / "orders" / "v1"
    forge(folder)
    project.labels.set_grade("q2", "default", "webhooks", "ana", 0)  # export would write v2
    refused = {}
    for reader, args in readers(tmp_path).items():
        result = cli(*args)
        refused[reader] = (result.exit_code, says in result.output)
    assert refused == {reader: (2, True) for reader in refused}, refused
    assert results_page_labels(project, tmp_path) == []
    assert not (tmp_path / "exports" / "orders" / "v2").exists()
    assert not (tmp_path / "converted").exists()


def test_a_forged_version_is_refused_with_what_differs(project: Store, tmp_path: Path) -> None:
    """One message, in full: the file and the field that differ from what was signed."""
    folder = tmp_path / "exports" / "orders" / "v1"
    reseal(folder, files_edit=regrade, manifest_edit=lambda m: m.update(policy="max"))
    result = cli("versions", "verify", str(folder))
    assert result.exit_code == 2
    key = project_key(project).public.fingerprint
    assert result.output.splitlines()[0] == (
        f"FAILED  {folder}  FORGED: qrels.tsv, manifest.json field policy"
    )
    assert key not in result.output  # nothing vouches for it: its signature is not cited


def test_every_reader_refuses_a_deleted_version(project: Store, tmp_path: Path) -> None:
    project.labels.set_grade("q2", "default", "webhooks", "ana", 0)
    export_testset(project, "orders", out=tmp_path / "exports")
    gone = tmp_path / "exports" / "orders" / "v2"
    writable(gone)
    shutil.rmtree(gone)
    project.labels.set_grade("q2", "default", "webhooks", "ana", 1)
    args = readers(tmp_path, "exports/orders")  # the test set: its latest version
    args["convert"][1] = args["import testset"][2] = "exports/orders/v2"
    outcome = {}
    for reader, command in args.items():
        result = cli(*command)
        outcome[reader] = (result.exit_code, "v2" in result.output)
    assert outcome == {reader: (2, True) for reader in outcome}, outcome
    assert results_page_labels(project, tmp_path) == [1]  # v1 still, v2 listed as missing
    (missing,) = [
        i for i in list_versions(tmp_path / "exports", "orders", store=project) if i.missing
    ]
    assert missing.status().startswith("MISSING: this database exported it to")
    assert "MISSING" in cli("versions", "orders").output


@pytest.mark.parametrize(
    ("sign", "says"),
    [
        ("keep", "qrels.tsv"),
        ("remove", "unsigned"),
        ("mallory", f"unknown key: signed by {MALLORY.public.fingerprint}"),
    ],
)
def test_a_resealed_copy_elsewhere_is_caught_with_the_public_key(
    project: Store, tmp_path: Path, monkeypatch, sign: str, says: str
) -> None:
    """On another machine: a copy of the version, no database, the project's public key."""
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "exports" / "orders" / "v1", elsewhere / "v1")
    shutil.copy(tmp_path / "project.pub", elsewhere / "project.pub")
    shutil.copy(tmp_path / "run.trec", elsewhere / "run.trec")
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("LABELER_DB", str(elsewhere / "no-database-here.db"))
    good = cli("versions", "verify", "v1", "--public-key", "project.pub")
    assert good.exit_code == 0, good.output
    reseal(elsewhere / "v1", files_edit=regrade, sign=sign)
    verified = cli("versions", "verify", "v1", "--public-key", "project.pub")
    assert verified.exit_code == 2
    assert says in verified.output
    scored = cli("eval", "--testset", "v1", "--public-key", "project.pub", "--run", "run.trec")
    assert scored.exit_code == 2
    assert says in scored.output
    assert not (elsewhere / "no-database-here.db").exists()


def test_without_a_key_a_consistent_copy_is_read_and_said_to_be_unchecked(
    project: Store, tmp_path: Path, monkeypatch
) -> None:
    """With no key known at all, a copy re-signed by its forger is consistent in itself: it is
    read, and eval says whose key signed it and that nothing checked that key."""
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(tmp_path / "exports" / "orders" / "v1", elsewhere / "v1")
    shutil.copy(tmp_path / "run.trec", elsewhere / "run.trec")
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("LABELER_DB", str(elsewhere / "none.db"))
    reseal(elsewhere / "v1", files_edit=regrade, sign="mallory")
    result = cli("eval", "--testset", "v1", "--run", "run.trec", "--resamples", "10")
    assert result.exit_code == 0
    assert (
        f"Warning: scoring orders v1, signed by key {MALLORY.public.fingerprint}; no known key"
        " to check it against" in result.output
    )
    findings, _ = inspect(elsewhere / "v1", read_manifest(elsewhere / "v1"))
    assert (findings.intact, findings.signature.state) == (True, "self-signed")


def test_eval_says_when_it_scores_an_unsigned_old_version(project: Store, tmp_path: Path) -> None:
    """A version of the previous format, never signed, is scored with a warning."""
    folder = tmp_path / "old" / "orders" / "v1"
    shutil.copytree(tmp_path / "exports" / "orders" / "v1", folder)
    writable(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["format"] = "labeler-testset/2"
    for name in ("completeness", "signature"):
        manifest.pop(name, None)
        (folder / f"{name}.jsonl").unlink(missing_ok=True)
    (folder / "signature.json").unlink()
    files = {name: (folder / name).read_bytes() for name in version_files(manifest)}
    (folder / "manifest.json").write_bytes(manifest_bytes(seal(manifest, files)))
    result = cli("eval", "--testset", str(folder), "--run", "run.trec", "--resamples", "10")
    assert result.exit_code == 0, result.output
    assert f"Warning: scoring an unsigned version ({folder})" in result.output


@pytest.mark.parametrize("name", ["/tmp/x/ABS", "../../..", "a/../../b", "ok\n"])
def test_a_name_from_a_manifest_never_becomes_a_path(
    project: Store, tmp_path: Path, monkeypatch, name: str
) -> None:
    """#19 item 1: a manifest naming a path, resealed, is refused by the rule a name typed on
    the command line follows, before anything is written or imported."""
    folder = tmp_path / "exports" / "orders" / "v1"
    reseal(folder, manifest_edit=lambda m: m.update(name=name), sign="remove")
    monkeypatch.setenv("LABELER_DB", str(tmp_path / "fresh.db"))  # no record to witness
    before = sorted(p for p in tmp_path.rglob("*") if "fresh.db" not in p.name)
    for args in (
        ["convert", str(folder), "--to", "all"],
        ["import", "testset", str(folder)],
        ["versions", "verify", str(folder)],
        ["eval", "--testset", str(folder), "--run", "run.trec"],
    ):
        result = cli(*args)
        assert result.exit_code == 2, (args, result.output)
        rule = "a test-set name is 1 to 100 letters, digits, '.', '_' or '-' (not first)"
        assert f"{rule}, got {name!r}" in result.output
        if args[0] != "versions":  # which lists the version as UNREADABLE, saying why
            assert f'{folder / "manifest.json"}: field "name": ' in result.output
    assert sorted(p for p in tmp_path.rglob("*") if "fresh.db" not in p.name) == before
    assert not Path("/tmp/x/ABS-v1-formats").exists()
    with Store(tmp_path / "fresh.db") as fresh:
        assert fresh.scalar("SELECT count(*) FROM labels") == 0
