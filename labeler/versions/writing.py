"""Writing a version folder: once, whole or not at all, and read-only.

A version is written into a temporary folder next to the versions, then renamed into place, so
an interrupted export leaves no version behind and an existing version is never touched. The
database records the version in the same moment (``store.versions``), so a folder edited and
resealed later is told apart from what was exported.
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
from labeler.versions.format import CONTENT_FILES, MANIFEST, manifest_bytes

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
_OURS = frozenset({LOCK, MANIFEST, *CONTENT_FILES})


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
    ``folder/v<number>`` holding ``files`` and ``manifest``: all of it, or (on any failure)
    nothing; the database records it (``record``: the fields of ``store.versions.record``) in
    the same moment as the folder is renamed into place.

    Temporary folders that earlier exports left behind when they were killed are cleared
    first (``clear_abandoned``)."""
    folder.mkdir(parents=True, exist_ok=True)
    clear_abandoned(folder)
    target = folder / f"v{number}"
    temporary = Path(tempfile.mkdtemp(prefix=f".v{number}-", suffix=".tmp", dir=folder))
    lock = _lock(temporary / LOCK, wait=True)
    try:
        for file_name, data in files.items():
            _write_file(temporary / file_name, data)
        _write_file(temporary / MANIFEST, manifest_bytes(manifest))
        temporary.chmod(0o755)
        # The database's write lock serialises exports sharing it, so the check and the rename
        # below cannot interleave with another export of the same name.
        with store.write():
            if target.exists():
                msg = f"v{number} was created meanwhile by another export; run it again"
                raise LabelerError(msg, path=target)
            store.versions.record(version=number, path=str(target.resolve()), **record)
            (temporary / LOCK).unlink(missing_ok=True)  # a version holds its files only
            _publish(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    finally:
        if lock is not None:
            os.close(lock)
    return target


__all__ = ["LOCK", "READ_ONLY", "TEMPORARY", "clear_abandoned", "write_version"]
