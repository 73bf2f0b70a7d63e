"""Commands that fill and inspect the database: init, import, status, search."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import click

from labeler.cli.base import db_option, echo_json, main, open_store

PROGRESS_FROM_BYTES = 8 * 1024 * 1024


@contextlib.contextmanager
def file_progress(path: str, label: str) -> Iterator:
    """A progress bar on stderr for files big enough to wait for; a no-op for small ones."""
    size = Path(path).stat().st_size if Path(path).is_file() else 0
    if size < PROGRESS_FROM_BYTES:
        yield None
        return
    with click.progressbar(length=size, label=label, file=click.get_text_stream("stderr")) as bar:
        yield bar.update


def _report(report) -> None:
    click.echo(report.summary())


@main.command()
@db_option
def init(db_path: Path) -> None:
    """Create the database (or bring an old one up to date).

    \b
    Example:
        labeler --help && labeler init --db project.db
    """
    with open_store(db_path) as store:
        click.echo(f"Database ready: {store.path} (current chunking {store.current_chunking()!r})")


@main.group("import")
def import_group() -> None:
    """Import chunks, documents, questions, runs, qrels or a BEIR folder.

    Every import runs in one transaction (a bad line writes nothing), can be repeated safely
    (the same file twice changes nothing), and reports what it added, updated and skipped.

    \b
    Example:
        labeler import chunks corpus.jsonl --chunking v1
    """


@import_group.command("chunks")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--chunking", default="default", show_default=True, help="Name of the chunking.")
@click.option(
    "--replace-text",
    is_flag=True,
    help="Replace the text of chunks that carry labels; their labels become stale until a"
    " reviewer confirms or changes them.",
)
@db_option
def import_chunks_cmd(file: str, chunking: str, replace_text: bool, db_path: Path) -> None:
    """Chunks (JSONL, CSV, Parquet): id, text; optional doc_id, title, start, end, metadata.

    \b
    Example:
        labeler import chunks chunks.jsonl --chunking 512-overlap-64
    """
    from labeler.importers import import_chunks

    with open_store(db_path) as store, file_progress(file, "chunks") as progress:
        report = import_chunks(
            store, file, chunking=chunking, progress=progress, replace_text=replace_text
        )
        _report(report)


@import_group.command("documents")
@click.argument("file", type=click.Path(dir_okay=False))
@db_option
def import_documents_cmd(file: str, db_path: Path) -> None:
    """Documents (JSONL): id, text, optional title; shown around a chunk while grading.

    \b
    Example:
        labeler import documents documents.jsonl
    """
    from labeler.importers import import_documents

    with open_store(db_path) as store, file_progress(file, "documents") as progress:
        _report(import_documents(store, file, progress=progress))


@import_group.command("questions")
@click.argument("file", type=click.Path(dir_okay=False))
@db_option
def import_questions_cmd(file: str, db_path: Path) -> None:
    """Questions (JSONL, CSV): id and question (or text, query, user_input, input);
    optional reference answer (reference_answer, reference, expected_output, ground_truth)
    and tags.

    \b
    Example:
        labeler import questions questions.csv
    """
    from labeler.importers import import_questions

    with open_store(db_path) as store, file_progress(file, "questions") as progress:
        _report(import_questions(store, file, progress=progress))


@import_group.command("run")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--name", default=None, help="Run name (default: the TREC tag, else the file name).")
@click.option("--chunking", default=None, help="Chunking the ids refer to (default: current).")
@click.option(
    "--pool-depth",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many of each question's top results join its candidates.",
)
@db_option
def import_run_cmd(
    file: str, name: str | None, chunking: str | None, pool_depth: int, db_path: Path
) -> None:
    """A retrieval run: TREC (qid Q0 docid rank score tag) or JSONL (question_id, chunk_id,
    rank or score). Importing a run again under its name replaces it.

    \b
    Example:
        labeler import run bm25.trec --pool-depth 20
    """
    from labeler.importers import import_run

    with open_store(db_path) as store, file_progress(file, "run") as progress:
        report = import_run(
            store, file, name=name, chunking=chunking, pool_depth=pool_depth, progress=progress
        )
        _report(report)


@import_group.command("qrels")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--reviewer", default="imported", show_default=True, help="Whose labels these are.")
@click.option(
    "--grade-map",
    default=None,
    help="Map another scale onto 0/1/2, e.g. 4:2,3:2,2:1,1:1,0:0,-1:skip",
)
@click.option("--chunking", default=None, help="Chunking the ids refer to (default: current).")
@db_option
def import_qrels_cmd(
    file: str, reviewer: str, grade_map: str | None, chunking: str | None, db_path: Path
) -> None:
    """TREC qrels (qid 0 docid grade) as the labels of one reviewer, with full history.

    \b
    Example:
        labeler import qrels judged.qrels --reviewer trec-assessors --grade-map 4:2,3:2,2:1,1:1,0:0
    """
    from labeler.importers import import_qrels, parse_grade_map

    mapping = parse_grade_map(grade_map)
    with open_store(db_path) as store, file_progress(file, "qrels") as progress:
        report = import_qrels(
            store, file, reviewer=reviewer, grade_map=mapping, chunking=chunking, progress=progress
        )
        _report(report)


@import_group.command("beir")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv to load.")
@click.option("--chunking", default="default", show_default=True, help="Name of the chunking.")
@click.option("--reviewer", default="imported", show_default=True, help="Whose labels these are.")
@click.option("--grade-map", default=None, help="Map the dataset's scale onto 0/1/2.")
@db_option
def import_beir_cmd(
    folder: str, split: str, chunking: str, reviewer: str, grade_map: str | None, db_path: Path
) -> None:
    """A BEIR folder: corpus.jsonl as chunks, queries.jsonl as questions, qrels as labels.

    \b
    Example:
        labeler import beir scifact/ --split test
    """
    from labeler.importers import import_beir, parse_grade_map

    mapping = parse_grade_map(grade_map)
    corpus = str(Path(folder) / "corpus.jsonl")
    with open_store(db_path) as store, file_progress(corpus, "corpus") as progress:
        for report in import_beir(
            store,
            folder,
            split=split,
            chunking=chunking,
            reviewer=reviewer,
            grade_map=mapping,
            progress=progress,
        ):
            _report(report)


@main.command()
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
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
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@db_option
def search(query: str, limit: int, chunking: str | None, fmt: str, db_path: Path) -> None:
    """Full-text search (BM25) over the chunks: every word must match, else any.

    \b
    Example:
        labeler search "retry after 429"
    """
    with open_store(db_path) as store:
        chunking = chunking or store.current_chunking()
        hits = store.search_chunks(chunking, query, limit=limit)
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
