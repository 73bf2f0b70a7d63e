"""``labeler pool``: inspect pools in three formats, compute them ahead, refuse bad input."""

from __future__ import annotations

import json

from click.testing import CliRunner

from labeler.cli import main
from labeler.store import Store


def _run(db, *args: str):
    return CliRunner().invoke(main, ["pool", *args, "--db", str(db)])


def test_pool_shows_every_source_in_each_format(loaded: Store) -> None:
    loaded.pools.add("q3", "default", ["pagination"], source="search", added_by="ana")
    db = loaded.path
    shown = json.loads(_run(db, "q3", "--format", "json").output)
    assert [p["question"] for p in shown] == ["q3"]
    sources = {c["chunk"]: c["sources"] for c in shown[0]["candidates"]}
    assert sources == {
        "error-codes": [{"kind": "search", "name": "bm25", "rank": 1}],
        "pagination": [{"kind": "added", "name": "ana", "rank": None}],
    }
    lines = _run(db, "--all", "--format", "jsonl").output.splitlines()
    assert [json.loads(line)["question"] for line in lines] == ["q1", "q2", "q3"]
    table = _run(db, "q3").output.splitlines()
    assert table[0].split() == ["question", "chunk", "sources"]
    assert "error-codes  search bm25 #1" in " ".join(table[1:])


def test_compute_fills_the_pools_once_and_resumes(loaded: Store) -> None:
    db = loaded.path
    first = _run(db, "--compute", "q1", "--format", "json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.output.splitlines()[-1])["computed"] == 1
    again = _run(db, "--compute", "--all")
    assert "2 computed, 1 already current" in again.output
    assert loaded.scalar("SELECT count(*) FROM pool_fts_state") == 3


def test_bad_input_is_one_line_and_exit_2(loaded: Store) -> None:
    db = loaded.path
    for args, message in [
        ((), "name the questions"),
        (("q1", "--all"), "not both"),
        (("nope",), "unknown question id 'nope'"),
    ]:
        result = _run(db, *args)
        assert result.exit_code == 2
        assert message in result.output
