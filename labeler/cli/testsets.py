"""Commands for test-set versions: export, versions, diff, convert, adjudicate; and the imports
of test sets (ours or BEIR), Ragas test sets and DeepEval goldens.

The registries (formats, policies) load without the store; everything else is imported inside
the command that needs it, so ``labeler --help`` and ``labeler eval`` start fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from labeler.cli.base import db_option, echo_json, main, open_store
from labeler.cli.corpus import import_group
from labeler.exporters.consensus import POLICIES
from labeler.exporters.convert import FORMATS

DEFAULT_OUT = "exports"
SHOWN_DISAGREEMENTS = 50

format_option = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
out_option = click.option(
    "--out",
    default=DEFAULT_OUT,
    show_default=True,
    type=click.Path(file_okay=False),
    help="Folder holding the test sets (one sub-folder per name).",
)


def _quote(text: str | None, width: int = 100) -> str:
    """Untrusted text on a terminal: one line, escaped (no control characters), shortened."""
    if text is None:
        return "(none)"
    flat = " ".join(text.split())
    if len(flat) > width:
        flat = flat[: width - 1] + "…"
    return json.dumps(flat, ensure_ascii=False)


def _grades(counts: dict) -> str:
    per = counts.get("labels_per_grade", {})
    return ", ".join(f"{g}: {per.get(g, 0)}" for g in ("0", "1", "2"))


def _changes(summary: dict | None, parent: int | None) -> str | None:
    if not summary or parent is None:
        return None
    return (
        f"since v{parent}: {summary['questions_added']} questions added,"
        f" {summary['questions_removed']} removed, {summary['questions_edited']} edited;"
        f" {summary['labels_added']} labels added, {summary['labels_removed']} removed,"
        f" {summary['labels_regraded']} regraded"
        + (
            f"; {summary['chunks_changed']} chunk texts changed"
            if summary["chunks_changed"]
            else ""
        )
    )


# export -----------------------------------------------------------------------------------


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
    type=click.Choice(list(POLICIES)),
    default=None,
    help="How to settle reviewers' disagreements (default: stop and list them).",
)
@click.option("--dry-run", is_flag=True, help="Show what would be written; write nothing.")
@format_option
@db_option
def export_cmd(
    name: str,
    out: str,
    chunking: str | None,
    tags: tuple[str, ...],
    min_reviewers: int,
    include_pending: bool,
    min_grade: int,
    policy: str | None,
    dry_run: bool,
    fmt: str,
    db_path: Path,
) -> None:
    """Write the labels as the next version of test set NAME: OUT/NAME/vN.

    The version holds manifest.json, questions.jsonl, qrels.tsv and chunks.jsonl, is never
    changed once written, and is not written at all when an existing version already holds
    the same content. Reviewers' disagreements stop the export unless --policy settles them.

    \b
    Example:
        labeler export orders-faq --policy majority
    """
    from labeler.exporters.consensus import DisagreementError
    from labeler.exporters.testset import Selection, export_testset

    selection = Selection(
        tags=tags,
        min_reviewers=min_reviewers,
        include_pending=include_pending,
        min_grade=min_grade,
        policy=policy,
    )
    with open_store(db_path) as store:
        try:
            result = export_testset(
                store, name, out=out, selection=selection, chunking=chunking, dry_run=dry_run
            )
        except DisagreementError as error:
            click.echo("Disagreements (question / chunk: reviewer grade):", err=True)
            for item in error.disagreements[:SHOWN_DISAGREEMENTS]:
                click.echo("  " + item.describe(), err=True)
            if len(error.disagreements) > SHOWN_DISAGREEMENTS:
                click.echo(
                    f"  … and {len(error.disagreements) - SHOWN_DISAGREEMENTS} more", err=True
                )
            raise
    if fmt == "json":
        echo_json(result.as_dict())
        return
    data = result.as_dict()
    counts = data["counts"]
    if result.status == "unchanged":
        click.echo(
            f"Unchanged: v{result.version} already holds this content ({data['content_hash']});"
            " nothing written."
        )
        return
    verb = "Created" if result.status == "created" else "Would create"
    parent = f"parent v{data['parent']}" if data["parent"] else "first version"
    click.echo(f"{verb} {result.path} ({parent}, chunking {data['chunking']!r})")
    click.echo(
        f"  questions: {counts['questions']} ({counts['unanswerable']} unanswerable;"
        f" {counts['answerable']} answerable, of which {counts.get('no_relevant_label', 0)} with"
        f" no relevant label at min grade {data['selection']['min_grade']})"
    )
    click.echo(
        f"  qrels: {counts['qrels']} (grade {_grades(counts)}) over {counts['chunks']} chunks,"
        f" {counts['reviewers']} reviewer{'' if counts['reviewers'] == 1 else 's'}"
    )
    click.echo(f"  content hash: {data['content_hash']}")
    changes = _changes(data["changes"], data["parent"])
    if changes:
        click.echo(f"  {changes}")
    if data["stale_labels"]:
        click.echo(
            f"Warning: {data['stale_labels']} stale label{'s' if data['stale_labels'] != 1 else ''}"
            " left out: their chunk's text changed since they were given; a reviewer confirms"
            " or changes them on the grading page.",
            err=True,
        )
    if data["missing_chunks"]:
        click.echo(
            f"Warning: {data['missing_chunks']} graded chunks are no longer in chunking"
            f" {data['chunking']!r}; their grades were left out.",
            err=True,
        )


# versions ---------------------------------------------------------------------------------


@main.command("versions")
@click.argument("name")
@out_option
@format_option
@db_option
def versions_cmd(name: str, out: str, fmt: str, db_path: Path) -> None:
    """List the versions of test set NAME, each checked against its content hash.

    A version whose files were changed after export is reported, and the command then fails
    (exit code 2), so CI can run it as a check.

    \b
    Example:
        labeler versions orders-faq
    """
    from labeler.exporters.history import check_intact, list_versions

    if db_path.exists():
        with open_store(db_path) as store:
            infos = list_versions(out, name, store=store)
    else:
        infos = list_versions(out, name)
    if fmt == "json":
        echo_json([info.as_dict() for info in infos])
    elif not infos:
        click.echo(f"No versions of {name!r} in {out} (create one with `labeler export {name}`).")
    for info in infos if fmt == "text" else ():
        manifest = info.manifest or {}
        counts = manifest.get("counts") or {}
        created = str(manifest.get("created", "?"))[:16].replace("T", " ")
        digest = str(manifest.get("content_hash", "?"))
        click.echo(
            f"v{info.number:<4} {created:<16}  {counts.get('questions', '?'):>6} questions"
            f" ({counts.get('unanswerable', '?')} unanswerable)  {counts.get('qrels', '?'):>7}"
            f" qrels  {digest[:19]}…  {info.status()}"
        )
    check_intact(infos)


# diff -------------------------------------------------------------------------------------


def _diff_lines(diff) -> list[str]:
    lines = []
    marks = {"added": "+", "removed": "-", "edited": "~", "relabelled": "~"}
    for change in diff.questions:
        text = (change.new or change.old).question
        lines.append(f"{marks[change.status]} {change.id} ({change.status}) {_quote(text, 70)}")
        for name in change.fields:
            old = getattr(change.old, name)
            new = getattr(change.new, name)
            if name in ("question", "reference_answer"):
                old, new = _quote(old), _quote(new)
            elif name == "tags":
                old, new = ", ".join(old) or "(none)", ", ".join(new) or "(none)"
            label = {"question": "text", "reference_answer": "reference"}.get(name, name)
            lines.append(f"    {label}: {old} -> {new}")
        for label in change.labels:
            old = "-" if label.old is None else label.old
            new = "-" if label.new is None else label.new
            lines.append(f"    {label.chunk_id}: {old} -> {new} ({label.kind})")
    for chunk_id in diff.chunks_changed:
        lines.append(f"~ chunk {chunk_id}: text, title or document changed")
    return lines


@main.command("diff")
@click.argument("name")
@click.argument("old")
@click.argument("new")
@out_option
@format_option
def diff_cmd(name: str, old: str, new: str, out: str, fmt: str) -> None:
    """What changed in test set NAME from version OLD to version NEW, question by question.

    Versions are written v3, 3 or latest. Shows each question added, removed or edited (text,
    reference answer, tags, unanswerable) and each label added, removed or regraded.

    \b
    Example:
        labeler diff orders-faq v1 v2 --format json
    """
    from labeler.exporters.diff import diff_versions
    from labeler.exporters.history import resolve_version

    old_path = resolve_version(out, name, old)
    new_path = resolve_version(out, name, new)
    diff = diff_versions(old_path, new_path)
    if fmt == "json":
        echo_json({"name": name, "old": old_path.name, "new": new_path.name, **diff.as_dict()})
        return
    summary = diff.summary()
    click.echo(f"{name} {old_path.name} -> {new_path.name}")
    click.echo(
        f"questions: {summary['questions_added']} added, {summary['questions_removed']} removed,"
        f" {summary['questions_edited']} edited"
    )
    click.echo(
        f"labels: {summary['labels_added']} added, {summary['labels_removed']} removed,"
        f" {summary['labels_regraded']} regraded"
    )
    if summary["chunks_changed"]:
        click.echo(f"chunks: {summary['chunks_changed']} changed")
    if diff.empty:
        click.echo("No differences.")
        return
    click.echo("")
    for line in _diff_lines(diff):
        click.echo(line)


# convert ----------------------------------------------------------------------------------


CONVERT_HELP = (
    "Write VERSION (a version folder) in other tools' formats; never from the live database."
    "\n\nThe version is checked against its content hash first. Repeat --to for several"
    " formats, or --to all: their files share the --out folder (their names never collide)."
    "\n\n\b\nFormats:\n"
    + "\n".join(f"    {f.name:<9} {f.files} ({f.consumer})" for f in FORMATS.values())
    + "\n\n\b\nExample:\n    labeler convert exports/orders-faq/v2 --to ragas --out ragas/"
)


@main.command("convert", help=CONVERT_HELP)
@click.argument("version", type=click.Path(file_okay=False))
@click.option(
    "--to",
    "formats",
    type=click.Choice([*FORMATS, "all"]),
    multiple=True,
    required=True,
    help="Format to write (repeatable; all: every format).",
)
@click.option(
    "--out",
    default=None,
    type=click.Path(file_okay=False),
    help="Folder to write into (default: ./<name>-v<N>-<format>, or -formats for several).",
)
@click.option(
    "--min-grade",
    type=click.IntRange(1, 2),
    default=None,
    help="Grade from which a chunk is a reference context (default: the version's).",
)
@db_option
def convert_cmd(
    version: str, formats: tuple[str, ...], out: str | None, min_grade: int | None, db_path: Path
) -> None:
    from labeler.exporters.convert import convert
    from labeler.exporters.history import check_record
    from labeler.version_format import read_manifest

    if db_path.exists():  # the database that exported the version, when at hand, is a witness
        with open_store(db_path) as store:
            check_record(store, version, read_manifest(Path(version)))
    for path in convert(version, formats, out=out, min_grade=min_grade):
        click.echo(str(path))


# adjudicate -------------------------------------------------------------------------------


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
    from labeler.exporters.consensus import adjudicate

    value = None if grade == "clear" else int(grade)
    with open_store(db_path) as store:
        previous = adjudicate(store, question, chunk, value, reviewer, note=note, chunking=chunking)
    before = "none" if previous is None else previous
    after = "none" if value is None else value
    click.echo(f"Adjudicated {question} / {chunk}: {before} -> {after}")


# imports ----------------------------------------------------------------------------------


@import_group.command("testset")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option(
    "--chunking",
    default=None,
    help="Chunking to put the chunks in (default: the version's; for BEIR, the current one).",
)
@click.option(
    "--reviewer",
    default=None,
    help="Whose labels the qrels become (default: testset:<name>@v<N>).",
)
@click.option(
    "--allow-modified", is_flag=True, help="Import a version even if changed after export."
)
@click.option("--split", default="test", show_default=True, help="BEIR: which qrels/<split>.tsv.")
@click.option("--grade-map", default=None, help="BEIR: map the dataset's scale onto 0/1/2.")
@db_option
def import_testset_cmd(
    folder: str,
    chunking: str | None,
    reviewer: str | None,
    allow_modified: bool,
    split: str,
    grade_map: str | None,
    db_path: Path,
) -> None:
    """A test-set version folder (ours, checked against its hash) or a BEIR folder.

    Chunks, questions, the qrels as a reviewer's labels and the unanswerable marks come in;
    exporting again gives the same content hash.

    \b
    Example:
        labeler import testset exports/orders-faq/v3
    """
    from labeler.importers import parse_grade_map
    from labeler.importers.testset import import_testset

    mapping = parse_grade_map(grade_map)
    with open_store(db_path) as store:
        result = import_testset(
            store,
            folder,
            chunking=chunking,
            reviewer=reviewer,
            allow_modified=allow_modified,
            split=split,
            grade_map=mapping,
        )
    click.echo(
        f"Imported a {'version' if result.kind == 'version' else 'BEIR folder'} into chunking"
        f" {result.chunking!r} as reviewer {result.reviewer!r}"
    )
    for report in result.reports:
        click.echo("  " + report.summary())


def _generated_report(result, fmt: str) -> None:
    if fmt == "json":
        echo_json(result.as_dict())
        return
    click.echo(result.summary())
    if result.unmatched_total:
        shown = len(result.unmatched)
        click.echo(
            f"Unmatched contexts (first {shown} of {result.unmatched_total}), chunking"
            f" {result.chunking!r}:"
        )
        for item in result.unmatched:
            click.echo(f"  line {item.line} ({item.question_id}): {_quote(item.preview(90))}")


generated_options = [
    click.option(
        "--chunking", default=None, help="Chunking to match contexts in (default: current)."
    ),
    click.option("--tag", "tags", multiple=True, help="Tag the questions this import adds."),
    format_option,
    db_option,
]


def _with_options(func):
    for option in reversed(generated_options):
        func = option(func)
    return func


@import_group.command("ragas")
@click.argument("file", type=click.Path(dir_okay=False))
@_with_options
def import_ragas_cmd(
    file: str, chunking: str | None, tags: tuple[str, ...], fmt: str, db_path: Path
) -> None:
    """A Ragas test set (CSV, JSON or JSONL) as generated questions awaiting review.

    Reads user_input/question, reference/ground_truth, reference_contexts/contexts and
    synthesizer_name; matches each context to a chunk (exactly, then fuzzily) and adds the
    matches to the question's candidates; reports the contexts it could not match.

    \b
    Example:
        labeler import ragas testset.csv --tag synthetic
    """
    from labeler.importers.ragas import import_ragas

    with open_store(db_path) as store:
        result = import_ragas(store, file, chunking=chunking, tags=tags)
    _generated_report(result, fmt)


@import_group.command("deepeval")
@click.argument("file", type=click.Path(dir_okay=False))
@_with_options
def import_deepeval_cmd(
    file: str, chunking: str | None, tags: tuple[str, ...], fmt: str, db_path: Path
) -> None:
    """DeepEval goldens (JSON, JSONL, or CSV with |-joined lists) as questions to review.

    Reads input, expected_output, context and additional_metadata; matches each context to a
    chunk (exactly, then fuzzily) and adds the matches to the question's candidates; reports
    the contexts it could not match.

    \b
    Example:
        labeler import deepeval goldens.json
    """
    from labeler.importers.deepeval import import_deepeval

    with open_store(db_path) as store:
        result = import_deepeval(store, file, chunking=chunking, tags=tags)
    _generated_report(result, fmt)


__all__ = [
    "adjudicate_cmd",
    "convert_cmd",
    "diff_cmd",
    "export_cmd",
    "import_deepeval_cmd",
    "import_ragas_cmd",
    "import_testset_cmd",
    "versions_cmd",
]
