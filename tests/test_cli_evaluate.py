"""`labeler eval` and `labeler faithfulness` end to end: formats, exit codes and the gate."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from tests.test_metrics_files import make_version
from tests.test_metrics_worked_examples import g_example

TREC_EVAL = Path(__file__).resolve().parent / "data" / "trec_eval"


def invoke(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def g_files(tmp_path: Path) -> dict[str, Path]:
    """Worked example G as files: qrels and three TREC runs."""
    qrels, runs = g_example()
    files = {"qrels": tmp_path / "qrels.tsv"}
    files["qrels"].write_text(
        "".join(f"{q} 0 {c} {g}\n" for q, labels in qrels.items() for c, g in labels.items()),
        encoding="utf-8",
    )
    for name, run in runs.items():
        files[name] = tmp_path / f"{name}.trec"
        files[name].write_text(
            "".join(
                f"{q} Q0 {c} {rank} {10 - rank} {name}\n"
                for q, chunks in run.items()
                for rank, c in enumerate(chunks, start=1)
            ),
            encoding="utf-8",
        )
    return files


def g_eval(files: dict[str, Path], *runs: str, extra: tuple = ()):
    args = ["eval", "--qrels", files["qrels"], "-k", "3", "--metrics", "recall@k,mrr@k,precision@k"]
    for run in runs:
        args += ["--run", files[run]]
    return invoke(*args, *extra)


def test_g_gate_fails_when_keyword_search_replaces_hybrid(g_files, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    saved = g_eval(g_files, "hybrid", extra=("--save-baseline", baseline))
    assert saved.exit_code == 0
    assert json.loads(baseline.read_text(encoding="utf-8"))["runs"]["hybrid"]["metrics"] == {
        "recall@3": 1.0,
        "mrr@3": 1.0,
        "precision@3": pytest.approx(0.3667, abs=1e-4),
    }
    failed = g_eval(g_files, "keyword", extra=("--baseline", baseline))
    assert failed.exit_code == 1
    assert "recall@3 fell to 0.9000, baseline 1.0000" in failed.stderr
    assert "FAILED" in failed.stderr
    passed = g_eval(g_files, "hybrid", extra=("--baseline", baseline))
    assert passed.exit_code == 0
    assert "passed" in passed.stderr


def test_gate_checks_the_run_named_like_the_baseline(g_files, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    g_eval(g_files, "hybrid", extra=("--save-baseline", baseline))
    both = g_eval(g_files, "keyword", "hybrid", extra=("--baseline", baseline))
    assert both.exit_code == 0  # hybrid is checked, not the first run
    renamed = invoke(
        "eval", "--qrels", g_files["qrels"], "--run", f"hybrid={g_files['keyword']}",
        "-k", "3", "--metrics", "recall@k,mrr@k,precision@k", "--baseline", baseline,
    )  # fmt: skip
    assert renamed.exit_code == 1


def test_gate_refuses_other_options(g_files, tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    g_eval(g_files, "hybrid", extra=("--save-baseline", baseline))
    other = g_eval(g_files, "hybrid", extra=("--baseline", baseline, "--min-grade", "2"))
    assert other.exit_code == 2
    assert "the baseline was computed with min_grade = 1" in other.stderr


def test_table(g_files) -> None:
    result = g_eval(g_files, "hybrid", "keyword", "vector")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["run", "recall@3", "mrr@3", "precision@3"]
    assert lines[1].split() == ["hybrid", "1.0000*", "1.0000*", "0.3667*"]
    assert lines[2].split() == ["keyword", "0.9000", "0.9000", "0.3333"]
    assert lines[3].split() == ["vector", "1.0000*", "0.9500", "0.3667*"]
    assert "Questions: 10 scored; left out of the averages: 0 unanswerable" in result.stdout
    assert "Compared with hybrid over 10 questions" in result.stdout
    keyword_recall = next(line for line in lines if line.startswith("keyword  recall@3"))
    assert keyword_recall.split()[2:] == [
        "1.0000",
        "0.9000",
        "-0.1000",
        "[-0.3000,",
        "+0.0000]",
        "1.0000",
        "0/9/1",
    ]


def test_json(g_files) -> None:
    result = g_eval(g_files, "hybrid", "vector", extra=("--format", "json"))
    data = json.loads(result.stdout)
    assert data["runs"]["vector"] == {
        "metrics": {"recall@3": 1.0, "mrr@3": 0.95, "precision@3": pytest.approx(11 / 30)},
        "questions": 10,
        "unanswerable": 0,
        "no_relevant_label": 0,
        "missing": 0,
        "ignored": 0,
    }
    (mrr,) = [c for c in data["comparisons"] if c["metric"] == "mrr@3"]
    assert mrr["baseline"] == "hybrid"
    assert mrr["run"] == "vector"
    assert mrr["difference"] == pytest.approx(-0.05)
    assert (mrr["wins"], mrr["ties"], mrr["losses"]) == (0, 9, 1)
    assert data["testset"] is None
    assert data["options"]["metrics"] == ["recall@3", "mrr@3", "precision@3"]


def test_csv_and_markdown(g_files) -> None:
    table = list(
        csv.reader(
            io.StringIO(g_eval(g_files, "hybrid", "keyword", extra=("--format", "csv")).stdout)
        )
    )
    assert table[0] == [
        "run",
        "tag",
        "questions",
        "unanswerable",
        "no_relevant_label",
        "missing",
        "recall@3",
        "mrr@3",
        "precision@3",
    ]
    assert table[2][:7] == ["keyword", "", "10", "0", "0", "0", "0.9"]
    markdown = g_eval(g_files, "hybrid", "keyword", extra=("--format", "markdown")).stdout
    assert "| run | recall@3 | mrr@3 | precision@3 |" in markdown
    assert "| hybrid | **1.0000** | **1.0000** | **0.3667** |" in markdown
    assert "| keyword | 0.9000 | 0.9000 | 0.3333 |" in markdown


def test_per_question_csv(g_files, tmp_path: Path) -> None:
    out = tmp_path / "per-question.csv"
    assert g_eval(g_files, "hybrid", "keyword", extra=("--per-question", out)).exit_code == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == ["run", "question", "metric", "value"]
    assert len(rows) == 2 * 10 * 3
    loser = [
        r
        for r in rows
        if r["run"] == "keyword" and r["metric"] == "recall@3" and float(r["value"]) < 1
    ]
    assert [(r["question"], float(r["value"])) for r in loser] == [("q0", 0.0)]


def test_by_tag_with_a_questions_file(g_files, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text(
        "".join(
            json.dumps({"id": f"q{i}", "tags": ["even" if i % 2 == 0 else "odd"]}) + "\n"
            for i in range(10)
        )
        + json.dumps({"id": "q10", "tags": ["even"], "unanswerable": True})
        + "\n",
        encoding="utf-8",
    )
    args = ("--questions", questions, "--by-tag")
    result = g_eval(g_files, "hybrid", "keyword", extra=(*args, "--format", "json"))
    data = json.loads(result.stdout)
    even = data["runs"]["keyword"]["by_tag"]["even"]
    assert even["questions"] == 5  # q0 q2 q4 q6 q8; q10 is unanswerable
    assert even["unanswerable"] == 1
    assert even["missing"] == 1  # q10: the runs have no results for it
    assert even["metrics"]["recall@3"] == pytest.approx(0.8)  # q0 missed
    assert data["runs"]["keyword"]["unanswerable"] == 1
    table = g_eval(g_files, "hybrid", "keyword", extra=args).stdout
    assert "By tag:" in table
    assert any(
        line.split()[:4] == ["even", "keyword", "5", "0.8000"] for line in table.splitlines()
    )


def test_testset_folder(tmp_path: Path) -> None:
    folder = make_version(tmp_path / "exports")
    run = tmp_path / "run.trec"
    run.write_text(
        "q1 Q0 errors 1 2 r\nq1 Q0 rate-limits 2 1 r\nq2 Q0 pagination 1 1 r\n", encoding="utf-8"
    )
    result = invoke(
        "eval",
        "--testset",
        folder,
        "--run",
        run,
        "--metrics",
        "mrr,recall@1",
        "--format",
        "json",
        "--by-tag",
    )
    data = json.loads(result.stdout)
    assert data["testset"]["name"] == "docs-qa"
    assert data["testset"]["version"] == 3
    assert data["testset"]["content_hash"].startswith("sha256:")
    assert data["runs"]["run"]["unanswerable"] == 1
    assert data["runs"]["run"]["metrics"] == {"mrr": 1.0, "recall@1": 0.75}
    assert set(data["runs"]["run"]["by_tag"]) == {"api", "paging"}
    table = invoke("eval", "--testset", tmp_path / "exports" / "docs-qa", "--run", run).stdout
    assert "Test set: docs-qa v3 (content hash sha256:" in table


def test_trec_eval_figures_through_the_cli() -> None:
    result = invoke(
        "eval", "--qrels", TREC_EVAL / "qrels.test", "--run", TREC_EVAL / "results.test",
        "--order", "score", "--metrics", "map,ndcg,precision@10", "--format", "json",
    )  # fmt: skip
    figures = json.loads(result.stdout)["runs"]["results"]["metrics"]
    # out.test: map 0.1785, P_10 0.3000 (all three topics have relevant documents)
    assert f"{figures['map']:.4f}" == "0.1785"
    assert f"{figures['precision@10']:.4f}" == "0.3000"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--metrics", "ndgc@10"), "unknown metric 'ndgc@10'; valid metrics: hit_rate@k"),
        (("-k", "0"), 'field "k": k must be a positive whole number'),
        (("--depth", "0"), 'field "depth"'),
        (("--min-grade", "0"), 'field "min-grade"'),
        (("--baseline-run", "nope"), "no run named 'nope'"),
    ],
)
def test_user_errors_exit_2(g_files, args: tuple, message: str) -> None:
    result = g_eval(g_files, "hybrid", extra=args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_file_errors_exit_2_naming_the_line(g_files, tmp_path: Path) -> None:
    bad = tmp_path / "bad.trec"
    bad.write_text("q0 Q0 c0 1 3 bad\nq0 Q0 c1 2\n", encoding="utf-8")
    result = invoke("eval", "--qrels", g_files["qrels"], "--run", bad)
    assert result.exit_code == 2
    assert "bad.trec:2: expected at least 6 fields" in result.stderr
    missing = invoke("eval", "--qrels", g_files["qrels"], "--run", tmp_path / "nope.trec")
    assert missing.exit_code == 2
    assert "no such file" in missing.stderr


def test_exactly_one_source_of_labels(g_files, tmp_path: Path) -> None:
    neither = invoke("eval", "--run", g_files["hybrid"])
    both = invoke(
        "eval", "--qrels", g_files["qrels"], "--testset", tmp_path, "--run", g_files["hybrid"]
    )
    assert neither.exit_code == both.exit_code == 2
    assert "exactly one of --qrels FILE and --testset DIR" in neither.stderr


def test_two_runs_with_one_name(g_files) -> None:
    result = invoke(
        "eval", "--qrels", g_files["qrels"],
        "--run", f"x={g_files['hybrid']}", "--run", f"x={g_files['keyword']}",
    )  # fmt: skip
    assert result.exit_code == 2
    assert "two runs are named 'x'" in result.stderr


def test_ignored_and_missing_questions_are_warned_about(g_files, tmp_path: Path) -> None:
    run = tmp_path / "partial.trec"
    run.write_text("q0 Q0 c0 1 1 p\nstray Q0 c0 1 1 p\n", encoding="utf-8")
    result = invoke("eval", "--qrels", g_files["qrels"], "--run", run, "--format", "json")
    assert result.exit_code == 0
    assert (
        "run 'partial': 1 questions are not in the test set and were ignored (stray)"
        in result.stderr
    )
    assert "run 'partial': 9 test-set questions have no results (scored 0)" in result.stderr
    data = json.loads(result.stdout)
    assert (data["runs"]["partial"]["missing"], data["runs"]["partial"]["ignored"]) == (9, 1)


def test_faithfulness_command(tmp_path: Path) -> None:
    answer = (
        "You can send 100 requests per minute per API key. Extra requests return status 429."
        " Limits reset every hour."
    )
    passage = (
        "Each API key may send 100 requests per minute. Extra requests return status 429 with"
        " a Retry-After header."
    )
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"question_id": "q1", "answer": answer}) + "\n", encoding="utf-8")
    contexts = tmp_path / "contexts.jsonl"
    contexts.write_text(
        json.dumps({"question_id": "q1", "contexts": [passage]}) + "\n", encoding="utf-8"
    )
    table = invoke("faithfulness", "--answers", answers, "--contexts", contexts)
    assert table.exit_code == 0
    assert "q1: 0.6667 (2 of 3 sentences supported, 1 passages)" in table.stdout
    assert "not found  0.00  Limits reset every hour." in table.stdout
    data = json.loads(
        invoke(
            "faithfulness", "--answers", answers, "--contexts", contexts, "--format", "json"
        ).stdout
    )
    assert data["faithfulness"] == pytest.approx(2 / 3)
    assert [v["verdict"] for v in data["answers"][0]["verdicts"]] == [
        "supported",
        "supported",
        "not found",
    ]
    broken = invoke("faithfulness", "--answers", contexts, "--contexts", contexts)
    assert broken.exit_code == 2
    assert 'field "answer": missing' in broken.stderr


@pytest.mark.parametrize("command", ["eval", "faithfulness"])
def test_help_ends_with_an_example(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "Example:" in result.stdout
    assert f"labeler {command} --" in result.stdout


def test_a_conversational_test_set_is_broken_down_by_turn(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("c::1 0 a 1\nc::2 0 b 1\nd::1 0 c 1\n", encoding="utf-8")
    run = tmp_path / "run.trec"
    run.write_text("c::1 Q0 a 1 3 r\nc::2 Q0 x 1 2 r\nc::2 Q0 b 2 1 r\nd::1 Q0 x 1 1 r\n", "utf-8")
    history = [{"role": "user", "text": "first?"}, {"role": "assistant", "text": "yes"}]
    questions = tmp_path / "questions.jsonl"
    rows = [
        {"id": "c::1", "tags": ["question-type:Factoid"], "conversation": {"id": "c", "turn": 1}},
        {
            "id": "c::2",
            "tags": ["question-type:Factoid"],
            "conversation": {"id": "c", "turn": 2, "history": history},
        },
        {"id": "d::1", "tags": ["question-type:Keyword"], "conversation": {"id": "d", "turn": 1}},
    ]
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ("eval", "--qrels", qrels, "--questions", questions, "--run", run, "--metrics", "mrr")
    table = invoke(*args).stdout
    assert "By turn (the test set holds conversations):" in table
    lines = [line.split() for line in table.splitlines()]
    assert ["turn:", "first", "run", "2", "0.5000"] in lines  # c::1 1.0, d::1 0.0
    assert ["turn:", "later", "run", "1", "0.5000"] in lines
    assert ["question-type:", "Factoid", "run", "2", "0.7500"] in lines
    data = json.loads(invoke(*args, "--format", "json").stdout)
    assert data["runs"]["run"]["by_turn"]["question-type: Keyword"]["metrics"]["mrr"] == 0.0
    assert "turn: first" in invoke(*args, "--format", "csv").stdout
