"""Commands: ``labeler judge run`` (an LLM judge's grades from an OpenAI-compatible endpoint),
``labeler judge prompt`` (the prompt it sends), ``labeler judge ratings`` (what a judge said)
and ``labeler judge reveal`` (show reviewers the judge's grade after their own).

The store, the client and the runner load inside the commands, so ``labeler --help`` stays
quick. The API key is read here from the environment variable the user names, never from an
argument, and handed to the client alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from labeler.cli.base import db_option, echo_json, open_store
from labeler.errors import LabelerError

METRIC_HELP = "relevance (a question's chunks) or faithfulness (answers against their passages)."


def _prompt(metric: str, path: str | None):
    from labeler.judge.prompts import builtin_prompt, read_prompt

    return read_prompt(path, metric) if path else builtin_prompt(metric)


def _api_key(variable: str | None) -> str | None:
    if variable is None:
        return None
    value = os.environ.get(variable, "")
    if not value.strip():
        msg = f"the environment variable {variable} is not set (it should hold the API key)"
        raise LabelerError(msg, field="api-key-env")
    return value.strip()


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class ProgressBar:
    """Calls done, cached, failed, calls per second, tokens and ETA on stderr: one line
    redrawn in place on a terminal, a line every 10 s otherwise (a log)."""

    WIDTH = 24

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = -1e9
        self.drawn = False

    def __call__(self, p) -> None:
        import time

        if p.planned == 0 or (not self.tty and p.calls == 0):
            return
        if not self.tty and time.monotonic() - self.last < 10 and p.calls < p.planned:
            return
        self.last = time.monotonic()
        filled = int(self.WIDTH * p.calls / p.planned)
        line = (
            f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {p.calls}/{p.planned} calls,"
            f" {p.cached} cached, {p.failed} failed, {p.rate:.1f}/s,"
            f" tokens {p.tokens_in} in {p.tokens_out} out, ETA {_duration(p.eta)}"
        )
        if self.tty:
            click.echo("\r" + line + "\x1b[K", err=True, nl=False)
            self.drawn = True
        else:
            click.echo(line, err=True)

    def close(self) -> None:
        if self.drawn:
            click.echo("", err=True)


@click.command("run")
@click.option("--metric", required=True, help=METRIC_HELP)
@click.option("--base-url", required=True, help="The endpoint, e.g. http://localhost:11434/v1.")
@click.option("--model", required=True, help="The model the endpoint serves.")
@click.option(
    "--api-key-env",
    default=None,
    metavar="VAR",
    help="The environment variable holding the API key (none: send no key).",
)
@click.option("--questions", "question_ids", multiple=True, metavar="Q", help="These questions.")
@click.option("--tag", default=None, help="The questions with this tag.")
@click.option("--all", "everything", is_flag=True, help="Every question in the grading queue.")
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="Each run's top K of a pool (default: as deep as the pool goes).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=8,
    show_default=True,
    help="Calls in flight at once.",
)
@click.option(
    "--max-calls",
    type=click.IntRange(min=0),
    default=None,
    help="Make at most this many calls; the next run goes on.",
)
@click.option(
    "--prompt", "prompt_file", type=click.Path(dir_okay=False), help="Your own prompt template."
)
@click.option("--judge-name", default=None, help="The judge's name (default: MODEL@PROMPT-HASH).")
@click.option(
    "--timeout", type=float, default=60.0, show_default=True, help="Seconds to wait for a reply."
)
@click.option("--dry-run", is_flag=True, help="Say what would be called; call nothing.")
@click.option("--chunking", default=None, help="Chunking (default: the current one).")
@click.option(
    "--format",
    "out_format",
    type=click.Choice(["table", "json"]),
    default="table",
    show_default=True,
)
@db_option
def run_cmd(
    metric: str,
    base_url: str,
    model: str,
    api_key_env: str | None,
    question_ids: tuple[str, ...],
    tag: str | None,
    everything: bool,
    depth: int | None,
    concurrency: int,
    max_calls: int | None,
    prompt_file: str | None,
    judge_name: str | None,
    timeout: float,
    dry_run: bool,
    chunking: str | None,
    out_format: str,
    db_path: Path,
) -> None:
    """Grade with an LLM judge: every (question, chunk) of the chosen questions' pools (or, for
    faithfulness, every answer) that this judge has not rated, at an OpenAI-compatible
    endpoint (a hosted API, vLLM, Ollama, LiteLLM), temperature 0.

    Answers are cached by prompt, model, question and text: running the command again makes no
    call. Each rating is saved as it arrives: after a crash or Ctrl-C, run it again to go on.
    The ratings appear at once in `judge sample`, the spot-check page and `judge report`.

    \b
    Example:
        labeler judge run --metric relevance --all --model qwen2.5:7b --base-url http://localhost:11434/v1
    """
    from labeler.judge.client import Endpoint, check_endpoint, check_openai
    from labeler.judge.run import RunOptions, Selection, plan_run, run_judge

    chosen = sum((bool(question_ids), tag is not None, everything))
    if chosen != 1:
        raise click.UsageError("choose the questions with one of --questions, --tag or --all")
    check_endpoint(base_url, model, timeout)
    endpoint = Endpoint(base_url, model, _api_key(api_key_env), timeout)
    if not dry_run:
        check_openai()
    options = RunOptions(
        metric=metric,
        endpoint=endpoint,
        prompt=_prompt(metric, prompt_file),
        selection=Selection(question_ids, tag, everything),
        depth=depth,
        concurrency=concurrency,
        max_calls=max_calls,
        judge_name=judge_name,
        chunking=chunking,
    )
    with open_store(db_path) as store:
        plan = plan_run(store, options)
        if dry_run:
            echo_json(plan.as_dict()) if out_format == "json" else click.echo(plan.summary())
            return
        bar = ProgressBar() if out_format == "table" else None
        try:
            summary = run_judge(store, options, plan=plan, on_progress=bar)
        except KeyboardInterrupt as stop:
            if bar:
                bar.close()
            done = getattr(stop, "summary", None)
            if done is not None:
                click.echo(done.summary(), err=True)
            sys.exit(130)
        finally:
            if bar:
                bar.close()
    if out_format == "json":
        echo_json(summary.as_dict())
    else:
        click.echo(summary.summary())


@click.command("prompt")
@click.option("--metric", required=True, help=METRIC_HELP)
@click.option(
    "--prompt", "prompt_file", type=click.Path(dir_okay=False), help="Check your own template."
)
def prompt_cmd(metric: str, prompt_file: str | None) -> None:
    """Print the prompt `judge run` sends for a metric (its version and hash on stderr): copy
    it, edit it, and pass it back with --prompt FILE.

    \b
    Example:
        labeler judge prompt --metric relevance > my-prompt.txt
    """
    prompt = _prompt(metric, prompt_file)
    click.echo(f"{prompt.version} {prompt.short_hash} ({prompt.source})", err=True)
    click.echo(prompt.text, nl=False)


@click.command("ratings")
@click.option("--metric", required=True, help="The metric (relevance, faithfulness, ...).")
@click.option("--judge", default=None, help="Only this judge.")
@click.option("--failed", is_flag=True, help="The calls that gave no verdict, with their raw text.")
@click.option(
    "--format",
    "out_format",
    type=click.Choice(["jsonl", "csv"]),
    default="jsonl",
    show_default=True,
)
@db_option
def ratings_cmd(
    metric: str, judge: str | None, failed: bool, out_format: str, db_path: Path
) -> None:
    """What a judge said, one line per rating: the question, the chunk or the answer, the
    judge, its verdict and reason, and where a judge run made it, the model, prompt, host,
    tokens, latency and raw answer. CSV cells are safe to open in a spreadsheet.

    \b
    Example:
        labeler judge ratings --metric relevance --format csv > judge.csv
    """
    from labeler.judge.listing import (
        FAILURE_FIELDS,
        RATING_FIELDS,
        csv_lines,
        failures,
        jsonl_lines,
        ratings,
    )

    with open_store(db_path) as store:
        if failed:
            rows, fields = failures(store, metric, judge=judge), FAILURE_FIELDS
        else:
            rows, fields = ratings(store, metric, judge=judge), RATING_FIELDS
    lines = jsonl_lines(rows) if out_format == "jsonl" else csv_lines(rows, fields)
    out = click.get_text_stream("stdout")
    for line in lines:
        out.write(line)


@click.command("reveal")
@click.argument("judge", required=False)
@click.option("--off", is_flag=True, help="Show reviewers no judge's grade.")
@db_option
def reveal_cmd(judge: str | None, off: bool, db_path: Path) -> None:
    """Show reviewers JUDGE's relevance grade and reason beside a chunk once they have graded
    it themselves (never before); --off stops it; with neither, say what is set.

    \b
    Example:
        labeler judge reveal qwen2.5:7b@relevance-v1-3fa2c1d0
    """
    from labeler.judge.reveal import revealed_judge, set_revealed_judge

    if judge and off:
        raise click.UsageError("give a judge or --off, not both")
    with open_store(db_path) as store:
        if judge or off:
            set_revealed_judge(store, None if off else judge)
        shown = revealed_judge(store)
    if shown:
        click.echo(f"Reviewers see {shown}'s grade after giving their own.")
    else:
        click.echo("Reviewers see no judge's grade.")


__all__ = ["prompt_cmd", "ratings_cmd", "reveal_cmd", "run_cmd"]
