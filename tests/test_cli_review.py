"""``labeler review list|accept|reject|stats|flags``: shapes, exit codes, nothing changed on
bad input."""

import csv
import io
import json

import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.store import Store
from tests.conftest import table_counts, write_jsonl

GENERATED = [
    {
        "id": "g1",
        "origin": "generated",
        "generator": "ragas",
        "synthesizer": "single_hop",
        "question": "How should a client retry after a 429 response?",
        "reference": "Extra requests return 429 with a Retry-After header.",
        "contexts": ["rate-limits"],
    },
    {
        "id": "g2",
        "origin": "generated",
        "generator": "deepeval",
        "question": "Which field gives the next page of orders?",
        "reference": "next_cursor.",
        "contexts": ["pagination"],
    },
    {
        "id": "g3",
        "origin": "generated",
        "generator": "ragas",
        "question": "Webhooks?",
        "contexts": ["webhooks"],
    },
]


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def db(files, tmp_path) -> str:
    path = str(tmp_path / "r.db")
    assert run("import", "chunks", str(files["chunks"]), "--db", path).exit_code == 0
    assert run("import", "questions", str(files["questions"]), "--db", path).exit_code == 0
    generated = write_jsonl(tmp_path / "generated.jsonl", GENERATED)
    result = run("import", "questions", str(generated), "--db", path)
    assert result.output == (
        "questions: 3 added, 0 updated, 0 unchanged; 3 contexts: 3 by id, 0 exact, 0 fuzzy,"
        " 0 unmatched\n"
    )
    return path


def test_list_as_json_has_the_issue_shape_in_queue_order(db: str) -> None:
    data = json.loads(run("review", "list", "--db", db, "--format", "json").output)
    assert [q["id"] for q in data["questions"]] == ["g1", "g3", "g2"]
    first = data["questions"][0]
    assert first == {
        "id": "g1",
        "status": "pending",
        "generator": "ragas",
        "synthesizer": "single_hop",
        "persona": None,
        "text": "How should a client retry after a 429 response?",
        "flags": [
            {
                "name": "duplicate",
                "reason": "near-duplicate of 1 other question; closest q1 (100/100)",
                "related": ["q1"],
            }
        ],
    }
    flagged = json.loads(
        run("review", "list", "--db", db, "--format", "json", "--flag", "too_short").output
    )
    assert [q["id"] for q in flagged["questions"]] == ["g3"]
    deepeval = json.loads(
        run("review", "list", "--db", db, "--format", "json", "--generator", "deepeval").output
    )
    assert [q["id"] for q in deepeval["questions"]] == ["g2"]


def test_list_as_table_and_csv(db: str) -> None:
    table = run("review", "list", "--db", db).output
    assert "g1  [pending]  ragas / single_hop" in table
    assert "! duplicate: near-duplicate of 1 other question; closest q1 (100/100)" in table
    assert table.endswith("3 questions.\n")
    rows = list(
        csv.DictReader(io.StringIO(run("review", "list", "--db", db, "--format", "csv").output))
    )
    assert [(r["id"], r["flags"]) for r in rows] == [
        ("g1", "duplicate"),
        ("g3", "too_short"),
        ("g2", ""),
    ]


def test_list_as_csv_neutralises_formulas(files, tmp_path) -> None:
    """#19 item 6: a generator, a persona or a text starting with =, +, - or @ was written as
    it was, and a spreadsheet ran it."""
    path = str(tmp_path / "f.db")
    assert run("import", "chunks", str(files["chunks"]), "--db", path).exit_code == 0
    generated = [
        {
            "id": "g1",
            "origin": "generated",
            "generator": '=HYPERLINK("http://x.example","y")',
            "persona": "@admin",
            "question": "-1+2 is what, and why?",
            "contexts": ["rate-limits"],
        }
    ]
    questions = str(write_jsonl(tmp_path / "g.jsonl", generated))
    assert run("import", "questions", questions, "--db", path).exit_code == 0
    output = run("review", "list", "--db", path, "--format", "csv").output
    assert list(csv.reader(io.StringIO(output)))[1] == [
        "g1",
        "pending",
        '\'=HYPERLINK("http://x.example","y")',
        "",
        "'@admin",
        "",
        "'-1+2 is what, and why?",
    ]


