import json

from click.testing import CliRunner

from labeler.cli import main
from labeler.store import Store


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def test_init_then_the_full_import_sequence(tmp_path, files) -> None:
    db = str(tmp_path / "p.db")
    assert run("init", "--db", db).exit_code == 0
    result = run("import", "chunks", str(files["chunks"]), "--db", db, "--chunking", "v1")
    assert result.output == "chunks: 5 added, 0 updated, 0 unchanged (chunking 'v1')\n"
    assert run("import", "questions", str(files["questions"]), "--db", db).exit_code == 0
    result = run("import", "run", str(files["run"]), "--db", db, "--pool-depth", "3")
    assert result.output == "run: 6 added, 0 updated, 0 unchanged (run 'bm25', top 3 pooled)\n"
    again = run("import", "run", str(files["run"]), "--db", db, "--pool-depth", "3")
    assert again.output == "run: nothing changed (6 already present)\n"
    qrels = tmp_path / "j.qrels"
    qrels.write_text("q1 0 rate-limits 4\nq1 0 pagination 0\n", encoding="utf-8")
    result = run(
        "import", "qrels", str(qrels), "--db", db, "--reviewer", "trec", "--grade-map", "4:2,0:0"
    )
    assert result.output == "qrels: 2 added, 0 updated, 0 unchanged (reviewer 'trec')\n"
    status = json.loads(run("status", "--db", db, "--format", "json").output)
    assert status["chunkings"] == {"v1": 5}
    assert status["counts"] == {
        "questions": 3,
        "waiting": 0,
        "turns": 0,
        "graded": 0,
        "answerable": 1,
        "rejected": 0,
        "unanswerable": 0,
        "policy": "majority",
    }
    assert status["runs"] == {"bm25": {"results": 6, "questions": 2}}
    assert status["labels"]["by_grade"] == {"0": 1, "2": 1}
    assert status["labels"]["by_reviewer"] == {"trec": 2}
    text = run("status", "--db", db).output
    assert "Labels per reviewer: trec: 2" in text
    assert "Questions: 3\nGenerated questions waiting: 0\nTurns: 0\nFully graded: 0\n" in text
    assert "Answerable: 1\n" in text


def test_a_bad_file_exits_2_with_one_line_and_writes_nothing(tmp_path, files) -> None:
    db = str(tmp_path / "p.db")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "ok"}\n{"id": "b"}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["import", "chunks", str(bad), "--db", db])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f'Error: {bad}:2: field "text": missing or empty']
    with Store(db) as store:
        assert store.corpus.count_chunks() == 0


def test_bad_options_exit_2(tmp_path, files) -> None:
    db = str(tmp_path / "p.db")
    result = CliRunner().invoke(
        main, ["import", "qrels", str(files["run"]), "--grade-map", "x", "--db", db]
    )
    assert result.exit_code == 2
    assert 'field "grade-map"' in result.output
    missing = CliRunner().invoke(
        main, ["import", "chunks", str(tmp_path / "none.jsonl"), "--db", db]
    )
    assert missing.exit_code == 2
    assert "no such file" in missing.output


def test_search_prints_ranked_matches(tmp_path, files) -> None:
    db = str(tmp_path / "p.db")
    run("import", "chunks", str(files["chunks"]), "--db", db)
    output = run("search", "next page", "--db", db).output
    assert output.splitlines()[0] == "  1. pagination  (Pagination)"
    hits = json.loads(run("search", "429", "--db", db, "--format", "json").output)
    assert {h["id"] for h in hits} == {"rate-limits", "error-codes"}
    assert run("search", "zebra", "--db", db).output == "No matches.\n"


def test_database_comes_from_option_then_env_then_cwd(tmp_path, files, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    env_db = tmp_path / "env.db"
    run("init", env={"LABELER_DB": str(env_db)})
    assert env_db.exists()
    run("init", env={"LABELER_DB": ""})
    assert (tmp_path / "labeler.db").exists()
    run("init", "--db", str(tmp_path / "opt.db"), env={"LABELER_DB": str(env_db)})
    assert (tmp_path / "opt.db").exists()


def test_demo_loads_without_serving(tmp_path) -> None:
    db = tmp_path / "demo.db"
    result = run("demo", "--no-serve", "--db", str(db))
    assert result.exit_code == 0
    assert "chunks:" in result.output
    again = run("demo", "--no-serve", "--db", str(db))
    assert all("nothing changed" in line for line in again.output.splitlines())
