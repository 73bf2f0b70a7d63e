"""Exporters: other tools' formats (TREC, BEIR, Ragas, DeepEval, CSV), written from a version
folder, never from the live database (``labeler export`` makes versions: ``labeler.export``).

The registry of formats (``FORMATS``) is what ``labeler convert --to``, the app and the
README's table list. Names load on first use (``labeler.lazy``), so the CLI can read the
registry without loading the rest.
"""

from labeler.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(
    __name__, {"convert": ("FORMATS", "ExportFormat", "formats_table", "formats_wanted")}
)
