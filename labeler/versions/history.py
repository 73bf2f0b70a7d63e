"""The versions of a test set as they are on disk: listed, checked, resolved, zipped.

The folders are the truth (they are what a team checks in); their signatures say who wrote
them; the database's record of what it exported is a witness too: it catches a version whose
files and manifest were both edited, one signed by another key than the project's, and one
deleted from disk.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from labeler.errors import LabelerError, NotFoundError
from labeler.versions.checking import Findings, inspect, modified_error
from labeler.versions.format import (
    MANIFEST,
    NAME,
    SIGNATURE,
    check_name,
    version_dirs,
    version_files,
    version_folder,
    version_number,
)
from labeler.versions.reading import read_manifest
from labeler.versions.signing import NO_TRUST, Trust, given_key, project_trust

if TYPE_CHECKING:
    from labeler.store import Store

# A fixed timestamp inside zips, so the same version always zips to the same bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """One version folder and what checking it found.

    ``findings``: the check of its files, hash and signature (``labeler.versions.checking``);
    ``problem`` says why the folder could not be read at all (or that it is gone: ``missing``,
    a version this database exported there and no longer on disk); ``recorded_hash`` is what
    this database recorded when it exported the version (None if it did not), and
    ``recorded_signature`` how it signed it (a fingerprint, or why it was left unsigned), and
    ``exported_by`` who exported it (None: not recorded, as before migration 0019).
    """

    name: str
    number: int
    path: Path
    manifest: dict | None
    findings: Findings | None = None
    problem: str | None = None
    recorded_hash: str | None = None
    recorded_signature: str | None = None
    missing: bool = False
    exported_by: str | None = None

    @property
    def changed(self) -> tuple[str, ...]:
        """What differs from what was exported: files, manifest fields, extra files."""
        if self.findings is None:
            return ()
        extra = tuple(f"extra file {name}" for name in self.findings.extra)
        return self.findings.changed + extra

    @property
    def intact(self) -> bool:
        """Files, manifest and signature as exported, and the hash the one this database
        recorded."""
        return (
            self.problem is None
            and (self.findings is None or self.findings.intact)
            and not self.record_differs
        )

    @property
    def record_differs(self) -> bool:
        return (
            self.manifest is not None
            and self.recorded_hash is not None
            and self.recorded_hash != self.manifest.get("content_hash")
        )

    def status(self) -> str:
        if self.missing:
            return f"MISSING: {self.problem}"
        if self.problem is not None:
            return f"UNREADABLE: {self.problem}"
        findings = self.findings
        if findings is not None and not findings.intact:
            verdict = "FORGED" if findings.resealed else "MODIFIED"
            return f"{verdict}: {findings.describe()}"
        if self.record_differs:
            return (
                f"FORGED: this database recorded {self.recorded_hash} when it exported this"
                f" version; the manifest says {(self.manifest or {}).get('content_hash')}"
            )
        return "ok" if findings is None else f"ok ({findings.note()})"

    @property
    def signature(self) -> str | None:
        """The signature's state: verified, foreign, self-signed, unsigned or bad."""
        return None if self.findings is None else self.findings.signature.state

    def as_dict(self) -> dict:
        manifest = self.manifest or {}
        return {
            "name": self.name,
            "version": self.number,
            "path": str(self.path),
            "created": manifest.get("created"),
            "parent": manifest.get("parent"),
            "chunking": manifest.get("chunking"),
            "content_hash": manifest.get("content_hash"),
            "counts": manifest.get("counts"),
            "policy": manifest.get("policy"),
            "intact": self.intact,
            "status": self.status(),
            "modified_files": list(self.changed),
            "extra_files": list(self.findings.extra) if self.findings else [],
            "signature": self.signature,
            "signed_by": self.findings.signature.key if self.findings else None,
            "record_differs": self.record_differs,
            "missing": self.missing,
            "problem": self.problem,
            "recorded_hash": self.recorded_hash,
            "recorded_signature": self.recorded_signature,
            "exported_by": self.exported_by,
        }


def names_under(out: str | Path) -> list[str]:
    """The test sets under ``out``: folders with a valid name holding at least one version."""
    folder = Path(out)
    if not folder.is_dir():
        return []
    return sorted(
        child.name
        for child in folder.iterdir()
        if child.is_dir() and NAME.match(child.name) and version_dirs(folder, child.name)
    )


def check_version(name: str, number: int, path: Path, trust: Trust = NO_TRUST) -> VersionInfo:
    """One version folder, read and checked: files, hash and signature under ``trust`` (no
    database record).

    A version never changes, so the app caches this by the folder's file stamps.
    """
    try:
        manifest = read_manifest(path)
    except LabelerError as error:
        return VersionInfo(name, number, path, None, problem=error.message)
    findings, _ = inspect(path, manifest, trust)
    return VersionInfo(name, number, path, manifest, findings=findings)


