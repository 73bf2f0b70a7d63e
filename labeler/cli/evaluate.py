"""Commands: ``labeler eval`` (score runs against a test set, compare them, gate a build) and
``labeler faithfulness`` (a lexical screen of answers against their passages).

Only click and the light metric registry load at start-up; numpy loads inside the
command, so every other command starts as fast as before.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import click

from labeler.cli.base import database, echo, echo_json, main, open_store
from labeler.errors import LabelerError
from labeler.metrics.registry import DEFAULT_METRICS, metric_spellings
from labeler.metrics.types import GAINS, ORDERS, Options

FORMATS = ("table", "json", "csv", "markdown")
PREFAULT_LIMIT = 256 << 20  # bytes of memory faulted in ahead (see ``_prefault``)


def _warn(message: str) -> None:
    echo(f"Warning: {message}", err=True)


def _run_argument(value: str) -> tuple[str | None, str]:
    """``NAME=FILE`` names a run; a plain ``FILE`` is named after its stem."""
    name, equals, path = value.partition("=")
    if equals and name and not Path(value).exists():
        return name, path
    return None, value


def _version_notes(version: Any) -> list[str]:
    """What eval says of the version it scores: how far its signature vouches for it, and
    how many of its questions are partially graded."""
    notes = []
    findings = version.findings
    state = findings.signature.state if findings is not None else "unsigned"
    if state == "unsigned":
        notes.append(
            f"scoring an unsigned version ({version.path}): it was written before versions were"
            " signed, and nothing proves who wrote it or that it is unchanged"
        )
    elif state in ("self-signed", "foreign"):
        notes.append(
            f"scoring {version.name} v{version.version}, {findings.note()}: compare it with the"
            " owner's `labeler key show`, or check it with --public-key FILE"
        )
    partial = (version.counts or {}).get("partial")
    if partial:
        notes.append(
            f"{partial} question{'' if partial == 1 else 's'} of {version.name}"
            f" v{version.version} {'is' if partial == 1 else 'are'} partially graded: their"
            " ungraded candidates count as not relevant (see its completeness.jsonl)"
        )
    return notes


def _testset_trust(testset: str, public_key: str | None, db: str | None) -> tuple:
    """(version folder, trust): a --public-key, else this project's key when its database is
    at hand (then also its record of what it exported)."""
    from labeler.versions.history import reading_trust

    db_path = database(db)
    if public_key is None and db_path.exists():
        with open_store(db_path) as store:
            return reading_trust(testset, store=store)
    return reading_trust(testset, public_key=public_key)


def _load_test_set(qrels: str | None, questions: str | None, checked: tuple | None) -> tuple:
    """(Qrels, question -> tags, question -> turn number for the turns of conversations,
    identity of the test set or None, notes on the version);
    ``checked``: a --testset's folder and trust (``_testset_trust``), else --qrels is read."""
    from labeler.metrics.files import read_qrels, read_questions

    if checked is not None:
        from labeler.metrics.testsets import read_testset

        folder, trust = checked
        version = read_testset(folder, trust=trust)
        tags = {q.id: q.tags for q in version.questions}
        turns = {q.id: q.turn.number for q in version.questions if q.turn is not None}
        return version.qrels, tags, turns, version.identity(), _version_notes(version)
    labels = read_qrels(qrels)
    tags: dict[str, tuple[str, ...]] = {}
    turns: dict[str, int] = {}
    if questions is not None:
        infos = read_questions(questions)
        labels = labels.with_questions(
            (q.id for q in infos), unanswerable=(q.id for q in infos if q.unanswerable)
        )
        tags = {q.id: q.tags for q in infos}
        turns = {q.id: q.turn.number for q in infos if q.turn is not None}
    return labels, tags, turns, None, []


