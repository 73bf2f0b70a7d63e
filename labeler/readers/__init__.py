"""Reading the files users bring: one grammar per format, one set of field converters.

Everything that reads a file (the importers, the metric engine, the version reader, the review,
remap and judge tools) reads it through here, so a file means the same to every command:

- ``files``: UTF-8 lines, the byte-order mark, line numbers, and which extension is which format;
- ``jsonfiles``: strict JSON and JSON lines (no duplicate keys, no NaN), with line numbers;
- ``tables``: CSV and TSV with a header, Parquet, JSON lists of records (``iter_records``);
- ``trec``: the TREC column grammar (comments, whitespace, column counts);
- ``qrels`` and ``runs``: qrels and run files in TREC, JSON lines or JSON, as rows;
- ``fields``: the converters (ids, text, integers, grades, ranks, scores, flags, tags, lists).

Each reader yields ``(line, record)`` (or a row naming its line) one at a time and raises a
LabelerError naming the file, the line and the field. See docs/formats.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from labeler.lazy import lazy_exports
from labeler.readers.files import Progress, check_file, lines


def iter_columns(
    path: str | Path, progress: Progress | None = None
) -> Iterator[tuple[int, list[str]]]:
    """Whitespace-separated columns of any line-based file, blank lines and ``#`` comments
    skipped. For qrels and runs use ``iter_qrels`` and ``iter_run``, which check the columns."""
    path = check_file(path)
    for number, text in lines(path, progress):
        if not text.lstrip().startswith("#"):
            yield number, text.split()


# Each reader loads on first use: the metric engine's fast path needs two small modules only.
__getattr__, __all__ = lazy_exports(
    __name__,
    {
        "fields": (
            "as_bool",
            "as_grade",
            "as_id",
            "as_ids",
            "as_int",
            "as_name",
            "as_object",
            "as_rank",
            "as_score",
            "as_tags",
            "as_text",
            "as_texts",
            "bad_id_character",
            "describe",
            "first_of",
            "parse_literal",
            "present",
            "require",
            "text_field",
        ),
        "files": (
            "BOM",
            "CSV",
            "JSON",
            "JSONL",
            "PARQUET",
            "TSV",
            "Progress",
            "check_file",
            "empty_file",
            "file_size",
            "line_of",
            "lines",
            "text_of",
        ),
        "jsonfiles": (
            "MISSING",
            "iter_json_items",
            "iter_jsonl",
            "json_document",
            "json_file",
            "loads",
        ),
        "qrels": ("QrelsRow", "iter_beir_qrels", "iter_qrels"),
        "runs": ("RunRow", "iter_run", "lines_listing"),
        "tables": ("iter_csv", "iter_items", "iter_parquet", "iter_records", "iter_tsv"),
        "trec": ("BEIR_QRELS", "QRELS", "RUN", "Shape", "iter_fields"),
    },
)
__all__ += ["iter_columns"]
