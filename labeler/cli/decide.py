"""Command: ``labeler next`` (which pairs to label to decide between two runs)."""

from __future__ import annotations

import click

from labeler.cli.base import db_option, echo_json, main, open_store

POLICY_NAMES = ("median", "max", "min", "majority")


@main.command("next")
@click.option(
    "--run",
    "runs",
    multiple=True,
    required=True,
    metavar="NAME|FILE",
    help="A run: an imported run's name or a run file (checked as an import would). Twice.",
)
@click.option(
    "--metric",
    default="ndcg@10",
    show_default=True,
    help="ndcg, ndcg@k, precision@k, recall@k, mrr, mrr@k, map or map@k.",
)
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="At most this many pairs, the most decisive first.",
)
@click.option(
    "--confidence",
    type=float,
    default=0.95,
    show_default=True,
    help="Call a run likely better once the model gives it this probability (0.5 to 1).",
)
@click.option(
    "--policy",
    type=click.Choice(POLICY_NAMES),
    default=None,
    help="Settle reviewers' disagreements as an export would (default: stop and list them).",
)
@click.option("--chunking", default=None, help="Chunking (default: the current one).")
@click.option(
    "--min-grade",
    type=click.IntRange(1, 2),
    default=1,
    show_default=True,
    help="Lowest grade that counts as relevant for binary metrics (nDCG uses the grades).",
)
@click.option(
    "--prior-judge",
    default=None,
    metavar="JUDGE",
    help="Use JUDGE's relevance grades as the model's prior for chunks nobody graded.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("table", "json")),
    default="table",
    show_default=True,
)
@db_option
def next_command(
    runs: tuple[str, ...],
    metric: str,
    budget: int,
    confidence: float,
    policy: str | None,
    chunking: str | None,
    min_grade: int,
    prior_judge: str | None,
    fmt: str,
    db_path,
) -> None:
    """Which pairs to label next to decide whether run A beats run B.

    Reads every reviewer's current labels (one grade per pair, as an export settles them) and
    says whether the difference A - B on the metric is proven (whatever grades the unjudged
    chunks of the two runs' top k get), likely (by the probability the relevance model gives),
    or open; then lists the unjudged (question, chunk) pairs whose grades would settle it
    soonest. Label them, run it again, until proven. Works from no labels at all. With
    --prior-judge, an LLM judge's grades inform the model for the chunks nobody graded (the
    proof still needs people's labels).

    \b
    Example:
        labeler next --run hybrid --run bm25 --metric ndcg@10 --budget 20
    """
    from labeler.metrics.types import Options
    from labeler.sources import next_pairs

    if len(runs) != 2:
        raise click.UsageError(f"give exactly two runs (--run A --run B), got {len(runs)}")
    with open_store(db_path) as store:
        decision = next_pairs(
            store,
            runs[0],
            runs[1],
            metric,
            policy=policy,
            chunking=chunking,
            confidence=confidence,
            budget=budget,
            options=Options(min_grade=min_grade),
            prior=prior_judge,
        )
    if fmt == "json":
        echo_json(decision.as_dict())
        return
    click.echo(decision.sentence())
    click.echo(
        f"{decision.metric} over {decision.questions} questions; {decision.labelled} of the"
        f" {decision.pool} pairs in the two runs' pool are labelled"
        + ("" if decision.exact else " (bounds partly sound, not exact: see docs/results.md)")
    )
    if decision.status == "proven":
        click.echo("Nothing more to label: the comparison is proven.")
        return
    if not decision.pairs:
        return
    click.echo(f"\nNext {len(decision.pairs)} pairs to grade, most decisive first:")
    width = max(len("question"), *(len(p.question) for p in decision.pairs))
    chunk_width = max(len("chunk"), *(len(p.chunk) for p in decision.pairs))
    click.echo(f"{'question':<{width}}  {'chunk':<{chunk_width}}  weight")
    for pair in decision.pairs:
        click.echo(f"{pair.question:<{width}}  {pair.chunk:<{chunk_width}}  {pair.weight:.4f}")


__all__ = ["next_command"]