@main.command("eval")
@click.option("--qrels", type=click.Path(dir_okay=False), help="Labels: TREC qrels, JSONL or JSON.")
@click.option(
    "--testset",
    type=click.Path(file_okay=False),
    metavar="DIR",
    help="A version folder written by `labeler export` (or its parent: the latest version).",
)
@click.option(
    "--public-key",
    type=click.Path(dir_okay=False),
    help="With --testset: the public key that must have signed it (from `labeler key show`);"
    " default: this project's key when its database is at hand.",
)
@click.option(
    "--db",
    "db",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --testset: the database whose key and records check it (default: $LABELER_DB,"
    " else ./labeler.db, when it exists).",
)
@click.option(
    "--questions",
    type=click.Path(dir_okay=False),
    help="Questions JSONL (id, tags, unanswerable) for --by-tag with --qrels.",
)
@click.option(
    "--run",
    "runs",
    multiple=True,
    required=True,
    metavar="[NAME=]FILE",
    help="A run (TREC, JSONL or JSON); repeat to compare. Named after the file unless NAME= .",
)
@click.option(
    "--metrics",
    default=DEFAULT_METRICS,
    show_default=True,
    help=f"Comma-separated; @k means each cutoff of -k. Valid: {metric_spellings()}.",
)
@click.option("-k", "ks", default="10", show_default=True, help="Cutoffs for @k, e.g. 3,10.")
@click.option(
    "--min-grade",
    type=int,
    default=1,
    show_default=True,
    help="Lowest grade that counts as relevant for binary metrics (nDCG uses the grades).",
)
@click.option(
    "--order",
    type=click.Choice(ORDERS),
    default="rank",
    show_default=True,
    help="rank: as the run states it; score: by score, ties by chunk id (as trec_eval).",
)
@click.option("--depth", type=int, help="Only the top N results per question count (trec_eval -M).")
@click.option(
    "--gains", type=click.Choice(GAINS), default="linear", show_default=True, help="nDCG gains."
)
@click.option("--by-tag", is_flag=True, help="Add a breakdown per question tag.")
@click.option(
    "--per-question",
    type=click.Path(dir_okay=False),
    help="Write every per-question value as CSV: run,question,metric,value.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--baseline-run", help="The run the others are compared with (default: the first).")
@click.option(
    "--resamples",
    type=int,
    default=10_000,
    show_default=True,
    help="Bootstrap and randomization resamples.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the resampling.")
@click.option(
    "--save-baseline",
    type=click.Path(dir_okay=False),
    help="Write the figures, for --baseline later.",
)
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    help="Gate: exit 1 if a metric fell below this baseline.",
)
@click.option(
    "--tolerance",
    type=float,
    default=0.01,
    show_default=True,
    help="How far below its baseline a metric may fall before the gate fails.",
)
def eval_command(
    qrels: str | None,
    testset: str | None,
    public_key: str | None,
    db: str | None,
    questions: str | None,
    runs: tuple[str, ...],
    metrics: str,
    ks: str,
    min_grade: int,
    order: str,
    depth: int | None,
    gains: str,
    by_tag: bool,
    per_question: str | None,
    fmt: str,
    baseline_run: str | None,
    resamples: int,
    seed: int,
    save_baseline: str | None,
    baseline: str | None,
    tolerance: float,
) -> None:
    """Score retrieval runs against a test set, side by side, and compare them.

    Every run is compared with the first (or --baseline-run): mean difference, 95% bootstrap
    confidence interval, paired randomization p-value, wins/ties/losses per question. With
    --baseline the command exits 1 when a metric fell more than --tolerance below it. A test
    set holding conversations is also broken down by turn (first, later), answerability,
    question type and multi-turn type, where its questions carry those tags.

    A --testset is checked first: its content hash always, its signature against --public-key
    or this project's key (beside its database); a forged version is refused (exit 2), and an
    unsigned or unverified one is scored with a warning.

    \b
    Example:
        labeler eval --testset exports/docs-qa/v3 --run bm25.trec --run hybrid.trec -k 3,10
    """
    _lean_process(compares=len(runs) > 1)
    _prefault([qrels, *(path for _, path in map(_run_argument, runs))])
    from labeler.metrics.files import read_run
    from labeler.metrics.registry import parse_ks

    cutoffs = parse_ks(ks)
    if (qrels is None) == (testset is None):
        raise click.UsageError("give exactly one of --qrels FILE and --testset DIR")
    if testset is None and (public_key is not None or db is not None):
        msg = "--public-key and --db check a --testset; --qrels has neither"
        raise LabelerError(msg, field="public-key" if public_key is not None else "db")
    if testset is not None and questions is not None:
        raise click.UsageError("--questions goes with --qrels; a --testset has its own")
    checked = None if testset is None else _testset_trust(testset, public_key, db)
    # The files are independent: read them side by side (numpy releases the GIL).
    with ThreadPoolExecutor(max_workers=2) as pool:
        test_set = pool.submit(_load_test_set, qrels, questions, checked)
        reading = [
            pool.submit(read_run, path, name=name, order=order)
            for name, path in map(_run_argument, runs)
        ]
        from labeler.metrics.gate import evaluate_gated  # loads while the files are read

        labels, tags, turns, identity, notes = test_set.result()
        loaded = [future.result() for future in reading]
    for note in notes:
        _warn(note)
    if not labels.questions:
        raise LabelerError("the test set has no questions", path=qrels or testset)
    report = evaluate_gated(
        labels,
        loaded,
        metrics,
        ks=cutoffs,
        options=Options(min_grade=min_grade, order=order, depth=depth, gains=gains),
        baseline=baseline,
        save_to=save_baseline,
        tolerance=tolerance,
        testset=identity,
        qrels_path=qrels,
        baseline_run=baseline_run,
        resamples=resamples,
        seed=seed,
        tags=tags,
        turns=turns,
    )
    for warning in report.warnings:
        _warn(warning)
    if save_baseline:
        echo(f"Baseline saved to {save_baseline}.", err=True)
    if per_question:
        report.write_per_question(per_question)
    _print(report, fmt, by_tag)
    if report.gate is not None:
        echo(report.gate.summary(), err=True)
        if not report.gate.passed:
            raise SystemExit(1)


