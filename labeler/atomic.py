"""Writing a file a user asked for (a report, a key), whole or not at all, with the ordinary
permissions of a new file.

The bytes go to a temporary file beside the target, created with mode 0666 less the umask
(as ``open()`` would create the target itself: 0644 under the usual umask 022; a temporary
file from ``tempfile.mkstemp`` would be 0600, unreadable to the rest of a team), then renamed
over it: a reader, or a process killed half-way, never leaves a half-written file.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from labeler.errors import LabelerError


def check_target(path: str | Path) -> Path:
    """Refuse, before any work is done, a target that cannot be written: a folder, or a file
    in a folder that does not exist."""
    path = Path(path)
    if path.is_dir():
        raise LabelerError("is a folder", path=path)
    folder = path.parent if str(path.parent) else Path()
    if not folder.is_dir():
        raise LabelerError("the folder does not exist", path=path)
    return path


def write_atomically(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` (see the module docstring)."""
    path = check_target(path)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise LabelerError(f"cannot write it: {error.strerror}", path=path) from None
    return path


__all__ = ["check_target", "write_atomically"]
