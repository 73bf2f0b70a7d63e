"""``labeler pool``: show each question's candidates with every source that put them there,
or compute the search and dense pools ahead (``--compute``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from labeler.cli.base import db_option, echo_json, main, open_store
from labeler.errors import LabelerError, NotFoundError


def _question_ids(store, questions: tuple[str, ...], all_questions: bool) -> list[str]:
    if all_questions and questions:
        msg = "give question ids or --all, not both"
        raise LabelerError(msg, field="--all")
    if all_questions:
        return store.questions.ids()
    if not questions:
        msg = "name the questions (labeler pool Q1 Q2 ...), or give --all"
        raise LabelerError(msg, field="QUESTION")
    unknown = [q for q in questions if store.questions.get(q) is None]
    if unknown:
        msg = f"unknown question id {unknown[0]!r}" + (
            f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
        )
        raise NotFoundError(msg, field="QUESTION")
    return list(dict.fromkeys(questions))


def _describe(sources: list[dict]) -> str:
    parts = []
    for s in sources:
        text = f"{s['kind']} {s['name']}"
        parts.append(text + (f" #{s['rank']}" if s["rank"] is not None else ""))
    return ", ".join(parts)


@main.command("pool")
@click.argument("questions", nargs=-1)
@click.option("--all", "all_questions", is_flag=True, help="Every question in the database.")
@click.option(
    "--compute",
    is_flag=True,
    help="Compute the search (and dense) pools that are missing or stale, with a progress "
    "bar; stopped halfway, a second run goes on where it stopped.",
)
@click.option("--chunking", default=None, help="Chunking of the pools (default: current).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "jsonl"]),
    default="table",
    show_default=True,
)
@db_option
def pool_cmd(
    questions: tuple[str, ...],
    all_questions: bool,
    compute: bool,
    chunking: str | None,
    fmt: str,
    db_path: Path,
) -> None:
    """Each question's candidates, with every source that put each one in its pool: a run
    (and its rank), the full-text search (its rank in the search results), the dense search
    (its model and rank, where the chunking has vectors: labeler embed), a reviewer who added
    it, the generator of the question, a reviewer who labelled it. Candidates are in the blind
    order the grading page shows.

    With --compute, fill the questions' search and dense pools ahead instead, so that
    reviewers never wait for a search.

    \b
    Example:
        labeler pool q17 --format json
        labeler pool --compute --all
    """
    from labeler.grading import candidates, worker

    with open_store(db_path) as store:
        chunking = chunking or store.corpus.current_chunking()
        ids = _question_ids(store, questions, all_questions)
        if compute:
            with click.progressbar(
                length=len(ids),
                label="pools",
                file=click.get_text_stream("stderr"),
                show_pos=True,
                show_eta=True,
            ) as bar:
                report = worker.compute_pools(store, ids, chunking, progress=bar.update)
            if fmt == "table":
                click.echo(report.summary())
            else:
                data = {
                    "computed": report.written,
                    "current": report.current,
                    "seconds": round(report.seconds, 3),
                }
                click.echo(json.dumps(data, ensure_ascii=False))
            return
        pools = candidates.inspect_pools(store, ids, chunking)
    if fmt == "json":
        echo_json(pools)
    elif fmt == "jsonl":
        for entry in pools:
            click.echo(json.dumps(entry, ensure_ascii=False))
    else:
        rows = [
            (p["question"], c["chunk"], _describe(c["sources"]))
            for p in pools
            for c in p["candidates"]
        ]
        widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(("q", "c"))]
        click.echo(f"{'question':<{max(widths[0], 8)}}  {'chunk':<{max(widths[1], 5)}}  sources")
        for question_id, chunk_id, sources in rows:
            click.echo(
                f"{question_id:<{max(widths[0], 8)}}  {chunk_id:<{max(widths[1], 5)}}  {sources}"
            )
        empty = [p["question"] for p in pools if not p["candidates"]]
        if empty:
            click.echo(f"No candidates yet: {', '.join(empty)}")
