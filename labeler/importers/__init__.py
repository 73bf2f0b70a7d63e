"""Importers: one module per kind of file, and the registry of them (``registry``).

The registry is what the CLI's ``import`` group, the app's Data page and the README list, so a
new kind is added in one place. Importer functions are loaded on first use, so reading the
registry (``labeler --help``) does not load the store or rapidfuzz.
"""

from __future__ import annotations

from labeler.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "beir": ("import_beir",),
        "corpus": ("import_chunks", "import_documents"),
        "deepeval": ("import_deepeval",),
        "mtrag": ("import_mtrag",),
        "qrels": ("import_qrels", "parse_grade_map"),
        "questions": ("import_questions",),
        "ragas": ("import_ragas",),
        "runs": ("import_run",),
        "testset": ("import_testset",),
        "registry": (
            "IMPORT_KINDS",
            "ImportKind",
            "ImportOption",
            "ImportOutcome",
            "formats_table_markdown",
            "get_kind",
            "run_import",
        ),
    },
)
