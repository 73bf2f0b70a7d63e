"""The versions of a test set as they are on disk: listed, checked, resolved, zipped.

The folders are the truth (they are what a team checks in); the database's record of what it
exported is a second witness, which catches a version whose files and manifest were both edited.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from labeler.errors import LabelerError, NotFoundError
from labeler.versions.format import CONTENT_FILES, MANIFEST, NAME, check_name, version_dirs
from labeler.versions.reading import changed_files, read_manifest

if TYPE_CHECKING:
    from labeler.store import Store

# A fixed timestamp inside zips, so the same version always zips to the same bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class VersionInfo:
    """One version folder and what checking it found.

    ``changed`` names the files that no longer match the manifest's hash; ``problem`` says why
    the folder could not be read at all; ``recorded_hash`` is what this database recorded when
    it exported the version (None if it did not).
    """

    name: str
    number: int
    path: Path
    manifest: dict | None
    changed: tuple[str, ...] = ()
    problem: str | None = None
    recorded_hash: str | None = None

    @property
    def intact(self) -> bool:
        """Files as the manifest's hash says, and the hash the one this database recorded."""
        return self.problem is None and not self.changed and not self.record_differs

    @property
    def record_differs(self) -> bool:
        return (
            self.manifest is not None
            and self.recorded_hash is not None
            and self.recorded_hash != self.manifest.get("content_hash")
        )

    def status(self) -> str:
        if self.problem is not None:
            return f"UNREADABLE: {self.problem}"
        if self.changed:
            return "MODIFIED: " + ", ".join(self.changed)
        if self.record_differs:
            return (
                f"FORGED: this database recorded {self.recorded_hash} when it exported this"
                f" version; the manifest says {(self.manifest or {}).get('content_hash')}"
            )
        return "ok"

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
            "modified_files": list(self.changed),
            "record_differs": self.record_differs,
            "problem": self.problem,
            "recorded_hash": self.recorded_hash,
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


def check_version(name: str, number: int, path: Path) -> VersionInfo:
    """One version folder, read and checked against its manifest's hash (no database record).

    A version never changes, so the app caches this by the folder's file stamps.
    """
    try:
        manifest = read_manifest(path)
    except LabelerError as error:
        return VersionInfo(name, number, path, None, problem=error.message)
    return VersionInfo(name, number, path, manifest, changed=tuple(changed_files(path, manifest)))


def witnessed(info: VersionInfo, record: dict | None) -> VersionInfo:
    """``info`` with the hash the database recorded when it exported that very folder.

    Only a record of this very folder is a witness: the same name may be exported into another
    folder (a trial run in /tmp) from the same database.
    """
    if info.manifest is None or record is None:
        return info
    if Path(record["path"]).resolve() != info.path.resolve():
        return info
    return replace(info, recorded_hash=record["content_hash"])


def list_versions(out: str | Path, name: str, *, store: Store | None = None) -> list[VersionInfo]:
    """Every version of ``name`` under ``out``, oldest first, each checked against its hash."""
    recorded = store.versions.recorded(name) if store is not None else {}
    return [
        witnessed(check_version(name, number, path), recorded.get(number))
        for number, path in version_dirs(out, name)
    ]


def intact_versions(out: str | Path) -> dict[str, Path]:
    """``"name vN"`` -> folder of every version under ``out`` whose files match its hash, test
    sets by name and their versions newest first: what a reader may choose to evaluate on."""
    return {
        f"{name} v{info.number}": info.path
        for name in names_under(out)
        for info in reversed(list_versions(out, name))
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


def check_intact(infos: list[VersionInfo]) -> None:
    """Raise, naming every version changed after export: versions are immutable."""
    broken = [info for info in infos if not info.intact]
    if broken:
        details = "; ".join(f"v{info.number} {info.status()}" for info in broken)
        msg = (
            f"{len(broken)} version(s) of {broken[0].name!r} changed after export ({details});"
            " restore them from version control before exporting again"
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
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in (MANIFEST, *CONTENT_FILES):
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
    "names_under",
    "parse_version_ref",
    "resolve_version",
    "witnessed",
    "zip_version",
]
