"""``labeler convert``: a version in other tools' formats, from the version folder only.

The format registry loads without the store, so ``labeler --help`` starts fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import db_option, main, open_store
from labeler.exporters.convert import FORMATS

CONVERT_HELP = (
    "Write VERSION (a version folder) in other tools' formats; never from the live database."
    "\n\nThe version is checked first: its content hash, and its signature (against this"
    " project's key when the database is at hand). Repeat --to for several"
    " formats, or --to all: their files share the --out folder (their names never collide)."
    "\n\n\b\nFormats:\n"
    + "\n".join(f"    {f.name:<9} {f.files} ({f.consumer})" for f in FORMATS.values())
    + "\n\n\b\nExample:\n    labeler convert exports/orders-faq/v2 --to ragas --out ragas/"
)


@main.command("convert", help=CONVERT_HELP)
@click.argument("version", type=click.Path(file_okay=False))
@click.option(
    "--to",
    "formats",
    type=click.Choice([*FORMATS, "all"]),
    multiple=True,
    required=True,
    help="Format to write (repeatable; all: every format).",
)
@click.option(
    "--out",
    default=None,
    type=click.Path(file_okay=False),
    help="Folder to write into (default: ./<name>-v<N>-<format>, or -formats for several).",
)
@click.option(
    "--min-grade",
    type=click.IntRange(1, 2),
    default=None,
    help="Grade from which a chunk is a reference context (default: the version's).",
)
@db_option
def convert_cmd(
    version: str, formats: tuple[str, ...], out: str | None, min_grade: int | None, db_path: Path
) -> None:
    from labeler.exporters.convert import convert
    from labeler.versions.history import reading_trust

    if db_path.exists():  # the database that exported the version, when at hand, is a witness
        with open_store(db_path) as store:
            folder, trust = reading_trust(version, store=store)
    else:
        folder, trust = reading_trust(version)
    for path in convert(folder, formats, out=out, min_grade=min_grade, trust=trust):
        click.echo(str(path))


__all__ = ["convert_cmd"]
