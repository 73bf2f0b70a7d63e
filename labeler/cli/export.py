"""``labeler export``: the labels as the next version of a test set."""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import (
    acting_name,
    db_option,
    echo,
    echo_json,
    format_option,
    main,
    open_store,
    shown_path,
)
from labeler.config import exports_dir
from labeler.grading.completeness import PARTIAL_CHOICES
from labeler.grading.consensus import POLICIES
from labeler.grading.policy import STOP

SHOWN_DISAGREEMENTS = 50
SHOWN_QUESTIONS = 20

out_option = click.option(
    "--out",
    default=None,
    type=click.Path(file_okay=False),
    help="Folder holding the test sets, one sub-folder per name (default: $LABELER_EXPORTS,"
    " else exports/ next to the database).",
)


def _grades(counts: dict) -> str:
    per = counts.get("labels_per_grade", {})
    return ", ".join(f"{g}: {per.get(g, 0)}" for g in ("0", "1", "2"))


@main.command("export")
@click.argument("name")
@out_option
@click.option("--chunking", default=None, help="Chunking the labels refer to (default: current).")
@click.option(
    "--tag", "tags", multiple=True, help="Only questions with this tag (repeat: any of them)."
)
@click.option(
    "--min-reviewers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Only questions judged by at least this many reviewers.",
)
@click.option(
    "--include-pending",
    is_flag=True,
    help="Also generated questions still awaiting review (rejected ones never).",
)
@click.option(
    "--min-grade",
    type=click.IntRange(1, 2),
    default=1,
    show_default=True,
    help="Grade from which a chunk counts as relevant; recorded for consumers.",
)
@click.option(
    "--policy",
    type=click.Choice([*POLICIES, STOP]),
    default=None,
    help="How to settle reviewers' disagreements (default: the project's, `labeler policy`);"
    " stop: list them and write nothing.",
)
@click.option(
    "--require-depth",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Require each question's candidates down to rank K of the runs (--run) to be graded;"
    " the others are left out and named (or see --partial).",
)
@click.option(
    "--run",
    "runs",
    multiple=True,
    help="A run whose depth --require-depth requires (repeat; default: every run on the chunking).",
)
@click.option(
    "--partial",
    type=click.Choice(PARTIAL_CHOICES),
    default=None,
    help="Questions graded less than required (every candidate graded, or --require-depth):"
    " include them with a warning (the default), leave-out (the default with --require-depth),"
    " or error: refuse the export, naming them.",
)
@click.option("--dry-run", is_flag=True, help="Show what would be written; write nothing.")
@format_option
@db_option
def export_cmd(
    name: str,
    out: str | None,
    chunking: str | None,
    tags: tuple[str, ...],
    min_reviewers: int,
    include_pending: bool,
    min_grade: int,
    policy: str | None,
    require_depth: int | None,
    runs: tuple[str, ...],
    partial: str | None,
    dry_run: bool,
    fmt: str,
    db_path: Path,
) -> None:
    """Write the labels as the next version of test set NAME: OUT/NAME/vN.

    OUT is --out, else $LABELER_EXPORTS, else exports/ next to the database (where the app's
    Export page writes too).

    The version holds manifest.json, questions.jsonl, qrels.tsv, chunks.jsonl,
    completeness.jsonl and signature.json (signed with the project's key), is never changed
    once written, and is not written at all when an existing version already holds the same
    content. Reviewers' disagreements that nobody adjudicated are settled by the project's
    policy (`labeler policy`), or by --policy; --policy stop lists them instead.

    A question is partial when a candidate of its pool has no grade in the export; how many
    are is said, and --require-depth / --partial decide what to do with them.

    \b
    Example:
        labeler export orders-faq
    """
    from labeler.export import Selection, export_testset
    from labeler.grading.completeness import Requirement
    from labeler.grading.consensus import DisagreementError
    from labeler.grading.policy import resolve_policy
    from labeler.versions.diff import describe_changes

    out = exports_dir(db_path, out)
    with open_store(db_path) as store:
        selection = Selection(
            tags=tags,
            min_reviewers=min_reviewers,
            include_pending=include_pending,
            min_grade=min_grade,
            policy=resolve_policy(store, policy),
            require=Requirement(depth=require_depth, runs=runs, partial=partial),
        )
        try:
            result = export_testset(
                store,
                name,
                out=out,
                selection=selection,
                chunking=chunking,
                dry_run=dry_run,
                actor=None if dry_run else acting_name(),
            )
        except DisagreementError as error:
            echo("Disagreements (question / chunk: reviewer grade):", err=True)
            for item in error.disagreements[:SHOWN_DISAGREEMENTS]:
                echo("  " + item.describe(), err=True)
            if len(error.disagreements) > SHOWN_DISAGREEMENTS:
                echo(f"  … and {len(error.disagreements) - SHOWN_DISAGREEMENTS} more", err=True)
            raise
    if fmt == "json":
        echo_json(result.as_dict())
        return
    data = result.as_dict()
    counts = data["counts"]
    if result.status == "unchanged":
        echo(
            f"Unchanged: v{result.version} already holds this content ({data['content_hash']});"
            " nothing written."
        )
        return
    verb = "Created" if result.status == "created" else "Would create"
    parent = f"parent v{data['parent']}" if data["parent"] else "first version"
    echo(f"{verb} {shown_path(result.path)} ({parent}, chunking {data['chunking']!r})")
    echo(
        f"  questions: {counts['questions']} ({counts['unanswerable']} marked unanswerable,"
        f" {counts.get('no_relevant_label', 0)} with no relevant label at min grade"
        f" {data['selection']['min_grade']})"
    )
    echo(
        f"  qrels: {counts['qrels']} (grade {_grades(counts)}) over {counts['chunks']} chunks,"
        f" {counts['reviewers']} reviewer{'' if counts['reviewers'] == 1 else 's'}"
    )
    echo(f"  content hash: {data['content_hash']}")
    if data["changes"] and data["parent"] is not None:
        echo(f"  {describe_changes(data['changes'], data['parent'])}")
    if data["stale_labels"]:
        echo(
            f"Warning: {data['stale_labels']} stale label{'s' if data['stale_labels'] != 1 else ''}"
            " left out: their chunk's text changed since they were given; a reviewer confirms"
            " or changes them on the grading page.",
            err=True,
        )
    if data["missing_chunks"]:
        echo(
            f"Warning: {data['missing_chunks']} graded chunks are no longer in chunking"
            f" {data['chunking']!r}; their grades were left out.",
            err=True,
        )
    _completeness_lines(result)


