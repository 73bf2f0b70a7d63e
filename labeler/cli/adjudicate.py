"""``labeler adjudicate``: settle the grade of a (question, chunk) for every export."""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import db_option, main, open_store


@main.command("adjudicate")
@click.argument("question")
@click.argument("chunk")
@click.argument("grade", type=click.Choice(["0", "1", "2", "clear"]))
@click.option("--reviewer", required=True, help="Who settles it (recorded in the history).")
@click.option("--note", default=None, help="Why: kept with the adjudication.")
@click.option(
    "--chunking", default=None, help="Chunking the chunk id refers to (default: current)."
)
@db_option
def adjudicate_cmd(
    question: str,
    chunk: str,
    grade: str,
    reviewer: str,
    note: str | None,
    chunking: str | None,
    db_path: Path,
) -> None:
    """Settle the grade of CHUNK for QUESTION for every export: it wins over reviewers' grades.

    GRADE is 0, 1 or 2, or "clear" to withdraw the settlement.

    \b
    Example:
        labeler adjudicate q17 orders-api-3 2 --reviewer lead --note "answers it fully"
    """
    from labeler.grading.disputes import adjudicate

    value = None if grade == "clear" else int(grade)
    with open_store(db_path) as store:
        previous = adjudicate(store, question, chunk, value, reviewer, note, chunking=chunking)
    before = "none" if previous is None else previous
    after = "none" if value is None else value
    click.echo(f"Adjudicated {question} / {chunk}: {before} -> {after}")


__all__ = ["adjudicate_cmd"]
