"""``labeler judge ...`` and ``labeler agreement`` on the command line: exit codes, one-line
errors, and the report's JSON shape."""

import json

from click.testing import CliRunner

from labeler.cli import main
from labeler.store import Store
from tests.conftest import DATA

RAGAS_ANNOTATED = DATA / "formats" / "ragas" / "annotated_data.json"
DEEPEVAL_RUN = DATA / "formats" / "deepeval" / "test_run_sample.json"


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_import_report_sample_export(tmp_path) -> None:
    db = tmp_path / "p.db"
    result = run("judge", "import", RAGAS_ANNOTATED, "--db", db)
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == (
        "ragas-annotated: 42 ratings added, 0 updated, 0 unchanged; 21 new items"
    )
    again = json.loads(
        run("judge", "import", RAGAS_ANNOTATED, "--db", db, "--format", "json").output
    )
    assert (again["added"], again["unchanged"]) == (0, 42)

    report = json.loads(run("judge", "report", "--db", db, "--format", "json").output)
    helpfulness = report["metrics"]["helpfulness"]
    assert set(report) == {"metrics"}
    assert helpfulness["scale"] == "binary"
    judge = helpfulness["judges"]["ragas"]
    assert judge["items"] == 21
    assert judge["confusion"]["matrix"] == [[9, 2], [3, 7]]  # rows: people fail, pass
    assert judge["agreement"] == 16 / 21
    assert helpfulness["humans"] == {
        **helpfulness["humans"],
        "alpha": None,
        "raters": ["ragas-annotator"],
        "pairs": [],
    }

    text = run("judge", "report", "--db", db, "--metric", "helpfulness").output
    assert "ragas on helpfulness: it agrees with the human verdict on 16 of 21 items" in text
    markdown = run("judge", "report", "--db", db, "--format", "markdown").output
    assert markdown.startswith("# Judge report\n\n## helpfulness")

    sample = run(
        "judge",
        "sample",
        "--db",
        db,
        "--metric",
        "helpfulness",
        "--per-stratum",
        "4",
        "--seed",
        "9",
    )
    assert sample.exit_code == 0
    assert sample.output.startswith("plan 'helpfulness-ragas-seed9' saved: 8 items")
    out = tmp_path / "aligned.json"
    exported = run("judge", "export", "--to", "ragas-annotated", "--db", db, "--out", out)
    assert exported.output == f"Wrote {out} (ragas-annotated): helpfulness 21\n"
    assert len(json.loads(out.read_text())["helpfulness"]) == 21


def test_bad_input_exits_2_with_one_line(tmp_path) -> None:
    db = tmp_path / "p.db"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"item": "x", "metric": "m", "rater": "j", "rater_kind": "model", "verdict": "high"}\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["judge", "import", str(bad), "--db", str(db)])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: {bad}:1: field \"verdict\": expected a number or pass/fail, got 'high'\n"
    )
    with Store(db) as store:
        assert store.scalar("SELECT count(*) FROM ratings") == 0
    scale = CliRunner().invoke(
        main, ["judge", "import", str(bad), "--db", str(db), "--metric-scale", "m=ordinal:3"]
    )
    assert scale.exit_code == 2
    assert "expected binary, ordinal:LO-HI" in scale.output
    unknown = CliRunner().invoke(main, ["judge", "report", "--db", str(db), "--metric", "nope"])
    assert (unknown.exit_code, unknown.output) == (
        2,
        "Error: field \"metric\": no ratings of the metric 'nope'\n",
    )


def test_define_and_metrics(tmp_path) -> None:
    db = tmp_path / "p.db"
    run("judge", "import", DEEPEVAL_RUN, "--db", db)
    result = run(
        "judge",
        "define",
        "Faithfulness",
        "--threshold",
        "0.8",
        "--definition",
        "Every claim is in the contexts.",
        "--db",
        db,
    )
    assert result.output == "Faithfulness: saved\n"
    listed = json.loads(run("judge", "metrics", "--db", db, "--format", "json").output)
    faith = next(m for m in listed if m["name"] == "Faithfulness")
    assert (faith["threshold"], faith["threshold_source"], faith["definition"]) == (
        0.8,
        "stated",
        "Every claim is in the contexts.",
    )
    assert faith["judges"] == ["gpt-5.4"]
    new = CliRunner().invoke(main, ["judge", "define", "tone", "--db", str(db)])
    assert new.exit_code == 2
    assert "'tone' is a new metric: give its --scale" in new.output


def test_agreement_json(loaded: Store) -> None:
    from labeler.grading import labeling

    labeling.grade(loaded, "q1", "rate-limits", "ana", 2)
    labeling.grade(loaded, "q1", "rate-limits", "bo", 1)
    labeling.grade(loaded, "q1", "pagination", "ana", 0)
    labeling.grade(loaded, "q1", "pagination", "bo", 0)
    found = json.loads(run("agreement", "--db", loaded.path, "--format", "json").output)
    assert found["reviewers"] == ["ana", "bo"]
    assert found["items"] == 2
    assert found["pairs"] == [{"a": "ana", "b": "bo", "items": 2, "kappa": None, "agreement": 0.5}]
    assert found["most_disagreement"][0]["question_id"] == "q1"
    text = run("agreement", "--db", loaded.path, "--tag", "api").output
    assert "Questions with the most disagreement:" in text