def _listed(ids: list[str]) -> str:
    more = len(ids) - SHOWN_QUESTIONS
    return ", ".join(ids[:SHOWN_QUESTIONS]) + (f" and {more} more" if more > 0 else "")


def _completeness_lines(result) -> None:
    """How completely the version's questions are graded, and what was left out."""
    plan = result.plan
    summary = plan.completeness_summary()
    partial = plan.partial
    answerable = plan.counts["answerable"]
    ungraded = sum(c.ungraded for c in partial)
    echo(
        f"  completeness: {len(partial)} of {answerable} answerable questions partial"
        + (f" ({ungraded} candidates ungraded)" if partial else "")
        + f"; required: {summary['rule']}"
    )
    if summary["left_out"]:
        echo(
            f"Left out {len(summary['left_out'])} question(s) not {summary['rule']}:"
            f" {_listed(summary['left_out'])}",
            err=True,
        )
    if partial:
        shown = [f"{c.question_id} ({c.ungraded} ungraded; {c.depths()})" for c in partial]
        echo(
            f"Warning: {len(partial)} question(s) partially graded; their ungraded candidates"
            f" count as not relevant in an evaluation: {_listed(shown)}. See the version's"
            " completeness.jsonl; --require-depth K leaves such questions out.",
            err=True,
        )


__all__ = ["export_cmd", "out_option"]
