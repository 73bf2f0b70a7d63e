"""``labeler remap`` from the command line: a dry run, the report, a repeat, JSON, bad input."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.store import Store
from tests.remap_helpers import BOTH, P_GIFT, P_OPENED, P_UNOPENED, grade, setup
from tests.test_remap_run import everything


@pytest.fixture
def db(store: Store) -> str:
    setup(
        store,
        {"a": BOTH, "g": P_GIFT, "u": P_UNOPENED},
        {"x": P_UNOPENED, "y": P_OPENED, "z": P_GIFT},
    )
    grade(store, "q1", "a", 2)
    grade(store, "q3", "g", 2)
    grade(store, "q3", "u", 0, reviewer="tom")
    return str(store.path)


def run(*args: str):
    return CliRunner().invoke(main, ["remap", *args], catch_exceptions=False)


def test_dry_run_then_report_then_repeat(db: str, store: Store, tmp_path) -> None:
    before = everything(store)
    report = tmp_path / "mapping.csv"
    dry = run("--from", "v1", "--to", "v2", "--db", db, "--dry-run", "--report", str(report))
    assert dry.exit_code == 0
    assert everything(store) == before
    assert "Would write: 2 labels added to 'v2' (history: remap)" in dry.output
    assert "Dry run: nothing was written to the database." in dry.output
    rows = list(csv.DictReader(report.open(encoding="utf-8")))
    assert [(r["question"], r["old_chunk"], r["new_chunk"], r["decision"]) for r in rows] == [
        ("q1", "a", "x", "queued"),
        ("q1", "a", "y", "queued"),
        ("q3", "g", "z", "applied"),
        ("q3", "u", "x", "applied"),
    ]

    done = run("--from", "v1", "--to", "v2", "--db", db)
    assert done.exit_code == 0
    lines = done.output.splitlines()
    assert lines[:4] == [
        "Remap v1 -> v2 (min coverage 0.95): 3 labels, 4 mappings",
        "  applied       2  (identical 2, offsets 0, fuzzy 0)",
        "  queued        2  review them in the app: labeler serve, then Label > Remap queue",
        "  lost          0",
    ]
    assert (
        "Written: 2 labels added to 'v2' (history: remap); 0 unanswerable marks carried." in lines
    )
    assert lines[-1] == (
        "Next: export on the new chunking, e.g. labeler export NAME --chunking v2 (or remap"
        " again with --make-current to grade it in the app)"
    )
    after = everything(store)
    assert after["labels"] == before["labels"] + 2

    again = run("--from", "v1", "--to", "v2", "--db", db)
    assert "Written: 0 labels added to 'v2' (history: remap); 2 already there;" in again.output
    assert everything(store) == after


def test_json_is_the_documented_shape(db: str) -> None:
    result = run("--from", "v1", "--to", "v2", "--db", db, "--format", "json")
    data = json.loads(result.output)
    assert list(data) == ["applied", "queued", "lost", "by_method", "mappings"]
    assert (data["applied"], data["queued"], data["lost"]) == (2, 2, 0)
    assert data["by_method"] == {"identical": 2, "offsets": 0, "fuzzy": 0}
    assert data["mappings"][2] == {
        "question": "q3",
        "reviewer": "maria",
        "old_chunk": "g",
        "new_chunk": "z",
        "grade": 2,
        "method": "identical",
        "coverage": 1.0,
        "containment": 1.0,
        "similarity": 100.0,
        "decision": "applied",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "v1", "--to", "v9"], "Error: field \"to\": no chunking named 'v9'"),
        (["--from", "v1", "--to", "v1"], 'Error: field "to": --from and --to are the same'),
        (
            ["--from", "v1", "--to", "v2", "--min-coverage", "0.2"],
            'Error: field "min-coverage": expected a share between 0.5 and 1.0, got 0.2',
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(
    db: str, store: Store, tmp_path, args, message
) -> None:
    before = everything(store)
    report = tmp_path / "mapping.csv"
    result = CliRunner().invoke(main, ["remap", *args, "--db", db, "--report", str(report)])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert result.output.startswith(message)
    assert everything(store) == before
    assert not report.exists()


def test_a_report_in_a_missing_folder_is_refused_before_anything_is_written(
    db: str, store: Store, tmp_path
) -> None:
    before = everything(store)
    target = tmp_path / "no" / "such" / "mapping.csv"
    result = CliRunner().invoke(
        main, ["remap", "--from", "v1", "--to", "v2", "--db", db, "--report", str(target)]
    )
    assert result.exit_code == 2
    assert result.output.strip() == f"Error: {target}: the folder does not exist"
    assert everything(store) == before


def test_make_current_switches_the_chunking_the_app_grades(db: str, store: Store) -> None:
    assert (
        run("--from", "v1", "--to", "v2", "--db", db, "--dry-run", "--make-current").exit_code == 0
    )
    assert store.corpus.current_chunking() == "v1"
    result = run("--from", "v1", "--to", "v2", "--db", db, "--make-current")
    assert result.output.splitlines()[-1] == "The app now grades 'v2'; export: labeler export NAME"
    assert store.corpus.current_chunking() == "v2"
