"""Where the database lives: ``--db PATH``, else ``$LABELER_DB``, else ``labeler.db`` here."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DB = "labeler.db"
ENV_DB = "LABELER_DB"
DEFAULT_CHUNKING = "default"


def resolve_db_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(ENV_DB)
    if from_env:
        return Path(from_env)
    return Path.cwd() / DEFAULT_DB


__all__ = ["DEFAULT_CHUNKING", "DEFAULT_DB", "ENV_DB", "resolve_db_path"]
