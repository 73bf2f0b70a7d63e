"""The test-set commands through click: output, --format json, exit codes."""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.store import Store
from labeler.versions.signing import project_key
from tests.conftest import retext

FORMATS = Path(__file__).resolve().parent / "data" / "formats"


def fingerprint(store: Store) -> str:
    return project_key(store).public.fingerprint


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def project(loaded: Store, tmp_path: Path, monkeypatch) -> Path:
    """A graded database, the working directory in tmp_path (so exports/ lands there)."""
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    loaded.labels.set_grade("q1", "default", "error-codes", "ana", 1)
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 2)
    loaded.labels.set_mark("q3", "default", "ana", mark="unanswerable", value=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    return tmp_path


def test_export_then_again(project: Path) -> None:
    result = run("export", "orders")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "Created exports/orders/v1 (first version, chunking 'default')"
    assert lines[1] == (
        "  questions: 3 (1 marked unanswerable, 0 with no relevant label at min grade 1)"
    )
    assert lines[2] == "  qrels: 3 (grade 0: 0, 1: 1, 2: 2) over 3 chunks, 1 reviewer"
    assert lines[3].startswith("  content hash: sha256:")
    again = run("export", "orders")
    assert again.output.startswith("Unchanged: v1 already holds this content (sha256:")
    assert sorted(os.listdir(project / "exports" / "orders")) == ["v1"]


def test_export_json_and_changes(project: Path, loaded: Store) -> None:
    run("export", "orders")
    loaded.labels.set_grade("q1", "default", "error-codes", "ana", 2)
    data = json.loads(run("export", "orders", "--format", "json").output)
    assert (data["status"], data["version"], data["parent"]) == ("created", 2, 1)
    assert data["changes"]["labels_regraded"] == 1
    text = run("export", "orders", "--dry-run").output
    assert text.startswith("Unchanged: v2 already holds")


def test_export_lists_disagreements_and_exits_2(project: Path, loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    result = CliRunner().invoke(main, ["export", "orders", "--policy", "stop"])
    assert result.exit_code == 2
    assert "Disagreements (question / chunk: reviewer grade):" in result.output
    assert "  q1 / rate-limits: ana 2, ben 0" in result.output
    assert 'Error: field "policy": 1 disagreement(s)' in result.output
    assert not (project / "exports").exists()
    settled = run("export", "orders", "--policy", "max", "--format", "json")
    assert json.loads(settled.output)["counts"]["settled_by_policy"] == 1
    assert json.loads(settled.output)["selection"]["policy"] == "max"


def test_export_settles_by_the_projects_policy(project: Path, loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    assert run("policy", "min").output.startswith("When reviewers disagree: min (")
    data = json.loads(run("export", "orders", "--format", "json").output)
    assert data["selection"]["policy"] == "min"
    assert data["counts"]["settled_by_policy"] == 1


def test_export_selection_options(project: Path) -> None:
    data = json.loads(
        run("export", "paging", "--tag", "paging", "--min-grade", "2", "--format", "json").output
    )
    assert data["counts"]["questions"] == 1
    assert data["selection"] == {
        "tags": ["paging"],
        "min_reviewers": 1,
        "review_status": ["accepted"],
        "min_grade": 2,
        "policy": "majority",
        "require_depth": None,
        "runs": [],
        "partial": "include",
    }
    result = CliRunner().invoke(main, ["export", "none", "--min-reviewers", "2"])
    assert result.exit_code == 2
    assert "nothing to export" in result.output


def test_versions_lists_and_fails_on_a_modified_version(
    project: Path, loaded: Store, monkeypatch
) -> None:
    """Each version says who exported it: --as NAME, else the operating-system user."""
    run("--as", "lead-ana", "export", "orders")
    loaded.labels.set_grade("q2", "default", "webhooks", "ana", 0)
    monkeypatch.setenv("LOGNAME", "sam")  # what getpass reads first
    run("export", "orders")
    lines = run("versions", "orders").output.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("v1 ")
    assert lines[0].endswith(
        f"ok (signed by this project's key {fingerprint(loaded)})  by lead-ana"
    )
    assert lines[1].endswith("  by sam")
    assert "3 questions (1 unanswerable, 1 partial)" in lines[1]  # q1: pagination, webhooks
    data = json.loads(run("versions", "orders", "--format", "json").output)
    assert [(v["version"], v["intact"], v["exported_by"]) for v in data] == [
        (1, True, "lead-ana"),
        (2, True, "sam"),
    ]
    assert [r["exported_by"] for r in loaded.versions.recorded("orders").values()] == [
        "lead-ana",
        "sam",
    ]
    qrels = project / "exports" / "orders" / "v1" / "qrels.tsv"
    os.chmod(qrels, 0o644)
    qrels.write_text("q1\t0\trate-limits\t1\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["versions", "orders"])
    assert result.exit_code == 2
    assert "MODIFIED: qrels.tsv" in result.output
    # The folder is the database's exports folder (labeler.config), named in full.
    folder = (project / "exports" / "orders").resolve()
    assert f"Error: {folder}: 1 version(s) of 'orders' changed or gone after export" in (
        result.output
    )
    assert run("versions", "other").output.startswith("No versions of 'other' in exports")


def test_diff_text_and_json(project: Path, loaded: Store) -> None:
    run("export", "orders")
    retext(loaded, "q2", "How do I page?", tags=["api", "paging"])
    loaded.labels.set_grade("q1", "default", "error-codes", "ana", 0)
    run("export", "orders")
    text = run("diff", "orders", "v1", "latest").output
    assert text.splitlines() == [
        "orders v1 -> v2",
        "questions: 0 added, 0 removed, 1 edited",
        "labels: 0 added, 0 removed, 1 regraded",
        "",
        '~ q1 (relabelled) "How should a client retry after a 429 response?"',
        "    error-codes: 1 -> 0 (regraded)",
        '~ q2 (edited) "How do I page?"',
        '    text: "How do I get the next page of orders?" -> "How do I page?"',
    ]
    data = json.loads(run("diff", "orders", "1", "2", "--format", "json").output)
    assert (data["old"], data["new"]) == ("v1", "v2")
    assert data["summary"]["questions_edited"] == 1
    missing = CliRunner().invoke(main, ["diff", "orders", "v1", "v9"])
    assert missing.exit_code == 2
    assert "no version v9 of 'orders' (there are: v1, v2)" in missing.output


def test_diff_escapes_control_characters(project: Path, loaded: Store) -> None:
    run("export", "orders")
    retext(loaded, "q1", "Retry \x1b[31mred\x1b[0m?", tags=["api"])
    run("export", "orders")
    output = run("diff", "orders", "v1", "v2").output
    assert "\x1b" not in output
    assert "\\u001b[31mred" in output


@pytest.mark.parametrize("fmt", ["trec", "beir", "ragas", "deepeval", "csv"])
def test_convert_prints_the_files(project: Path, fmt: str) -> None:
    run("export", "orders")
    result = run("convert", "exports/orders/v1", "--to", fmt, "--out", f"out-{fmt}")
    assert result.exit_code == 0
    for line in result.output.splitlines():
        assert line.startswith(f"out-{fmt}/")
        assert (project / line).is_file()


def test_convert_refuses_an_unknown_format(project: Path) -> None:
    run("export", "orders")
    result = CliRunner().invoke(main, ["convert", "exports/orders/v1", "--to", "xml"])
    assert result.exit_code == 2
    assert "'xml' is not one of 'trec', 'beir', 'ragas', 'deepeval', 'csv', 'all'" in result.output
    every = run("convert", "exports/orders/v1", "--to", "all", "--out", "every")
    assert len(every.output.splitlines()) == 8


def test_adjudicate_then_export(project: Path, loaded: Store) -> None:
    loaded.labels.set_grade("q1", "default", "rate-limits", "ben", 0)
    result = run("adjudicate", "q1", "rate-limits", "1", "--reviewer", "lead", "--note", "partly")
    assert result.output == "Adjudicated q1 / rate-limits: none -> 1\n"
    data = json.loads(run("export", "orders", "--format", "json").output)
    assert data["counts"]["adjudicated"] == 1
    assert run("adjudicate", "q1", "rate-limits", "clear", "--reviewer", "lead").output == (
        "Adjudicated q1 / rate-limits: 1 -> none\n"
    )
    unknown = CliRunner().invoke(main, ["adjudicate", "q9", "rate-limits", "1", "--reviewer", "x"])
    assert unknown.exit_code == 2
    assert "unknown question 'q9'" in unknown.output


def test_import_testset_round_trip(project: Path, tmp_path: Path) -> None:
    first = json.loads(run("export", "orders", "--format", "json").output)
    db = str(tmp_path / "fresh.db")
    result = run("import", "testset", "exports/orders/v1", "--db", db)
    assert result.output.splitlines()[0] == (
        "Imported a version into chunking 'default' as reviewer 'testset.orders.v1'"
    )
    again = run("export", "orders", "--db", db, "--out", "again", "--format", "json")
    for name in ("questions.jsonl", "qrels.tsv", "chunks.jsonl"):  # the same content
        assert (Path("again/orders/v1") / name).read_bytes() == (
            Path(first["path"]) / name
        ).read_bytes()
    assert json.loads(again.output)["content_hash"] != first["content_hash"]  # not the manifest


def test_import_ragas_reports_unmatched_contexts(project: Path) -> None:
    result = run("import", "ragas", str(FORMATS / "ragas" / "testset_2.csv"), "--tag", "ragas")
    lines = result.output.splitlines()
    assert lines[0] == (
        "ragas: 10 added, 0 updated, 0 unchanged; 16 contexts: 0 by id, 0 exact, 0 fuzzy,"
        " 16 unmatched"
    )
    assert lines[1] == "Unmatched contexts (first 10 of 16), chunking 'default':"
    assert lines[2].startswith('  line 2 (ragas-634505a7ff): "--- title: \\"Part 1:')
    data = json.loads(
        run("import", "ragas", str(FORMATS / "ragas" / "testset_2.csv"), "--format", "json").output
    )
    assert (data["added"], data["unchanged"], data["contexts"]["unmatched"]) == (0, 10, 16)


def test_import_deepeval_and_a_bad_file(project: Path, tmp_path: Path) -> None:
    result = run("import", "deepeval", str(FORMATS / "deepeval" / "goldens.json"))
    assert result.output.startswith("deepeval: 14 added, 0 updated, 0 unchanged; 28 contexts")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"expected_output": "x"}]', encoding="utf-8")
    failed = CliRunner().invoke(main, ["import", "deepeval", str(bad)])
    assert failed.exit_code == 2
    assert failed.output == f'Error: {bad}:1: field "input": missing or empty\n'


def test_key_show_and_export_public_never_show_the_private_key(
    project: Path, loaded: Store
) -> None:
    key = project_key(loaded)
    pem = CliRunner().invoke(main, ["key", "show"])
    assert pem.exit_code == 0
    assert pem.stdout == key.public.pem()
    assert pem.stderr == f"Ed25519 public key {key.public.fingerprint}\n"
    assert run("key", "show", "--format", "base64").stdout == key.public.base64() + "\n"
    data = json.loads(run("key", "show", "--format", "json").output)
    assert (data["fingerprint"], data["public_key_base64"]) == (
        key.public.fingerprint,
        key.public.base64(),
    )
    written = run("key", "export-public", "k.pub")
    assert written.output == f"Wrote k.pub ({key.public.fingerprint})\n"
    assert (project / "k.pub").read_text() == key.public.pem()
    import base64

    secrets = (key.seed.hex(), base64.b64encode(key.seed).decode())
    for output in (pem.output, json.dumps(data), written.output, (project / "k.pub").read_text()):
        assert not any(secret in output for secret in secrets)


def test_init_names_the_key_its_versions_are_signed_with(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    result = run("init", "--db", str(db))
    with Store(db) as store:
        fingerprint_ = project_key(store).public.fingerprint
    assert result.output.splitlines()[1] == (
        f"Versions are signed with its key {fingerprint_} (`labeler key show` prints the public"
        " key)"
    )


def test_export_says_how_many_questions_are_partial(project: Path) -> None:
    result = CliRunner().invoke(main, ["export", "orders"])
    assert result.exit_code == 0
    assert (
        "  completeness: 2 of 2 answerable questions partial (3 candidates ungraded); required:"
        " every candidate graded" in result.stdout
    )
    assert result.stderr == (
        "Warning: 2 question(s) partially graded; their ungraded candidates count as not relevant"
        " in an evaluation: q1 (2 ungraded; bm25 1/10), q2 (1 ungraded; bm25 1/10). See the"
        " version's completeness.jsonl;"
        " --require-depth K leaves such questions out.\n"
    )
    left = CliRunner().invoke(main, ["export", "deep", "--require-depth", "1"])
    assert left.exit_code == 0
    assert "Left out" not in left.stderr  # both are complete to depth 1 of bm25
    left = CliRunner().invoke(main, ["export", "deeper", "--require-depth", "2"])
    assert "Left out 2 question(s) not complete to depth 2 of bm25: q1, q2" in left.stderr
    assert json.loads((project / "exports" / "deeper" / "v1" / "manifest.json").read_text())[
        "completeness"
    ]["left_out"] == ["q1", "q2"]
