"""``labeler adjudicate``: settle the grade of a (question, chunk) for every export; ``labeler
policy``: the project's one way of settling the disagreements nobody adjudicated."""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import acting_name, db_option, echo, main, open_store
from labeler.grading.consensus import POLICIES


@main.command("adjudicate")
@click.argument("question")
@click.argument("chunk")
@click.argument("grade", type=click.Choice(["0", "1", "2", "clear"]))
@click.option(
    "--reviewer",
    default=None,
    help="Who settles it, for the history (default: --as NAME, else your user name).",
)
@click.option("--note", default=None, help="Why: kept with the adjudication.")
@click.option(
    "--chunking", default=None, help="Chunking the chunk id refers to (default: current)."
)
@db_option
def adjudicate_cmd(
    question: str,
    chunk: str,
    grade: str,
    reviewer: str | None,
    note: str | None,
    chunking: str | None,
    db_path: Path,
) -> None:
    """Settle the grade of CHUNK for QUESTION for every export: it wins over reviewers' grades.

    GRADE is 0, 1 or 2, or "clear" to withdraw the settlement.

    \b
    Example:
        labeler --as lead adjudicate q17 orders-api-3 2 --note "answers it fully"
    """
    from labeler.grading.disputes import adjudicate

    value = None if grade == "clear" else int(grade)
    with open_store(db_path) as store:
        who = reviewer or acting_name()
        previous = adjudicate(store, question, chunk, value, who, note, chunking=chunking)
    before = "none" if previous is None else previous
    after = "none" if value is None else value
    echo(f"Adjudicated {question} / {chunk}: {before} -> {after}")


@main.command("policy")
@click.argument("name", required=False, type=click.Choice(list(POLICIES)))
@db_option
def policy_cmd(name: str | None, db_path: Path) -> None:
    """Show, or set to NAME, how the project settles reviewers' disagreements.

    One policy for the Results page, the "decide A vs B" queue, `labeler next` and `labeler
    export` (each can be told another for one call with --policy or its page's choice). A
    project that never chose settles by majority. Adjudicated grades always win.

    \b
    Example:
        labeler policy majority
    """
    from labeler.grading.policy import describe_policy, project_policy, set_project_policy

    with open_store(db_path) as store:
        if name is None:
            echo(f"When reviewers disagree: {describe_policy(project_policy(store))}")
            for other, policy in POLICIES.items():
                echo(f"  {other}: {policy.summary}")
            return
        previous = set_project_policy(store, name)
    echo(f"When reviewers disagree: {describe_policy(name)} (was {previous})")


__all__ = ["adjudicate_cmd", "policy_cmd"]