def test_accept_and_reject_then_stats(db: str) -> None:
    result = run(
        "review", "accept", "g1", "g2", "--reviewer", "maria", "--confirm-sources", "--db", db
    )
    assert result.output == "2 accepted, 2 source chunks graded 2.\n"
    result = run(
        "review",
        "reject",
        "g3",
        "--reason",
        "unrealistic",
        "--note",
        "too vague",
        "--reviewer",
        "tom",
        "--db",
        db,
    )
    assert result.output == "1 rejected.\n"
    with Store(db) as store:
        assert store.questions.get("g2").review_status == "accepted"
        assert [
            (r["chunk_id"], r["grade"], r["reviewer"])
            for r in store.labels.question_labels("g2", "default")
        ] == [("pagination", 2, "maria")]
        assert store.reviews.state("g3")["note"] == "too vague"
    assert json.loads(run("review", "list", "--db", db, "--format", "json").output) == {
        "questions": []
    }
    accepted = json.loads(
        run("review", "list", "--status", "accepted", "--db", db, "--format", "json").output
    )
    assert [q["id"] for q in accepted["questions"]] == ["g1", "g2"]
    stats = json.loads(run("review", "stats", "--db", db, "--format", "json").output)
    assert (stats["total"], stats["accepted"], stats["rejected"], stats["remaining"]) == (
        3,
        2,
        1,
        0,
    )
    assert stats["reject_reasons"] == [
        {"reason": "unrealistic", "label": "Unrealistic for our users", "count": 1}
    ]
    text = run("review", "stats", "--db", db).output
    assert "Generated questions: 3 (0 to review, 2 accepted, 1 rejected; acceptance 67%)" in text
    assert "  ragas: 50% accepted (1 of 2 decided, 0 to review)" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["accept", "g1", "nope"], "Error: field \"question_id\": unknown question 'nope'"),
        (["accept", "g1", "q1"], 'Error: field "question_id": question q1 is not a generated'),
        (
            ["reject", "g1", "--reason", "boring"],
            "Error: field \"reason\": unknown reason 'boring'",
        ),
        (["reject", "g1", "--reason", "other"], "Error: field \"note\": the reason 'other' needs"),
        (
            ["accept", "g1", "--reviewer", " "],
            'Error: field "reviewer": a reviewer name is 1 to 64 characters',
        ),
        (["list", "--flag", "odd"], "Error: field \"flag\": unknown flag 'odd'"),
    ],
)
def test_bad_input_exits_2_and_changes_nothing(db: str, args: list[str], message: str) -> None:
    with Store(db) as store:
        before = table_counts(store)
        events = store.scalar("SELECT count(*) FROM review_events")
    full = ["review", *args] + (
        [] if "--reviewer" in args or args[0] == "list" else ["--reviewer", "maria"]
    )
    result = CliRunner().invoke(main, [*full, "--db", db])
    assert result.exit_code == 2
    assert result.output.splitlines()[-1].startswith(message)
    with Store(db) as store:
        assert table_counts(store) == before
        assert store.scalar("SELECT count(*) FROM review_events") == events
        assert store.questions.get("g1").review_status == "pending"


def test_flags_shows_and_changes_the_thresholds(db: str) -> None:
    data = json.loads(run("review", "flags", "--db", db, "--format", "json").output)
    assert data["config"]["duplicate_threshold"] == 85.0
    assert data["flagged"] == {"duplicate": 1, "too_short": 1}
    data = json.loads(
        run("review", "flags", "--min-words", "1", "--db", db, "--format", "json").output
    )
    assert data["config"]["min_words"] == 1
    assert data["flagged"] == {"duplicate": 1}
    result = CliRunner().invoke(main, ["review", "flags", "--copy-share", "2", "--db", db])
    assert result.exit_code == 2
    assert 'field "copy_share"' in result.output
