"""Writing a version folder: once, whole or not at all, read-only, and signed.

A version is written into a temporary folder next to the versions, then renamed into place, so
an interrupted export leaves no version behind and an existing version is never touched. The
database records the version in the same moment (``store.versions``), so a folder edited and
resealed later is told apart from what was exported; and the project's key signs it
(``labeler.versions.signing``), so a copy anywhere is told apart too.

Versions exported before versions were signed are signed once, on the first open of the
database by the app or the CLI after migration 0009 (``resign_recorded``): only those whose
files still match their hash and the hash this database recorded.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from labeler.errors import LabelerError
from labeler.store import Store
from labeler.versions.checking import inspect
from labeler.versions.format import (
    COMPLETENESS,
    CONTENT_FILES,
    MANIFEST,
    SIGNATURE,
    manifest_bytes,
    sha256_hex,
)
from labeler.versions.reading import read_manifest
from labeler.versions.signing import (
    check_signature,
    project_key,
    project_trust,
    signature_bytes,
    signature_record,
    write_signature,
)

READ_ONLY = 0o444


def _publish(temporary: Path, target: Path) -> None:
    """The commit point: before it there is no version, after it the whole version."""
    os.rename(temporary, target)


def _write_file(path: Path, data: bytes) -> None:
    with path.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    path.chmod(READ_ONLY)


# A temporary folder is ours when its name is one we give, it holds only the files we write,
# and it holds our lock file; it is abandoned when that lock can be taken: the process holding
# it is gone (the system releases a lock when its holder dies, even by kill -9).
LOCK = ".export.lock"
TEMPORARY = re.compile(r"\.v[1-9][0-9]*-[a-z0-9_]+\.tmp")
_OURS = frozenset({LOCK, MANIFEST, SIGNATURE, COMPLETENESS, *CONTENT_FILES})


def _lock(path: Path, *, wait: bool) -> int | None:
    """An open, locked descriptor of ``path`` (None: no locking here, or it is held)."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): nothing can be proven abandoned
        return None
    try:
        handle = os.open(path, os.O_RDWR | (os.O_CREAT if wait else 0), 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        os.close(handle)
        return None
    return handle


def clear_abandoned(folder: Path) -> list[Path]:
    """Remove the temporary folders of exports that died before publishing (see ``LOCK``);
    returns those removed. Anything else is left alone."""
    removed = []
    for child in sorted(folder.iterdir()) if folder.is_dir() else ():
        if not TEMPORARY.fullmatch(child.name) or child.is_symlink() or not child.is_dir():
            continue
        entries = list(child.iterdir())
        if LOCK not in {e.name for e in entries} or any(
            e.name not in _OURS or e.is_symlink() or not e.is_file() for e in entries
        ):
            continue
        handle = _lock(child / LOCK, wait=False)
        if handle is None:
            continue
        try:
            shutil.rmtree(child)
            removed.append(child)
        finally:
            os.close(handle)
    return removed


def write_version(
    store: Store,
    folder: Path,
    number: int,
    files: Mapping[str, bytes],
    manifest: dict,
    *,
    record: Mapping[str, object],
) -> Path:
    """Write version ``number`` of the test set whose versions live in ``folder``, as
    ``folder/v<number>`` holding ``files``, ``manifest`` and the project's signature of them:
    all of it, or (on any failure) nothing; the database records it (``record``: the fields of
    ``store.versions.record``) in the same moment as the folder is renamed into place.

    Temporary folders that earlier exports left behind when they were killed are cleared
    first (``clear_abandoned``)."""
    key = project_key(store)
    signature = signature_record(key, manifest, {n: sha256_hex(d) for n, d in files.items()})
    folder.mkdir(parents=True, exist_ok=True)
    clear_abandoned(folder)
    target = folder / f"v{number}"
    temporary = Path(tempfile.mkdtemp(prefix=f".v{number}-", suffix=".tmp", dir=folder))
    lock = _lock(temporary / LOCK, wait=True)
    try:
        for file_name, data in files.items():
            _write_file(temporary / file_name, data)
        _write_file(temporary / MANIFEST, manifest_bytes(manifest))
        _write_file(temporary / SIGNATURE, signature_bytes(signature))
        temporary.chmod(0o755)
        # The database's write lock serialises exports sharing it, so the check and the rename
        # below cannot interleave with another export of the same name.
        with store.write():
            if target.exists():
                msg = f"v{number} was created meanwhile by another export; run it again"
                raise LabelerError(msg, path=target)
            store.versions.record(
                version=number,
                path=str(target.resolve()),
                signature=key.public.fingerprint,
                **record,
            )
            (temporary / LOCK).unlink(missing_ok=True)  # a version holds its files only
            _publish(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    finally:
        if lock is not None:
            os.close(lock)
    return target


def _resign(store: Store, row: dict) -> str | None:
    """Sign one recorded version exported before versions were signed; returns what the
    record should say (the key's fingerprint, or ``unsigned: <why>``), or None to try again
    on a later open (its folder is not there now)."""
    folder = Path(row["path"])
    if not folder.is_dir():
        return None
    try:
        manifest = read_manifest(folder)
    except LabelerError as error:
        return f"unsigned: {error.message}"
    if (manifest["name"], manifest["version"]) != (row["name"], row["version"]):
        return "unsigned: the folder holds another version now"
    if manifest["content_hash"] != row["content_hash"]:
        return "unsigned: its manifest's hash is not the one this database recorded"
    findings, files = inspect(folder, manifest)
    if findings.changed or findings.extra:
        return "unsigned: " + findings.describe()
    trust = project_trust(store, required=True)
    digests = {n: sha256_hex(d) for n, d in files.items()}
    if findings.signature.state != "unsigned":  # signed already: keep it if it is ours
        check = check_signature(folder, manifest, digests, trust, required=True)
        if check.problems or check.differs:
            return "unsigned: " + "; ".join([*check.problems, *check.differs])
        return check.key
    key = project_key(store)
    try:
        write_signature(folder, signature_record(key, manifest, digests))
    except OSError as error:
        return f"unsigned: cannot write {SIGNATURE} ({error.strerror})"
    return key.public.fingerprint


def resign_recorded(store: Store) -> list[tuple[str, int, str]]:
    """Sign, once, the versions this database exported before versions were signed, where
    their files still match their hash and the hash recorded (a tampered one stays unsigned,
    and the record says why). Returns (name, version, outcome) of each one settled now."""
    settled = []
    for row in store.versions.unsigned():
        outcome = _resign(store, row)
        if outcome is not None:
            store.versions.set_signature(row["name"], row["version"], outcome)
            settled.append((row["name"], row["version"], outcome))
    return settled


__all__ = [
    "LOCK",
    "READ_ONLY",
    "TEMPORARY",
    "clear_abandoned",
    "resign_recorded",
    "write_version",
]
