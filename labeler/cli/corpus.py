"""Commands that create and inspect the database: init, status, search.

(The imports are ``labeler.cli.imports``; ``import_group`` is re-exported here for commands
that add themselves to it.)
"""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import db_option, echo_json, format_option, main, open_store
from labeler.cli.imports import import_group


@main.command()
@db_option
def init(db_path: Path) -> None:
    """Create the database (or bring an old one up to date).

    \b
    Example:
        labeler --help && labeler init --db project.db
    """
    from labeler.versions.signing import project_key

    with open_store(db_path) as store:
        click.echo(
            f"Database ready: {store.path} (current chunking {store.corpus.current_chunking()!r})"
        )
        click.echo(
            f"Versions are signed with its key {project_key(store).public.fingerprint}"
            " (`labeler key show` prints the public key)"
        )


@main.command()
@format_option
@db_option
def status(fmt: str, db_path: Path) -> None:
    """What the database holds: chunks per chunking, questions, runs, labels, progress.

    \b
    Example:
        labeler status --format json
    """
    with open_store(db_path) as store:
        data = store.status()
    if fmt == "json":
        echo_json(data)
        return
    click.echo(f"Database: {data['database']}")
    click.echo(f"Current chunking: {data['current_chunking']}")
    click.echo("Chunks:")
    for name, count in data["chunkings"].items() or [("(none)", 0)]:
        click.echo(f"  {name}: {count}")
    click.echo(f"Documents: {data['documents']}")
    by_status = ", ".join(f"{k} {v}" for k, v in sorted(data["questions_by_status"].items()))
    click.echo(f"Questions: {data['questions']}" + (f" ({by_status})" if by_status else ""))
    click.echo("Runs:")
    for name, run in data["runs"].items() or [("(none)", None)]:
        click.echo(
            f"  {name}"
            + (f": {run['results']} results, {run['questions']} questions" if run else "")
        )
    labels = data["labels"]
    click.echo(
        "Labels per grade: "
        + (", ".join(f"{g}: {n}" for g, n in labels["by_grade"].items()) or "none")
    )
    click.echo(
        "Labels per reviewer: "
        + (", ".join(f"{r}: {n}" for r, n in labels["by_reviewer"].items()) or "none")
    )
    click.echo(f"Questions marked unanswerable: {labels['unanswerable_questions']}")
    click.echo(f"Questions fully graded: {data['fully_graded']} of {data['questions_accepted']}")


@main.command()
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--chunking", default=None, help="Chunking to search (default: current).")
@click.option(
    "--dense",
    "how",
    flag_value="dense",
    help="Search by meaning: the chunks nearest to the query by the embedding model (needs "
    "labeler embed).",
)
@click.option(
    "--hybrid",
    "how",
    flag_value="hybrid",
    help="Both: reciprocal rank fusion of BM25 and dense search, each to 50, with k = 60 "
    "(docs/dense.md).",
)
@format_option
@db_option
def search(
    query: str, limit: int, chunking: str | None, how: str | None, fmt: str, db_path: Path
) -> None:
    """Search the chunks: full-text (BM25; every word must match, else any), or by meaning
    (--dense), or both fused (--hybrid).

    \b
    Example:
        labeler search "retry after 429"
        labeler search --hybrid "what happens when I send too many requests"
    """
    from labeler.dense.project import search_corpus

    with open_store(db_path) as store:
        chunking = chunking or store.corpus.current_chunking()
        hits = search_corpus(store, chunking, query, how=how or "words", limit=limit)
    if fmt == "json":
        echo_json(
            [{"id": c.id, "title": c.title, "doc_id": c.doc_id, "text": c.text} for c in hits]
        )
        return
    if not hits:
        click.echo("No matches.")
    for rank, chunk in enumerate(hits, start=1):
        click.echo(f"{rank:>3}. {chunk.id}" + (f"  ({chunk.title})" if chunk.title else ""))
        text = " ".join(chunk.text.split())
        click.echo(f"     {text[:200]}{'…' if len(text) > 200 else ''}")


__all__ = ["import_group", "init", "search", "status"]
