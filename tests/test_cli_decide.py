"""``labeler next``: the JSON shape, the table, and bad input (one line, exit code 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.importers import import_run
from labeler.store import Store
from tests.test_sources import DENSE


@pytest.fixture
def db(loaded: Store, tmp_path: Path) -> str:
    run = tmp_path / "dense.trec"
    run.write_text(DENSE, encoding="utf-8")
    import_run(loaded, run)
    return str(loaded.path)


def invoke(*args: str):
    return CliRunner().invoke(main, ["next", *args])


def test_json_is_exactly_the_documented_shape(db: str) -> None:
    result = invoke(
        "--db",
        db,
        "--run",
        "dense",
        "--run",
        "bm25",
        "--metric",
        "ndcg@3",
        "--budget",
        "3",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data) == ["status", "winner", "difference", "probability", "labelled", "pairs"]
    assert data["status"] == "open"
    assert data["winner"] is None
    assert data["labelled"] == 0
    assert list(data["difference"]) == ["low", "high"]
    assert len(data["pairs"]) == 3
    assert all(list(p) == ["question", "chunk", "weight"] for p in data["pairs"])


def test_the_table_says_where_things_stand_and_what_to_grade(db: str, loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    result = invoke("--db", db, "--run", "dense", "--run", "bm25", "--metric", "mrr@3")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(("open: ", "likely: "))
    assert "proven range" in lines[0]
    assert lines[1] == "mrr@3 over 3 questions; 1 of the 9 pairs in the two runs' pool are labelled"
    assert lines[3] == "Next 8 pairs to grade, most decisive first:"
    assert lines[4].split() == ["question", "chunk", "weight"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--run", "bm25", "--run", "bm25"], "compare two different runs, not 'bm25' with itself"),
        (["--run", "bm25", "--run", "nope"], "'nope' is neither an imported run"),
        (["--run", "bm25", "--run", "dense", "--metric", "recall"], "'recall' needs a cutoff"),
        (["--run", "bm25", "--run", "dense", "--confidence", "1"], "between 0.5 and 1"),
        (["--run", "bm25", "--run", "dense", "--confidence", "0.4"], "between 0.5 and 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(db: str, args: list[str], message: str) -> None:
    result = invoke("--db", db, *args)
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_exactly_two_runs(db: str) -> None:
    result = invoke("--db", db, "--run", "bm25")
    assert result.exit_code == 2
    assert "give exactly two runs" in result.output


def test_disagreements_are_settled_by_the_projects_policy(db: str, loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    args = ("--db", db, "--run", "dense", "--run", "bm25", "--metric", "mrr", "--format", "json")
    # majority (a tie goes to the lower grade): rate-limits is 0, so dense and bm25 tie at 0.
    by_majority = invoke(*args)
    assert by_majority.exit_code == 0, by_majority.output
    assert json.loads(by_majority.output)["labelled"] == 1
    by_max = invoke(*args, "--policy", "max")
    assert by_max.exit_code == 0
    assert CliRunner().invoke(main, ["policy", "max", "--db", db]).exit_code == 0
    assert json.loads(invoke(*args).output) == json.loads(by_max.output)
    assert json.loads(by_max.output) != json.loads(by_majority.output)


def test_once_proven_there_is_nothing_more_to_grade(db: str, loaded: Store) -> None:
    for chunk, grade in (("rate-limits", 2), ("error-codes", 0), ("pagination", 0)):
        loaded.labels.set_grade("q1", "default", chunk, "ana", grade)
    result = invoke("--db", db, "--run", "dense", "--run", "bm25", "--metric", "mrr@3")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == (
        "proven: dense better than bm25 on mrr@3; proven range +0.083 to +0.833"
    )
    assert result.output.splitlines()[-1] == "Nothing more to label: the comparison is proven."
