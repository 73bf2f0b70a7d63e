"""Where things live, decided once for the CLI and the app.

- The database: ``--db PATH``, else ``$LABELER_DB``, else ``labeler.db`` in the current folder.
- Test-set versions: ``--out DIR``, else ``$LABELER_EXPORTS``, else ``exports/`` next to the
  database. So ``labeler export`` and the app's Export page write to the same folder for the
  same database, wherever each was started from.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DB = "labeler.db"
ENV_DB = "LABELER_DB"
ENV_EXPORTS = "LABELER_EXPORTS"
EXPORTS_FOLDER = "exports"
DEFAULT_CHUNKING = "default"


def resolve_db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(ENV_DB)
    if from_env:
        return Path(from_env)
    return Path.cwd() / DEFAULT_DB


def exports_dir(
    db_path: str | os.PathLike[str] | None, explicit: str | os.PathLike[str] | None = None
) -> Path:
    """The folder holding the test sets (one sub-folder per name) of the database."""
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(ENV_EXPORTS)
    if from_env:
        return Path(from_env)
    return resolve_db_path(db_path).resolve().parent / EXPORTS_FOLDER


__all__ = [
    "DEFAULT_CHUNKING",
    "DEFAULT_DB",
    "ENV_DB",
    "ENV_EXPORTS",
    "EXPORTS_FOLDER",
    "exports_dir",
    "resolve_db_path",
]
