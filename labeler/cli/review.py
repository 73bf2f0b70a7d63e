"""``labeler review``: the queue of generated questions, decisions on them, stats, flag settings."""

from __future__ import annotations

import json
from pathlib import Path

import click

from labeler.cli.base import acting_name, db_option, echo, echo_json, main, open_store
from labeler.spreadsheet import csv_text

STATUS_CHOICES = ("pending", "accepted", "rejected", "all")


@main.group("review")
def review_group() -> None:
    """Review generated questions (Ragas, DeepEval, any JSONL): list, accept, reject, stats.

    Questions come with advisory flags (duplicate, answer_leak, copied_from_source,
    unsupported_reference, context_not_found, too_short, too_long); a flag never decides.

    \b
    Example:
        labeler review list --flag duplicate --format json
    """


def _where(status: str, flag, generator, synthesizer, persona, tag):
    from labeler.review import QueueFilter

    return QueueFilter(
        status=None if status == "all" else status,
        flag=flag,
        generator=generator,
        synthesizer=synthesizer,
        persona=persona,
        tag=tag,
    )


def _short(text: str, width: int) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@review_group.command("list")
@click.option("--status", type=click.Choice(STATUS_CHOICES), default="pending", show_default=True)
@click.option("--flag", default=None, help="Only questions with this flag (e.g. duplicate).")
@click.option("--generator", default=None, help="Only questions of this generator (e.g. ragas).")
@click.option("--synthesizer", default=None, help="Only this synthesizer (Ragas' spelling kept).")
@click.option("--persona", default=None, help="Only questions generated for this persona.")
@click.option("--tag", default=None, help="Only questions with this tag.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
)
@db_option
def list_cmd(
    status: str,
    flag: str | None,
    generator: str | None,
    synthesizer: str | None,
    persona: str | None,
    tag: str | None,
    fmt: str,
    db_path: Path,
) -> None:
    """The generated questions in queue order (duplicate clusters together, then other
    flagged questions, then the rest), with their flags and the reason for each.

    JSON: {"questions": [{"id", "status", "generator", "synthesizer", "persona", "text",
    "flags": [{"name", "reason", "related": [ids]}]}]}.

    \b
    Example:
        labeler review list --status pending --flag answer_leak --format csv
    """
    from labeler.flags import FLAG_NAMES
    from labeler.review import ensure_flags, list_questions

    if flag is not None and flag not in FLAG_NAMES:
        from labeler.errors import LabelerError

        msg = f"unknown flag {flag!r}; expected one of: " + ", ".join(FLAG_NAMES)
        raise LabelerError(msg, field="flag")
    with open_store(db_path) as store:
        ensure_flags(store)
        rows = list_questions(store, _where(status, flag, generator, synthesizer, persona, tag))
    if fmt == "json":
        # One question per line: readable, and json's C encoder (indent would take the slow
        # pure-Python one: a second for 50,000 questions), built once for all of them.
        encode = json.JSONEncoder(ensure_ascii=False).encode
        lines = ",\n".join(encode(row) for row in rows)
        echo('{"questions": [\n' + lines + "\n]}" if rows else '{"questions": []}')
        return
    if fmt == "csv":
        header = ("id", "status", "generator", "synthesizer", "persona", "flags", "text")
        cells = (
            (
                row["id"],
                row["status"],
                row["generator"],
                row["synthesizer"],
                row["persona"],
                ";".join(f["name"] for f in row["flags"]),
                row["text"],
            )
            for row in rows
        )
        echo(csv_text([header, *cells]), nl=False)
        return
    if not rows:
        echo("No generated questions match.")
        return
    for row in rows:
        source = " / ".join(v for v in (row["generator"], row["synthesizer"]) if v)
        echo(f"{row['id']}  [{row['status']}]  {source}")
        echo(f"    {_short(row['text'], 110)}")
        for f in row["flags"]:
            echo(f"    ! {f['name']}: {f['reason']}")
    echo(f"{len(rows)} question{'s' if len(rows) != 1 else ''}.")


def _reviewer_option(func):
    return click.option(
        "--reviewer",
        default=None,
        help="Who decides, for the history (default: --as NAME, else your user name).",
    )(func)


@review_group.command("accept")
@click.argument("question_ids", nargs=-1, required=True)
@click.option(
    "--confirm-sources",
    is_flag=True,
    help="Also grade each question's source chunks 2 (answers it), under --reviewer.",
)
@_reviewer_option
@db_option
def accept_cmd(
    question_ids: tuple[str, ...], confirm_sources: bool, reviewer: str | None, db_path: Path
) -> None:
    """Accept generated questions: they join the grading queue, their source chunks in the
    pool. An unknown id (or a human question) changes nothing and exits with code 2.

    \b
    Example:
        labeler review accept ragas-3f2a9c01de gen-7 --reviewer maria --confirm-sources
    """
    from labeler.review import decide_many

    with open_store(db_path) as store:
        result = decide_many(
            store,
            question_ids,
            reviewer or acting_name(),
            "accept",
            confirm_sources=confirm_sources,
        )
    echo(result.summary("accepted") + ".")


