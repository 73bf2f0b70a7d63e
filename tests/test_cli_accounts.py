"""``labeler user ...``, ``labeler assign``, ``--as``, the serve address check, and names on a
terminal."""

import ast
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from labeler.accounts import sessions
from labeler.cli import main
from labeler.store import Store

CLI = Path(__file__).resolve().parents[1] / "labeler" / "cli"


def run(db: Path, *args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["--db", str(db), *args], input=stdin)


@pytest.fixture
def db(loaded: Store) -> Path:
    return loaded.path


def test_user_add_reads_the_password_from_stdin_and_it_logs_in(db: Path) -> None:
    result = run(
        db,
        "--as",
        "root",
        "user",
        "add",
        "olga",
        "--role",
        "owner",
        "--password-stdin",
        stdin="olga-secret-1\n",
    )
    assert result.exit_code == 0, result.output
    assert result.output == "Added owner olga.\n"
    with Store(db) as store:
        assert sessions.login(store, "olga", "olga-secret-1")
        assert store.accounts.events("olga")[-1]["actor"] == "root"
        assert "olga-secret-1" not in json.dumps(store.query("SELECT * FROM account_events"))


def test_without_a_terminal_the_password_must_come_on_stdin(db: Path) -> None:
    result = run(db, "user", "add", "olga")
    assert result.exit_code == 2
    assert "give the password on standard input with --password-stdin" in result.output
    with Store(db) as store:
        assert not store.accounts.any()


@pytest.mark.parametrize(
    ("name", "stdin", "message"),
    [
        ("olga", "short\n", "a password needs at least 10 characters"),
        ("evil\x1b[2J", "long enough pw\n", "holds U+001B"),
        ("olga", "", "no password on standard input"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(db: Path, name, stdin, message) -> None:
    result = run(db, "user", "add", name, "--password-stdin", stdin=stdin)
    assert result.exit_code == 2
    assert message in result.output
    assert "\x1b" not in result.output
    with Store(db) as store:
        assert not store.accounts.any()


def test_no_option_takes_a_password() -> None:
    """Passwords never come from an argument or an environment variable."""
    source = (CLI / "accounts.py").read_text(encoding="utf-8")
    options = [
        node.args[0].value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", "") == "option"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]
    assert sorted(o for o in options if "password" in o) == ["--no-password", "--password-stdin"]
    assert "envvar" not in source
    assert "auto_envvar_prefix" not in source


def test_list_role_disable_enable(db: Path) -> None:
    run(db, "user", "add", "olga", "--role", "owner", "--password-stdin", stdin="olga-pass-12\n")
    run(db, "user", "add", "rita", "--password-stdin", stdin="rita-pass-12\n")
    assert run(db, "user", "role", "rita", "lead").output == "rita is now a lead.\n"
    assert run(db, "user", "disable", "rita").output == "rita disabled.\n"
    listed = json.loads(run(db, "user", "list", "--format", "json").output)
    assert [(a["name"], a["role"], a["disabled"]) for a in listed["accounts"]] == [
        ("olga", "owner", False),
        ("rita", "lead", True),
    ]
    assert set(listed["accounts"][0]) == {
        "name", "role", "email", "created", "created_by", "last_login", "last_active",
        "disabled", "locked_until",
    }  # fmt: skip
    assert run(db, "user", "enable", "rita").output == "rita enabled.\n"
    refused = run(db, "user", "disable", "olga")
    assert refused.exit_code == 2
    assert "the last owner" in refused.output


def test_a_reviewer_who_graded_is_listed_and_adopted(db: Path) -> None:
    with Store(db) as store:
        from labeler.grading import labeling

        labeling.grade(store, "q1", "rate-limits", "maria", 2)
    listed = run(db, "user", "list").output
    assert (
        "Graded without an account (labeler user add NAME adopts their work): maria (1 labels)"
        in listed
    )
    added = run(db, "user", "add", "maria", "--password-stdin", stdin="maria-pass-1\n")
    assert added.output.splitlines()[1] == "Adopted the work maria did before: 1 labels, 1 history."


def test_assign_and_list(db: Path) -> None:
    result = run(
        db,
        "--as",
        "lea",
        "assign",
        "--to",
        "ann",
        "--to",
        "ben",
        "--overlap",
        "0.5",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["questions"], data["overlap_questions"]) == (3, 2)
    assert data["per_reviewer"] == {"ann": 3, "ben": 2}
    listing = run(db, "assign", "--list").output.splitlines()
    assert listing[0] == "ann: 3 questions, 0 done, 2 shared with another reviewer"
    rows = json.loads(run(db, "assign", "--list", "--format", "json").output)
    assert {r["assigned_by"] for r in rows} == {"lea"}
    both = run(db, "assign", "--to", "ann", "--questions", "q1", "--count", "2")
    assert both.exit_code == 2


def test_serve_refuses_the_network_without_an_account(db: Path) -> None:
    result = run(db, "serve", "--address", "0.0.0.0")
    assert result.exit_code == 2
    assert "0.0.0.0 would serve this project to the network with no login" in result.output
    assert "user add NAME --role owner" in result.output


def test_names_and_ids_are_escaped_on_the_terminal(db: Path) -> None:
    """A name written before the rule (or by a tool that ignored it) reaches the terminal
    escaped: `labeler status` once printed the escape codes raw."""
    with Store(db) as store, store.write() as conn:
        conn.execute(
            "INSERT INTO labels (question_id, chunking, chunk_id, reviewer, grade, created_at,"
            " updated_at) VALUES ('q1', 'default', 'pagination', ?, 1, 'x', 'x')",
            ("webuser\x1b[2J\x1b]0;PWNED-TITLE\x07",),
        )
    output = run(db, "status").output
    assert "\x1b" not in output
    assert "\x07" not in output
    assert "webuser\\u001b[2J\\u001b]0;PWNED-TITLE\\u0007: 1" in output
    as_json = run(db, "status", "--format", "json").output
    assert json.loads(as_json)["labels"]["by_reviewer"] == {
        "webuser\x1b[2J\x1b]0;PWNED-TITLE\x07": 1
    }


def test_every_command_prints_through_the_one_escaping_echo() -> None:
    for path in CLI.glob("*.py"):
        if path.name != "base.py":
            assert "click.echo(" not in path.read_text(encoding="utf-8"), path.name
            assert "print(" not in path.read_text(encoding="utf-8").replace("_print(", ""), (
                path.name
            )


def test_as_must_be_a_name(db: Path) -> None:
    result = run(db, "--as", "a b", "assign", "--to", "ann")
    assert result.exit_code == 2
    assert 'field "as": a reviewer name is 1 to 64 characters' in result.output
