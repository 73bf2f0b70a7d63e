"""The judge run's other commands: ``judge prompt``, ``judge ratings`` (JSON lines and CSV, safe
in a spreadsheet), ``judge reveal`` and the grading view it changes, and the judge's name."""

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.errors import LabelerError
from labeler.grading import labeling
from labeler.judge.importing import import_judgements
from labeler.judge.prompts import builtin_prompt
from labeler.judge.run import judge_name
from labeler.store import Store
from tests.conftest import write_jsonl

JUDGED = [
    ("q1", "rate-limits", 2, '=HYPERLINK("http://x") answers it'),
    ("q1", "error-codes", 1, "Helps: 429 means wait."),
    ("q2", "pagination", 0, 'Off, "quoted", topic'),
]


@pytest.fixture
def judged(loaded: Store, tmp_path: Path) -> Path:
    rows = [
        {
            "metric": "relevance",
            "rater": "llm",
            "rater_kind": "model",
            "verdict": grade,
            "question": q,
            "chunk_id": c,
            "rationale": reason,
        }
        for q, c, grade, reason in JUDGED
    ]
    import_judgements(loaded, write_jsonl(tmp_path / "judge.jsonl", rows))
    return loaded.path


def cli(db: Path, *args: str):
    return CliRunner().invoke(main, ["--db", str(db), *args])


def test_prompt_prints_the_template_and_its_version() -> None:
    result = CliRunner().invoke(main, ["judge", "prompt", "--metric", "relevance"])
    assert result.exit_code == 0
    prompt = builtin_prompt("relevance")
    assert result.stdout == prompt.text
    assert result.stderr == f"relevance-v1 {prompt.short_hash} (built-in)\n"


def test_ratings_as_json_lines(judged: Path) -> None:
    result = cli(judged, "judge", "ratings", "--metric", "relevance")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["question"], r["chunk"], r["judge"], r["value"], r["reason"]) for r in rows] == [
        ("q1", "error-codes", "llm", 1, "Helps: 429 means wait."),
        ("q1", "rate-limits", "llm", 2, '=HYPERLINK("http://x") answers it'),
        ("q2", "pagination", "llm", 0, 'Off, "quoted", topic'),
    ]
    # imported, not run here: no call behind them
    assert {r["model"] for r in rows} == {None}


def test_ratings_as_csv_never_run_a_formula(judged: Path) -> None:
    result = cli(judged, "judge", "ratings", "--metric", "relevance", "--format", "csv")
    assert result.exit_code == 0, result.output
    table = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["reason"] for r in table] == [
        "Helps: 429 means wait.",
        '\'=HYPERLINK("http://x") answers it',
        'Off, "quoted", topic',
    ]
    assert table[0]["value"] == "1"


def test_ratings_of_an_unknown_judge_or_metric(judged: Path) -> None:
    result = cli(judged, "judge", "ratings", "--metric", "relevance", "--judge", "nobody")
    assert (result.exit_code, result.output) == (2, "Error: field \"judge\": no judge 'nobody'\n")
    result = cli(judged, "judge", "ratings", "--metric", "tone")
    assert result.exit_code == 2
    assert "no metric 'tone'" in result.output


def test_reveal_shows_the_judge_only_after_the_reviewers_own_grade(judged: Path) -> None:
    with Store(judged) as store:
        view = labeling.open_question(store, "q1", "maria")
        assert all(c.judge is None for c in view.candidates)
        labeling.grade(store, "q1", "rate-limits", "maria", 1)
        # off by default: nothing, even after grading
        view = labeling.open_question(store, "q1", "maria")
        assert all(c.judge is None for c in view.candidates)
    result = cli(judged, "judge", "reveal", "llm")
    assert (result.exit_code, result.output) == (
        0,
        "Reviewers see llm's grade after giving their own.\n",
    )
    with Store(judged) as store:
        view = labeling.open_question(store, "q1", "maria")
        shown = {c.chunk.id: c.judge for c in view.candidates if c.judge is not None}
        # rate-limits is graded by maria: shown; error-codes the judge rated but she did not
        assert list(shown) == ["rate-limits"]
        assert (shown["rate-limits"].grade, shown["rate-limits"].reason) == (
            2,
            '=HYPERLINK("http://x") answers it',
        )
        # another reviewer who has graded nothing sees nothing
        assert all(c.judge is None for c in labeling.open_question(store, "q1", "tom").candidates)
    assert cli(judged, "judge", "reveal", "--off").output == "Reviewers see no judge's grade.\n"
    with Store(judged) as store:
        view = labeling.open_question(store, "q1", "maria")
        assert all(c.judge is None for c in view.candidates)
    result = cli(judged, "judge", "reveal", "nobody")
    assert result.exit_code == 2
    assert "'nobody' has no relevance grade; judges: llm" in result.output


def test_a_stale_grade_hides_the_judge_again(judged: Path, files: dict, tmp_path: Path) -> None:
    from labeler.importers import import_chunks
    from tests.conftest import CHUNKS

    with Store(judged) as store:
        labeling.grade(store, "q1", "rate-limits", "maria", 2)
        store.ratings.set_revealed_judge("llm")
        changed = [dict(c) for c in CHUNKS]
        changed[0]["text"] = "Rate limits were rewritten."
        import_chunks(store, write_jsonl(tmp_path / "v2.jsonl", changed), replace_text=True)
        view = labeling.open_question(store, "q1", "maria")
        [card] = [c for c in view.candidates if c.chunk.id == "rate-limits"]
        assert card.stale
        assert card.judge is None


def test_the_judges_name_follows_the_name_rule(loaded: Store) -> None:
    prompt = builtin_prompt("relevance")
    assert judge_name("qwen2.5:7b", prompt) == f"qwen2.5:7b@relevance-v1-{prompt.short_hash}"
    with pytest.raises(LabelerError, match="name the judge with --judge-name"):
        judge_name("m" * 80, prompt)
    with pytest.raises(LabelerError, match="must be 1 to 80 characters"):
        judge_name("m", prompt, "*")