@review_group.command("reject")
@click.argument("question_ids", nargs=-1, required=True)
@click.option(
    "--reason",
    required=True,
    help="not-answerable, ambiguous, duplicate, leaks-answer, unrealistic, wrong-reference,"
    " or other (with --note).",
)
@click.option("--note", default=None, help="Why, in a few words (needed with --reason other).")
@_reviewer_option
@db_option
def reject_cmd(
    question_ids: tuple[str, ...],
    reason: str,
    note: str | None,
    reviewer: str | None,
    db_path: Path,
) -> None:
    """Reject generated questions with a reason from the fixed list. An unknown id or reason
    changes nothing and exits with code 2.

    \b
    Example:
        labeler review reject gen-7 gen-9 --reason duplicate --reviewer maria
    """
    from labeler.review import decide_many

    with open_store(db_path) as store:
        result = decide_many(
            store, question_ids, reviewer or acting_name(), "reject", reason=reason, note=note
        )
    echo(result.summary("rejected") + ".")


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


@review_group.command("stats")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@db_option
def stats_cmd(fmt: str, db_path: Path) -> None:
    """How the review is going: how many remain, acceptance by generator, synthesizer and
    persona, reject reasons, median time per decision, open flags.

    \b
    Example:
        labeler review stats --format json
    """
    from labeler.review import ensure_flags, review_stats

    with open_store(db_path) as store:
        ensure_flags(store)
        data = review_stats(store)
    if fmt == "json":
        echo_json(data)
        return
    echo(
        f"Generated questions: {data['total']} ({data['remaining']} to review,"
        f" {data['accepted']} accepted, {data['rejected']} rejected;"
        f" acceptance {_rate(data['acceptance'])})"
    )
    for key, title in (
        ("by_generator", "generator"),
        ("by_synthesizer", "synthesizer"),
        ("by_persona", "persona"),
    ):
        echo(f"By {title}:")
        for row in data[key]:
            echo(
                f"  {row['value'] or '(none)'}: {_rate(row['acceptance'])} accepted"
                f" ({row['accepted']} of {row['accepted'] + row['rejected']} decided,"
                f" {row['pending']} to review)"
            )
    echo("Reject reasons:")
    for row in data["reject_reasons"] or [{"label": "(none yet)", "count": ""}]:
        echo(f"  {row['label']}: {row['count']}")
    median = data["median_seconds"]
    echo(
        "Median time per decision: "
        + (f"{median:.1f} s ({data['timed_decisions']} timed)" if median is not None else "-")
    )
    flags = ", ".join(f"{n} {c}" for n, c in data["pending_flags"].items()) or "none"
    echo(f"Flags among questions to review: {flags}")


@review_group.command("flags")
@click.option("--duplicate-threshold", type=float, default=None, help="0-100 (default 85).")
@click.option("--leak-share", type=float, default=None, help="0-1 (default 0.7).")
@click.option("--copy-share", type=float, default=None, help="0-1 (default 0.75).")
@click.option("--copy-run", type=int, default=None, help="Words in a copied run (default 4).")
@click.option("--support-share", type=float, default=None, help="0-1 (default 0.6).")
@click.option("--min-words", type=int, default=None, help="too_short below this (default 3).")
@click.option("--max-words", type=int, default=None, help="too_long above this (default 40).")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
@db_option
def flags_cmd(fmt: str, db_path: Path, **settings: object) -> None:
    """Show (or change) the thresholds of the flags, and how many questions each flags.
    A change is stored in the database and the flags are recomputed at once.

    \b
    Example:
        labeler review flags --duplicate-threshold 90 --max-words 50
    """
    from labeler.review import ensure_flags, load_config, save_config

    with open_store(db_path) as store:
        if any(v is not None for v in settings.values()):
            config = save_config(store, **settings)
        else:
            config = load_config(store)
        ensure_flags(store)
        counts = store.flags.flag_counts(None)
        pending = store.flags.flag_counts("pending")
    if fmt == "json":
        echo_json({"config": config.as_dict(), "flagged": counts, "flagged_pending": pending})
        return
    for name, value in config.as_dict().items():
        echo(f"{name}: {value}")
    echo(
        "Flagged (to review / all): "
        + (", ".join(f"{n} {pending.get(n, 0)}/{c}" for n, c in counts.items()) or "none")
    )


__all__ = ["review_group"]
