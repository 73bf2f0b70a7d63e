"""Commands that start the app: serve and demo."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from labeler.cli.base import db_option, given_db, main, open_store

APP = Path(__file__).resolve().parents[1] / "app" / "streamlit_app.py"


def streamlit_command(port: int, *, address: str = "localhost") -> list[str]:
    """``streamlit run`` with the settings a labelling server wants (no telemetry, no watcher)."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.port",
        str(port),
        "--server.address",
        address,
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        # Streamlit runs a full garbage collection after every script run by default; with
        # pandas loaded that is ~100 ms, holding the GIL while the run's deltas wait to be
        # sent: most of a key press's latency on the grading page. Python's own generational
        # collector still runs as usual.
        "--runner.postScriptGC",
        "false",
        "--client.toolbarMode",
        "minimal",
        "--theme.base",
        "light",
        "--theme.primaryColor",
        "#1f5fbf",
    ]


def run_app(db_path: Path, port: int, address: str) -> None:
    env = dict(os.environ, LABELER_DB=str(Path(db_path).resolve()))
    click.echo(f"Serving {db_path} at http://{address}:{port}  (Ctrl+C to stop)")
    try:
        raise SystemExit(subprocess.call(streamlit_command(port, address=address), env=env))
    except KeyboardInterrupt:
        raise SystemExit(0) from None


def server_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--port and --address, shared by serve and demo."""
    func = click.option(
        "--address",
        default="localhost",
        show_default=True,
        help="Interface to listen on (0.0.0.0: all).",
    )(func)
    port = click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True)
    return port(func)


@main.command()
@server_options
@db_option
def serve(port: int, address: str, db_path: Path) -> None:
    """Start the labelling app on the database.

    \b
    Example:
        labeler serve --db project.db --port 8502
    """
    with open_store(db_path):
        pass  # creates and migrates the database before the app opens it
    run_app(db_path, port, address)


def _embed_demo(store: Any) -> None:
    """Vectors and dense pools for the demo, with a progress bar (or how to get them)."""
    from labeler.cli.embed import EmbedBar
    from labeler.demo import embed_demo
    from labeler.dense.model import INSTALL_HINT

    bar = EmbedBar("embedding the demo's chunks")
    try:
        reports = embed_demo(store, progress=bar.update)
    finally:
        bar.close()
    for report in reports:
        click.echo(report.summary())
    if not reports:
        click.echo(f"No dense candidates: {INSTALL_HINT}, then labeler demo again.")


@main.command()
@server_options
@click.option("--reset", is_flag=True, help="Start over from a fresh demo database.")
@click.option("--no-serve", is_flag=True, help="Load the demo data and stop (no app).")
@click.option(
    "--db",
    "db_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Demo database (default: ./labeler-demo.db; never your $LABELER_DB).",
)
def demo(port: int, address: str, reset: bool, no_serve: bool, db_path: Path | None) -> None:
    """Load the bundled demo (an Orders API's docs and a company handbook) and start the app.

    The demo has its own database, so it never touches your project's. Loading it again
    changes nothing; --reset starts from scratch (your demo grades are lost).

    \b
    Example:
        labeler demo --port 8502
    """
    from labeler.demo import DEMO_DB, load_demo

    given = given_db(db_path)
    db_path = Path(given) if given else Path.cwd() / DEMO_DB
    if reset:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    with open_store(db_path) as store:
        for report in load_demo(store):
            click.echo(report.summary())
        _embed_demo(store)
    if not no_serve:
        run_app(db_path, port, address)
