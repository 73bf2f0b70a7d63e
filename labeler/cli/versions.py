"""Reading the versions of a test set: ``labeler versions`` (list and check) and
``labeler diff`` (what changed between two)."""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import (
    db_option,
    echo_json,
    format_option,
    main,
    open_store,
    quote,
    shown_path,
)
from labeler.cli.export import out_option
from labeler.config import exports_dir


@main.command("versions")
@click.argument("name")
@out_option
@format_option
@db_option
def versions_cmd(name: str, out: str | None, fmt: str, db_path: Path) -> None:
    """List the versions of test set NAME, each checked against its content hash.

    A version whose files were changed after export is reported, and the command then fails
    (exit code 2), so CI can run it as a check.

    \b
    Example:
        labeler versions orders-faq
    """
    from labeler.versions.history import check_intact, list_versions

    out = exports_dir(db_path, out)
    if db_path.exists():
        with open_store(db_path) as store:
            infos = list_versions(out, name, store=store)
    else:
        infos = list_versions(out, name)
    if fmt == "json":
        echo_json([info.as_dict() for info in infos])
    elif not infos:
        click.echo(
            f"No versions of {name!r} in {shown_path(out)}"
            f" (create one with `labeler export {name}`)."
        )
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


def _diff_lines(diff) -> list[str]:
    from labeler.conversations import describe_turn

    lines = []
    marks = {"added": "+", "removed": "-", "edited": "~", "relabelled": "~"}
    for change in diff.questions:
        text = (change.new or change.old).question
        lines.append(f"{marks[change.status]} {change.id} ({change.status}) {quote(text, 70)}")
        for name in change.fields:
            if name == "conversation":
                old, new = describe_turn(change.old.turn), describe_turn(change.new.turn)
                lines.append(f"    conversation: {old} -> {new}")
                continue
            old = getattr(change.old, name)
            new = getattr(change.new, name)
            if name in ("question", "reference_answer"):
                old, new = quote(old), quote(new)
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
@db_option
def diff_cmd(name: str, old: str, new: str, out: str | None, fmt: str, db_path: Path) -> None:
    """What changed in test set NAME from version OLD to version NEW, question by question.

    Versions are written v3, 3 or latest. Shows each question added, removed or edited (text,
    reference answer, tags, unanswerable) and each label added, removed or regraded.

    \b
    Example:
        labeler diff orders-faq v1 v2 --format json
    """
    from labeler.versions.diff import diff_versions
    from labeler.versions.history import resolve_version

    out = exports_dir(db_path, out)
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


__all__ = ["diff_cmd", "versions_cmd"]
