"""Commands: ``labeler judge ...`` (import a judge's verdicts, draw a spot-check, report how far
to trust the judge, export for Ragas, declare metrics) and ``labeler agreement`` (reviewers'
agreement on relevance grades).

numpy and the store load inside the commands, so ``labeler --help`` stays quick.
"""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli import judge_run
from labeler.cli.base import db_option, echo_json, main, open_store

FORMATS = ("table", "json", "markdown")
_table_or_json = click.option(
    "--format",
    "out_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
)


@main.group("judge")
def judge_group() -> None:
    """Run an LLM judge or import its verdicts, sample them for people to check blind, and
    report how far to trust it.

    \b
    Example:
        labeler judge import deepeval_run.json && labeler judge report
    """


def _echo_result(result, out_format: str) -> None:
    """A command's result as JSON (``--format json``) or as its one-paragraph summary."""
    if out_format == "json":
        echo_json(result.as_dict())
    else:
        click.echo(result.summary())


def _parse_options(metric_scales: tuple[str, ...], thresholds: tuple[str, ...]) -> tuple:
    from labeler.judge.scales import parse_assignments, parse_scale, parse_threshold

    scales = parse_assignments(metric_scales, field="metric-scale")
    for value in scales.values():
        parse_scale(value)
    stated = {
        name: parse_threshold(value)
        for name, value in parse_assignments(thresholds, field="threshold").items()
    }
    return scales, stated


@judge_group.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--from",
    "fmt",
    type=click.Choice(["long", "deepeval", "ragas", "ragas-annotated"]),
    default=None,
    help="The file's format (default: told from its shape).",
)
@click.option(
    "--metric-scale",
    "metric_scales",
    multiple=True,
    metavar="NAME=SCALE",
    help="A metric's scale: binary, ordinal:LO-HI or score. Repeat for several.",
)
@click.option(
    "--threshold",
    "thresholds",
    multiple=True,
    metavar="NAME=T",
    help="Where a score metric passes (0 to 1); over the file's own threshold.",
)
@click.option("--judge", default=None, help="Name the judge (over the file's model name).")
@click.option(
    "--reviewer",
    default=None,
    help="Name the person of a Ragas annotated file (default: ragas-annotator).",
)
@click.option("--chunking", default=None, help="Chunking of the chunk ids (default: current).")
@_table_or_json
@db_option
def import_cmd(
    file: str,
    fmt: str | None,
    metric_scales: tuple[str, ...],
    thresholds: tuple[str, ...],
    judge: str | None,
    reviewer: str | None,
    chunking: str | None,
    out_format: str,
    db_path: Path,
) -> None:
    """Import a judge's (and people's) verdicts: the long format (JSONL or CSV), a DeepEval
    test run, Ragas evaluation results or a Ragas annotated file.

    One transaction: a bad line names its file, line and field, and nothing is written.
    Importing the same file again changes nothing.

    \b
    Example:
        labeler judge import ratings.jsonl --metric-scale tone=ordinal:1-4 --threshold faith=0.7
    """
    from labeler.judge.importing import import_judgements

    scales, stated = _parse_options(metric_scales, thresholds)
    with open_store(db_path) as store:
        result = import_judgements(
            store,
            file,
            fmt=fmt,
            scales=scales,
            thresholds=stated,
            judge=judge,
            reviewer=reviewer,
            chunking=chunking,
        )
    _echo_result(result, out_format)


@judge_group.command("sample")
@click.option("--metric", required=True, help="The metric to spot-check.")
@click.option(
    "--per-stratum",
    type=int,
    default=30,
    show_default=True,
    help="Items drawn per verdict (or score bucket) of the judge.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the draw.")
@click.option("--judge", default=None, help="Which judge (needed when the metric has several).")
@click.option(
    "--disagreements",
    is_flag=True,
    help="Add every item where the judge disagrees with people's verdict.",
)
@click.option("--name", default=None, help="Name of the plan (default: METRIC-JUDGE-seedS).")
@click.option("--replace", is_flag=True, help="Replace a different plan of the same name.")
@_table_or_json
@db_option
def sample_cmd(
    metric: str,
    per_stratum: int,
    seed: int,
    judge: str | None,
    disagreements: bool,
    name: str | None,
    replace: bool,
    out_format: str,
    db_path: Path,
) -> None:
    """Draw a stratified, reproducible sample of a judge's verdicts for people to check, and
    save it as a named plan (the review page works through it).

    \b
    Example:
        labeler judge sample --metric faithfulness --per-stratum 30 --seed 7 --disagreements
    """
    from labeler.judge.sampling import sample_plan

    with open_store(db_path) as store:
        plan = sample_plan(
            store,
            metric,
            judge=judge,
            per_stratum=per_stratum,
            seed=seed,
            disagreements=disagreements,
            name=name,
            replace=replace,
        )
    _echo_result(plan, out_format)


