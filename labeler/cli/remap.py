"""``labeler remap``: carry the labels of one chunking onto another."""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import db_option, echo_json, main, open_store

SHOWN_QUESTIONS = 20


@main.command("remap")
@click.option("--from", "from_chunking", required=True, help="The chunking the labels are on.")
@click.option("--to", "to_chunking", required=True, help="The chunking to carry them onto.")
@click.option(
    "--min-coverage",
    type=float,
    default=0.95,
    show_default=True,
    help="Share of an old passage a new chunk must hold for a grade 1 or 2 to carry (and of a"
    " new chunk that must be text graded 0 for a 0 to carry); 0.5 to 1.",
)
@click.option("--dry-run", is_flag=True, help="Plan and report; write nothing to the database.")
@click.option(
    "--report",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write every mapping to this CSV file (also with --dry-run), once the remap is committed.",
)
@click.option(
    "--make-current",
    is_flag=True,
    help="Then make the new chunking the one the app grades and exports by default.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@db_option
def remap_cmd(
    from_chunking: str,
    to_chunking: str,
    min_coverage: float,
    dry_run: bool,
    report: str | None,
    make_current: bool,
    fmt: str,
    db_path: Path,
) -> None:
    """Carry labels from one chunking to another after a re-chunking.

    Each label's passage is looked for in the new chunking: the same text, else the document
    offsets (document unchanged), else fuzzy alignment. A grade 1 or 2 carries to a new chunk
    that holds the whole passage; a 0 only to a chunk made of text graded 0. Splits, partial
    overlaps, edited text and labels of different grades meeting in one chunk go to the review
    queue (Label > Remap queue in the app); passages found nowhere are reported lost. Old labels
    are never changed, so the remap can be redone; the same remap twice changes nothing.

    \b
    Example:
        labeler import chunks new.jsonl --chunking v2
        labeler remap --from v1 --to v2 --report mapping.csv
    """
    from labeler.remap import apply_remap, plan_remap

    with open_store(db_path) as store:
        plan = plan_remap(store, from_chunking, to_chunking, min_coverage=min_coverage)
        result = apply_remap(store, plan, dry_run=dry_run, report=report)
        if make_current and not dry_run:
            store.corpus.set_current_chunking(to_chunking)
        current = store.corpus.current_chunking()
    if fmt == "json":
        echo_json(result.as_json())
        return
    _table(result, report, current)


def _table(result, report: str | None, current: str) -> None:
    plan = result.plan
    counts = plan.counts()
    methods = ", ".join(f"{name} {n}" for name, n in counts["by_method"].items())
    click.echo(
        f"Remap {plan.from_chunking} -> {plan.to_chunking} (min coverage {plan.min_coverage:g}):"
        f" {counts['labels']} labels, {len(plan.label_mappings())} mappings"
    )
    click.echo(f"  applied  {counts['applied']:>6}  ({methods})")
    queued = f"  queued   {counts['queued']:>6}"
    if counts["queued"]:
        queued += "  review them in the app: labeler serve, then Label > Remap queue"
        if result.reviewed:
            queued += f" ({result.reviewed} already decided there)"
    click.echo(queued)
    click.echo(f"  lost     {counts['lost']:>6}")
    adjudications = counts["adjudications"]
    if adjudications["total"]:
        click.echo(
            f"  adjudications: {adjudications['applied']} carried,"
            f" {adjudications['not_carried']} not carried (adjudicate them again after review)"
        )
    verb = "Would write" if result.dry_run else "Written"
    parts = [f"{result.labels_added} labels added to {plan.to_chunking!r} (history: remap)"]
    if result.labels_present:
        parts.append(f"{result.labels_present} already there")
    if result.labels_kept:
        parts.append(
            f"{result.labels_kept} left as they are (the reviewer graded that chunk"
            f" differently in {plan.to_chunking!r})"
        )
    if result.labels_regraded:
        parts.append(f"{result.labels_regraded} regraded after their old label")
    if result.labels_withdrawn:
        parts.append(f"{result.labels_withdrawn} carried earlier and no longer, withdrawn")
    if result.adjudications_added or result.adjudications_withdrawn:
        parts.append(
            f"{result.adjudications_added} adjudications added,"
            f" {result.adjudications_withdrawn} withdrawn"
        )
    parts.append(f"{result.marks_carried} unanswerable marks carried")
    click.echo(f"{verb}: " + "; ".join(parts) + ".")
    if result.dry_run:
        click.echo("Dry run: nothing was written to the database.")
    rows = plan.per_question()
    shown = sorted(rows, key=lambda r: (-(r["queued"] + r["lost"]), r["question"]))
    shown = shown[:SHOWN_QUESTIONS]
    if shown:
        click.echo("")
        click.echo(f"{'question':<24} {'labels':>7} {'applied':>8} {'queued':>7} {'lost':>5}")
        for row in shown:
            click.echo(
                f"{row['question']:<24} {row['labels']:>7} {row['applied']:>8}"
                f" {row['queued']:>7} {row['lost']:>5}"
            )
        if len(rows) > len(shown):
            more = f"... and {len(rows) - len(shown)} more questions"
            click.echo(more + ("" if report else " (--report FILE lists every mapping)"))
    if report:
        click.echo(f"Every mapping: {report}")
    if result.dry_run:
        return
    if current == plan.to_chunking:
        click.echo(f"The app now grades {plan.to_chunking!r}; export: labeler export NAME")
    else:
        click.echo(
            f"Next: export on the new chunking, e.g. labeler export NAME --chunking"
            f" {plan.to_chunking} (or remap again with --make-current to grade it in the app)"
        )