def _lean_process(*, compares: bool) -> None:
    """Spare a short process work that buys it nothing (0.1 to 0.2 s of CPU of a 10,000-question
    evaluation; see docs/benchmarks.md).

    - At exit the interpreter collects every object it ever made, module by module: frozen
      (``gc.freeze``, from an exit handler, so a test process is unaffected until its own end)
      they are left to the operating system, as it takes back the whole process anyway.
    - Without a comparison there is no matrix product: OpenBLAS need not start (and at exit
      stop) a thread per core when numpy loads. A comparison keeps them, and with them the
      exact figures its matrix products give; a value the user set is kept.
    - Freed memory is kept for the next arrays (``labeler.allocator.keep_freed_memory``).
    """
    from labeler.allocator import keep_freed_memory

    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    if not compares:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    keep_freed_memory()


def _prefault(paths: list[str | None]) -> None:
    """Have the idle core take the kernel's zeroing of the memory the reading will need (about
    as much as the files hold, up to ``PREFAULT_LIMIT``) while this one loads the modules: on
    a virtual machine a fresh page costs a fault and zeroing, often a trip to the host too
    (0.2 to 2.8 ms a MB on the 2-core benchmark machine). 10,000 x 100: 0.50 against 0.53 to
    0.56 s median (docs/benchmarks.md, "A reader of our own")."""
    size = 0
    for path in paths:
        with contextlib.suppress(OSError, TypeError):
            size += os.path.getsize(path)  # type: ignore[arg-type]
    if size:
        from labeler.allocator import prefault

        limit = min(size, PREFAULT_LIMIT)
        threading.Thread(target=prefault, args=(limit,), name="prefault", daemon=True).start()


def _print(report: Any, fmt: str, by_tag: bool) -> None:
    from labeler.metrics.render import render_csv, render_markdown, render_table

    if fmt == "json":
        echo_json(report.to_json(by_tag=by_tag))
        return
    render = {"table": render_table, "csv": render_csv, "markdown": render_markdown}[fmt]
    echo(render(report, by_tag=by_tag), nl=False)


@main.command("faithfulness")
@click.option(
    "--answers", required=True, type=click.Path(dir_okay=False), help="JSONL: question_id, answer."
)
@click.option(
    "--contexts",
    required=True,
    type=click.Path(dir_okay=False),
    help="JSONL: question_id with contexts (a list) or text (one passage per line).",
)
@click.option(
    "--threshold",
    type=float,
    default=0.75,
    show_default=True,
    help="Share of a sentence's terms a passage must hold.",
)
@click.option(
    "--format", "fmt", type=click.Choice(("table", "json")), default="table", show_default=True
)
def faithfulness_command(answers: str, contexts: str, threshold: float, fmt: str) -> None:
    """Which answer sentences do the passages support? A cheap lexical screen, not a judge.

    A sentence is supported when at least --threshold of its terms appear in one passage.
    It misses paraphrases and accepts copied words with a changed meaning: use it to sort
    answers for review, not to certify them.

    \b
    Example:
        labeler faithfulness --answers answers.jsonl --contexts contexts.jsonl --format json
    """
    from labeler.faithfulness import check_answers, mean_faithfulness, read_answers, read_contexts

    given = read_answers(answers)
    passages = read_contexts(contexts)
    checks = check_answers(given, passages, threshold=threshold)
    without = [c.question_id for c in checks if c.passages == 0]
    if without:
        _warn(f"{len(without)} answers have no passage in {contexts} (e.g. {without[0]})")
    mean = mean_faithfulness(checks)
    if fmt == "json":
        echo_json(
            {
                "threshold": threshold,
                "faithfulness": mean,
                "answers": [c.as_dict() for c in checks],
            }
        )
        return
    for check in checks:
        result = check.result
        score = "-" if result.score is None else f"{result.score:.4f}"
        echo(
            f"{check.question_id}: {score} ({result.supported} of {result.counted} sentences"
            f" supported, {check.passages} passages)"
        )
        for s in result.sentences:
            share = "    " if s.share is None else f"{s.share:.2f}"
            missing = [t for t in s.terms if t not in s.found]
            note = f"  [not in the passage: {', '.join(missing)}]" if s.supported is False else ""
            echo(f"  {s.verdict:<9}  {share}  {s.text}{note}")
    shown = "-" if mean is None else f"{mean:.4f}"
    echo(
        f"\nMean faithfulness: {shown} over {len(checks)} answers (a lexical screen: it misses"
        " paraphrases and accepts copied words with a changed meaning)."
    )


__all__ = ["eval_command", "faithfulness_command"]
