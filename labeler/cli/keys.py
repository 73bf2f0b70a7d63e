"""``labeler key``: the project's signing key. Its public part is shown and exported; its
private part never leaves the database (no command prints, logs or writes it)."""

from __future__ import annotations

from pathlib import Path

import click

from labeler.cli.base import db_option, echo_json, main, open_store

KEY_FORMATS = ("pem", "base64", "json")


def _public_key(db_path: Path):
    """The project's public key; the database must exist (``open_store`` creates none)."""
    from labeler.versions.signing import project_key

    with open_store(db_path) as store:
        return project_key(store).public, store.keys.created_at()


@main.group("key")
def key_group() -> None:
    """The project's signing key: every exported version is signed with it.

    Give its public key to whoever receives your test sets: `labeler versions verify PATH
    --public-key FILE` (and `labeler eval --public-key FILE`) then proves a copy is the one
    this project exported.

    \b
    Example:
        labeler key show
    """


@key_group.command("show")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(KEY_FORMATS),
    default="pem",
    show_default=True,
    help="pem: a PEM block (openssl reads it); base64: the 32 raw bytes on one line; json: both,"
    " with the fingerprint.",
)
@db_option
def key_show(fmt: str, db_path: Path) -> None:
    """Print the project's public key; its fingerprint goes to stderr.

    Either form is accepted by --public-key. The fingerprint (SHA256:...) is what signature.json
    and `labeler versions` name, short enough to compare by eye or read aloud.

    \b
    Example:
        labeler key show > orders.pub
    """
    public, created = _public_key(db_path)
    if fmt == "json":
        echo_json(
            {
                "algorithm": "Ed25519",
                "fingerprint": public.fingerprint,
                "public_key_pem": public.pem(),
                "public_key_base64": public.base64(),
                "created": created,
            }
        )
        return
    click.echo(f"Ed25519 public key {public.fingerprint}", err=True)
    click.echo(public.pem().rstrip("\n") if fmt == "pem" else public.base64())


@key_group.command("export-public")
@click.argument("file", type=click.Path())
@db_option
def key_export_public(file: str, db_path: Path) -> None:
    """Write the project's public key to FILE (PEM), to ship beside your test sets.

    \b
    Example:
        labeler key export-public exports/orders.pub
    """
    from labeler.versions.signing import write_public_key

    public, _ = _public_key(db_path)
    path = write_public_key(file, public)
    click.echo(f"Wrote {path} ({public.fingerprint})")


__all__ = ["key_export_public", "key_group", "key_show"]