def _records_here(record: dict | None, path: Path) -> bool:
    """Whether ``record`` is this database's record of the version in this very folder: the
    same name may be exported into another folder (a trial run in /tmp) from one database."""
    return record is not None and Path(record["path"]).resolve() == path.resolve()


def witnessed(info: VersionInfo, record: dict | None) -> VersionInfo:
    """``info`` with the hash (and signature, and who exported it) the database recorded when
    it exported that very folder."""
    if info.manifest is None or not _records_here(record, info.path):
        return info
    return replace(
        info,
        recorded_hash=record["content_hash"],
        recorded_signature=record.get("signature"),
        exported_by=record.get("exported_by"),
    )


def version_trust(store: Store | None, record: dict | None, path: Path) -> Trust:
    """The trust a version in ``path`` is checked under: the project's key when the database is
    at hand, which must have signed it if this database exported it into that very folder."""
    if store is None:
        return NO_TRUST
    return project_trust(store, required=_records_here(record, path))


def trust_for(store: Store | None, folder: str | Path, manifest: dict) -> Trust:
    """``version_trust`` of the version in ``folder`` (whose manifest is ``manifest``)."""
    if store is None:
        return NO_TRUST
    name, number = manifest.get("name"), manifest.get("version")
    record = store.versions.recorded(name).get(number) if isinstance(name, str) else None
    return version_trust(store, record, Path(folder))


def missing_versions(store: Store, out: str | Path, name: str) -> list[VersionInfo]:
    """The versions this database exported into ``out/name`` whose folders are gone."""
    here = (Path(out) / name).resolve()
    return [
        VersionInfo(
            name,
            number,
            Path(record["path"]),
            None,
            problem=f"this database exported it to {record['path']}, which no longer exists",
            recorded_hash=record["content_hash"],
            recorded_signature=record.get("signature"),
            missing=True,
        )
        for number, record in store.versions.recorded(name).items()
        if Path(record["path"]).parent.resolve() == here and not Path(record["path"]).exists()
    ]


def list_versions(
    out: str | Path, name: str, *, store: Store | None = None, trust: Trust | None = None
) -> list[VersionInfo]:
    """Every version of ``name`` under ``out``, oldest first, each checked (files, hash,
    signature: under ``trust``, else the project's key when the database is given); with the
    database, also witnessed by its records, and the versions it exported there that are gone
    from disk listed as missing."""
    recorded = store.versions.recorded(name) if store is not None else {}
    infos = [
        witnessed(
            check_version(
                name,
                number,
                path,
                trust if trust is not None else version_trust(store, recorded.get(number), path),
            ),
            recorded.get(number),
        )
        for number, path in version_dirs(out, name)
    ]
    if store is not None:
        infos += missing_versions(store, out, name)
    return sorted(infos, key=lambda info: info.number)


def intact_versions(out: str | Path, *, store: Store | None = None) -> dict[str, Path]:
    """``"name vN"`` -> folder of every version under ``out`` that passes its checks (with
    ``store``, against the project's key and its record of what it exported), test sets by
    name and their versions newest first: what a reader may choose to evaluate on."""
    return {
        f"{name} v{info.number}": info.path
        for name in names_under(out)
        for info in reversed(list_versions(out, name, store=store))
        if info.intact
    }


def database_hash(store: Store, folder: Path, manifest: dict) -> str | None:
    """The hash this database recorded when it exported the version at ``folder`` (None when
    it did not export that folder)."""
    name = manifest.get("name")
    number = manifest.get("version")
    if not isinstance(name, str) or not isinstance(number, int):
        return None
    record = store.versions.recorded(name).get(number)
    if record is None or Path(record["path"]).resolve() != folder.resolve():
        return None
    return record["content_hash"]


def check_record(store: Store, folder: str | Path, manifest: dict) -> None:
    """Raise when this database exported the version at ``folder`` under another hash than
    its manifest now carries: the files and the manifest were both rewritten."""
    folder = Path(folder)
    recorded = database_hash(store, folder, manifest)
    if recorded is not None and recorded != manifest.get("content_hash"):
        msg = (
            f"this database recorded the hash {recorded} when it exported this version, but its"
            f" manifest now says {manifest.get('content_hash')}: the version was rewritten after"
            " export; restore it from version control"
        )
        raise LabelerError(msg, path=folder)


def reading_trust(
    path: str | Path, *, store: Store | None = None, public_key: str | Path | None = None
) -> tuple[Path, Trust]:
    """The version folder a reader reads for ``path`` (a version folder, or a test set's folder:
    its latest version) and the trust to check it under: ``public_key`` (a file; only that key
    may have signed it), else the project's key when the database is at hand.

    With the database: a version it exported into that folder whose files and manifest were
    both rewritten is refused (``check_record``), and so is reading "the latest version" of a
    test set whose latest version it exported is gone from disk.
    """
    path = Path(path)
    folder = version_folder(path)
    manifest = read_manifest(folder)
    trust = given_key(public_key) if public_key is not None else trust_for(store, folder, manifest)
    # What differs from what was signed first (it names files and fields), without reading the
    # files: the reader checks their bytes as it reads them.
    findings, _ = inspect(folder, manifest, trust, names=())
    if not findings.intact:
        raise modified_error(folder, findings)
    if store is not None:
        if folder != path:
            gone = missing_versions(store, path.parent, path.name)
            later = [i for i in gone if i.number > (version_number(folder) or 0)]
            if later:
                msg = (
                    f"v{later[-1].number}, which this database exported here, is gone from disk"
                    f" (the latest left is {folder.name}); restore it from version control"
                )
                raise LabelerError(msg, path=path)
        check_record(store, folder, manifest)
    return folder, trust


