"""Reading the versions of a test set: ``labeler versions`` (list and check) and
``labeler diff`` (what changed between two)."""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import (
    db_option,
    echo,
    echo_json,
    format_option,
    main,
    open_store,
    quote,
    shown_path,
)
from labeler.cli.export import out_option
from labeler.config import exports_dir
from labeler.errors import LabelerError


class VersionsGroup(click.Group):
    """``labeler versions NAME`` lists a test set's versions (``versions list NAME``);
    ``labeler versions verify PATH`` checks a copy. A first word that is not a subcommand is a
    test set's name."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        first = next((a for a in args if not a.startswith("-")), None)
        if first is not None and first not in self.commands:
            args = ["list", *args]
        return super().parse_args(ctx, args)


@main.group("versions", cls=VersionsGroup)
def versions_group() -> None:
    """List the versions of a test set (labeler versions NAME), or check a copy of one.

    \b
    Example:
        labeler versions orders-faq
        labeler versions verify exports/orders-faq/v3 --public-key orders.pub
    """


def _version_line(info) -> str:
    manifest = info.manifest or {}
    counts = manifest.get("counts") or {}
    created = str(manifest.get("created", "?"))[:16].replace("T", " ")
    digest = str(manifest.get("content_hash", "?"))
    partial = counts.get("partial")
    return (
        f"v{info.number:<4} {created:<16}  {counts.get('questions', '?'):>6} questions"
        f" ({counts.get('unanswerable', '?')} unanswerable"
        + ("" if partial is None else f", {partial} partial")
        + f")  {counts.get('qrels', '?'):>7} qrels  {digest[:19]}…  {info.status()}"
        + ("" if info.exported_by is None else f"  by {info.exported_by}")
    )


@versions_group.command("list")
@click.argument("name")
@out_option
@format_option
@db_option
def versions_cmd(name: str, out: str | None, fmt: str, db_path: Path) -> None:
    """List the versions of test set NAME, each checked: files, hash and signature.

    A version whose files were changed after export, one with an extra file, one whose
    signature does not hold, and (beside the database) one it exported that is gone from disk
    are reported, and the command then fails (exit code 2), so CI can run it as a check.
    `labeler versions NAME` is short for `labeler versions list NAME`.

    \b
    Example:
        labeler versions list orders-faq
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
        echo(
            f"No versions of {name!r} in {shown_path(out)}"
            f" (create one with `labeler export {name}`)."
        )
    for info in infos if fmt == "text" else ():
        echo(_version_line(info))
    check_intact(infos)


@versions_group.command("verify")
@click.argument("path", type=click.Path(file_okay=False))
@click.option(
    "--public-key",
    type=click.Path(dir_okay=False),
    help="The public key that must have signed it (from `labeler key show` or `labeler key"
    " export-public`); default: this project's key when its database is at hand.",
)
@format_option
@db_option
def verify_cmd(path: str, public_key: str | None, fmt: str, db_path: Path) -> None:
    """Check a copy of a version, anywhere: its files, its hash and its signature.

    PATH is a version folder (v3), or a test set's folder (each of its versions). Exit 0 when
    every version is intact and signed by the key expected; 2 when one is not, saying what
    differs: a file, a manifest field, an extra file, a bad signature, an unknown key. With no
    --public-key and no database at hand, a signature is checked against the key it carries,
    which proves the copy whole but not who signed it.

    \b
    Example:
        labeler versions verify exports/orders-faq/v3 --public-key orders.pub
    """
    from labeler.versions.history import verify_copies

    if public_key is None and db_path.exists():
        with open_store(db_path) as store:
            infos = verify_copies(path, store=store)
    else:
        infos = verify_copies(path, public_key=public_key)
    if fmt == "json":
        echo_json([info.as_dict() for info in infos])
    else:
        for info in infos:
            echo(f"{'ok' if info.intact else 'FAILED'}  {info.path}  {info.status()}")
    broken = [info for info in infos if not info.intact]
    if broken:
        msg = (
            f"{len(broken)} of {len(infos)} version{'' if len(infos) == 1 else 's'} failed the"
            f" check: " + "; ".join(f"{i.path.name} {i.status()}" for i in broken)
        )
        raise LabelerError(msg, path=path)


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
    echo(f"{name} {old_path.name} -> {new_path.name}")
    echo(
        f"questions: {summary['questions_added']} added, {summary['questions_removed']} removed,"
        f" {summary['questions_edited']} edited"
    )
    echo(
        f"labels: {summary['labels_added']} added, {summary['labels_removed']} removed,"
        f" {summary['labels_regraded']} regraded"
    )
    if summary["chunks_changed"]:
        echo(f"chunks: {summary['chunks_changed']} changed")
    if diff.empty:
        echo("No differences.")
        return
    echo("")
    for line in _diff_lines(diff):
        echo(line)


__all__ = ["diff_cmd", "verify_cmd", "versions_cmd", "versions_group"]
