"""Importers: one module per kind of file, and the registry of them (``registry``).

The registry is what the CLI's ``import`` group, the app's Data page and the README list, so a
new kind is added in one place. Importer functions are loaded on first use, so reading the
registry (``labeler --help``) does not load the store or rapidfuzz.
"""

from __future__ import annotations

import importlib
from typing import Any

from labeler.importers.registry import (
    IMPORT_KINDS,
    ImportKind,
    ImportOption,
    ImportOutcome,
    formats_table_markdown,
    get_kind,
    run_import,
)

_HOMES = {
    "import_beir": "beir",
    "import_chunks": "corpus",
    "import_documents": "corpus",
    "import_deepeval": "deepeval",
    "import_qrels": "qrels",
    "parse_grade_map": "qrels",
    "import_questions": "questions",
    "import_ragas": "ragas",
    "import_run": "runs",
    "import_testset": "testset",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        msg = f"module 'labeler.importers' has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(f"labeler.importers.{home}"), name)


__all__ = [
    "IMPORT_KINDS",
    "ImportKind",
    "ImportOption",
    "ImportOutcome",
    "formats_table_markdown",
    "get_kind",
    "run_import",
    *sorted(_HOMES),
]