@judge_group.command("report")
@click.option("--metric", "metrics", multiple=True, help="Only this metric (repeatable).")
@click.option(
    "--format", "out_format", type=click.Choice(FORMATS), default="table", show_default=True
)
@click.option(
    "--resamples",
    type=click.IntRange(100, 100_000),
    default=2000,
    show_default=True,
    help="Bootstrap resamples for kappa's interval.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@db_option
def report_cmd(
    metrics: tuple[str, ...], out_format: str, resamples: int, seed: int, db_path: Path
) -> None:
    """How far to trust each judge, per metric, against people's verdicts: agreement, kappa
    with intervals, Spearman, confusion, bias, disagreements, and agreement among people.

    \b
    Example:
        labeler judge report --metric faithfulness --format markdown > judge-report.md
    """
    from labeler.judge.render import render_report
    from labeler.judge.report import build_report

    with open_store(db_path) as store:
        report = build_report(store, metrics=metrics or None, resamples=resamples, seed=seed)
    if out_format == "json":
        echo_json(report.as_dict())
    else:
        click.echo(render_report(report, markdown=out_format == "markdown"), nl=False)


@judge_group.command("export")
@click.option(
    "--to",
    "target",
    type=click.Choice(["ragas-annotated"]),
    required=True,
    help="The format to write.",
)
@click.option("--metric", "metrics", multiple=True, help="Only this metric (repeatable).")
@click.option("--judge", default=None, help="Which judge (needed when a metric has several).")
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default="ragas-annotated.json",
    show_default=True,
    help="Where to write it ('-' for standard output).",
)
@db_option
def export_cmd(
    target: str, metrics: tuple[str, ...], judge: str | None, out: str, db_path: Path
) -> None:
    """Write people's verdicts beside the judge's as a Ragas annotated file, to align a Ragas
    metric with the spot-check.

    \b
    Example:
        labeler judge export --to ragas-annotated --metric faithfulness --out aligned.json
    """
    from labeler.judge.export import ragas_annotated, write_json

    with open_store(db_path) as store:
        data = ragas_annotated(store, metrics=metrics or None, judge=judge)
    if out == "-":
        echo_json(data)
        return
    path = write_json(data, out)
    counts = ", ".join(f"{name} {len(samples)}" for name, samples in data.items()) or "nothing"
    click.echo(f"Wrote {path} ({target}): {counts}")


@judge_group.command("metrics")
@_table_or_json
@db_option
def metrics_cmd(out_format: str, db_path: Path) -> None:
    """List the metrics: scale, threshold, judges, how many ratings, sample plans.

    \b
    Example:
        labeler judge metrics --format json
    """
    from labeler.judge.catalog import list_metrics

    with open_store(db_path) as store:
        found = list_metrics(store)
    if out_format == "json":
        echo_json([m.as_dict() for m in found])
        return
    if not found:
        click.echo("No metrics yet: import a judge's verdicts with `labeler judge import FILE`.")
    for m in found:
        scale = m.scale
        if m.threshold is not None:
            scale += f", passes at {m.pass_when} {m.threshold:g} ({m.threshold_source})"
        click.echo(
            f"{m.name}: {scale}; judges {', '.join(m.judges) or 'none'};"
            f" {m.model_ratings} judge and {m.human_ratings} people's ratings"
            + (f"; plans {', '.join(m.plans)}" if m.plans else "")
        )


@judge_group.command("define")
@click.argument("name")
@click.option("--scale", default=None, help="binary, ordinal:LO-HI or score.")
@click.option("--threshold", default=None, help="A score metric's pass threshold (0 to 1).")
@click.option(
    "--pass-when",
    type=click.Choice([">=", "<="]),
    default=None,
    help="A score passes at or above (>=) or at or below (<=) the threshold.",
)
@click.option("--definition", default=None, help="What reviewers should judge (shown to them).")
@db_option
def define_cmd(
    name: str,
    scale: str | None,
    threshold: str | None,
    pass_when: str | None,
    definition: str | None,
    db_path: Path,
) -> None:
    """Declare a metric, or change its scale, threshold or the definition reviewers see.

    \b
    Example:
        labeler judge define faithfulness --threshold 0.7 --definition "No unsupported claim."
    """
    from labeler.judge.catalog import define_metric

    with open_store(db_path) as store:
        changed = define_metric(
            store,
            name,
            scale=scale,
            threshold=threshold,
            pass_when=pass_when,
            definition=definition,
        )
    click.echo(f"{name}: {'saved' if changed else 'unchanged'}")


@main.command("agreement")
@click.option("--tag", default=None, help="Only questions with this tag.")
@click.option(
    "--top",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="How many of the most disputed questions to list.",
)
@click.option(
    "--format", "out_format", type=click.Choice(FORMATS), default="table", show_default=True
)
@db_option
def agreement_cmd(tag: str | None, top: int, out_format: str, db_path: Path) -> None:
    """How far reviewers agree on relevance grades: Krippendorff's alpha overall and per tag,
    each pair's weighted kappa, and the questions with the most disagreement.

    \b
    Example:
        labeler agreement --tag returns --format json
    """
    from labeler.judge.render import render_agreement
    from labeler.judge.reviewers import reviewer_agreement

    with open_store(db_path) as store:
        found = reviewer_agreement(store, tag=tag, top=top)
    if out_format == "json":
        echo_json(found.as_dict())
    else:
        click.echo(render_agreement(found, markdown=out_format == "markdown"), nl=False)


# The commands that run a judge (``judge run``, ``prompt``, ``ratings``, ``reveal``) live in
# their own module; the group holds them all, so loading it (``labeler judge ...``) lists every
# one of them.
for _command in (
    judge_run.run_cmd,
    judge_run.prompt_cmd,
    judge_run.ratings_cmd,
    judge_run.reveal_cmd,
):
    judge_group.add_command(_command)

__all__ = [
    "agreement_cmd",
    "define_cmd",
    "export_cmd",
    "import_cmd",
    "judge_group",
    "metrics_cmd",
    "report_cmd",
    "sample_cmd",
]