def _copy_info(folder: Path, store: Store | None, trust: Trust | None) -> VersionInfo:
    """One version folder anywhere, checked under ``trust`` (else the project's key, when the
    database is given) and witnessed by the database's record of that folder."""
    number = version_number(folder) or 0
    try:
        manifest = read_manifest(folder)
    except LabelerError as error:
        return VersionInfo(folder.parent.name, number, folder, None, problem=error.message)
    name = str(manifest["name"])
    record = store.versions.recorded(name).get(manifest["version"]) if store else None
    if trust is None:
        trust = version_trust(store, record, folder)
    return witnessed(check_version(name, manifest["version"], folder, trust), record)


def verify_copies(
    path: str | Path, *, store: Store | None = None, public_key: str | Path | None = None
) -> list[VersionInfo]:
    """``labeler versions verify``: the version folder ``path``, or every version in the test
    set's folder ``path``, checked (files, extra files, hash, signature) under ``public_key``
    (a file), else the project's key when the database is given; with the database, the
    versions it exported into that folder and are gone are listed too."""
    path = Path(path)
    if not path.is_dir():
        raise LabelerError("no such folder", path=path)
    trust = given_key(public_key) if public_key is not None else None
    if (path / MANIFEST).is_file():
        return [_copy_info(path, store, trust)]
    folders = sorted(
        (number, child)
        for child in path.iterdir()
        if (number := version_number(child)) is not None and child.is_dir()
    )
    infos = [_copy_info(folder, store, trust) for _, folder in folders]
    if store is not None and NAME.fullmatch(path.name):
        infos += missing_versions(store, path.parent, path.name)
    if not infos:
        msg = "neither a version folder (manifest.json) nor a test set's folder (v1, v2, ...)"
        raise LabelerError(msg, path=path)
    return sorted(infos, key=lambda info: info.number)


def check_intact(infos: list[VersionInfo]) -> None:
    """Raise, naming every version changed after export: versions are immutable."""
    broken = [info for info in infos if not info.intact]
    if broken:
        details = "; ".join(f"v{info.number} {info.status()}" for info in broken)
        msg = (
            f"{len(broken)} version(s) of {broken[0].name!r} changed or gone after export"
            f" ({details}); restore them from version control before exporting again"
        )
        raise LabelerError(msg, path=broken[0].path.parent)


def parse_version_ref(ref: str | int) -> int | None:
    """ "v3", "3" -> 3; "latest" -> None."""
    text = str(ref).strip().lower()
    if text == "latest":
        return None
    number = text.removeprefix("v")
    if not number.isdigit() or int(number) < 1:
        msg = f"expected a version like v3, 3 or latest, got {ref!r}"
        raise LabelerError(msg, field="version")
    return int(number)


def resolve_version(out: str | Path, name: str, ref: str | int) -> Path:
    """The folder of version ``ref`` ("v3", "3" or "latest") of test set ``name``."""
    versions = dict(version_dirs(out, check_name(name)))
    if not versions:
        msg = f"no versions of {name!r} (export one with `labeler export {name}`)"
        raise NotFoundError(msg, path=Path(out) / name)
    number = parse_version_ref(ref)
    if number is None:
        return versions[max(versions)]
    if number not in versions:
        known = ", ".join(f"v{n}" for n in sorted(versions))
        msg = f"no version v{number} of {name!r} (there are: {known})"
        raise NotFoundError(msg, path=Path(out) / name)
    return versions[number]


def zip_version(folder: str | Path) -> bytes:
    """The version as a zip holding ``<name>/v<N>/...``; the same version gives the same bytes."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    prefix = f"{manifest['name']}/v{manifest['version']}/"
    names = [MANIFEST, *version_files(manifest)]
    if (folder / SIGNATURE).is_file():
        names.append(SIGNATURE)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            info = zipfile.ZipInfo(prefix + name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, (folder / name).read_bytes())
    return buffer.getvalue()


__all__ = [
    "VersionInfo",
    "check_intact",
    "check_record",
    "check_version",
    "database_hash",
    "intact_versions",
    "list_versions",
    "missing_versions",
    "names_under",
    "parse_version_ref",
    "reading_trust",
    "resolve_version",
    "trust_for",
    "verify_copies",
    "version_trust",
    "witnessed",
    "zip_version",
]
