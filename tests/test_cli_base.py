"""The group itself: --db before or after the command, every group's help listing every
command, and the import group built from the importer registry."""

import json

import click
import pytest
from click.testing import CliRunner

from labeler.cli import all_commands, main
from labeler.cli.reference import command_rows
from labeler.importers.registry import IMPORT_KINDS


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def groups(group: click.Group = main, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, command in (all_commands() if group is main else group.commands).items():
        if isinstance(command, click.Group):
            found += groups(command, (*path, name))
    return found


def test_db_before_the_command_as_well_as_after(tmp_path, files) -> None:
    db = str(tmp_path / "p.db")
    assert run("--db", db, "import", "chunks", str(files["chunks"])).exit_code == 0
    before = json.loads(run("--db", db, "status", "--format", "json").output)
    after = json.loads(run("status", "--format", "json", "--db", db).output)
    assert before == after
    assert before["chunkings"] == {"default": 5}
    assert run("--db", db, "status", "--db", db).exit_code == 0


def test_db_given_twice_with_two_files_is_refused(tmp_path) -> None:
    result = run("--db", str(tmp_path / "a.db"), "status", "--db", str(tmp_path / "b.db"))
    assert result.exit_code == 2
    assert "--db is given twice" in result.output
    assert not (tmp_path / "a.db").exists()
    assert not (tmp_path / "b.db").exists()


def test_the_demo_takes_db_before_the_command_too(tmp_path) -> None:
    db = tmp_path / "demo.db"
    assert run("--db", str(db), "demo", "--no-serve").exit_code == 0
    assert db.exists()


@pytest.mark.parametrize("path", groups(), ids=lambda p: " ".join(("labeler", *p)))
def test_every_group_help_lists_every_command(path: tuple[str, ...]) -> None:
    group = main
    for name in path:
        group = (all_commands() if group is main else group.commands)[name]
    output = run(*path, "--help").output
    listed = output.split("Commands:", 1)[1]
    for name, command in (all_commands() if group is main else group.commands).items():
        assert f"\n  {name} " in listed, f"{name} is missing from the help of {path}"
        summary = command.get_short_help_str(limit=45).split()[0]
        assert summary in listed


def test_the_import_group_is_the_registry() -> None:
    assert set(all_commands()["import"].commands) == set(IMPORT_KINDS)
    description = run("import", "--help").output.split("Commands:", 1)[0]
    assert "Kinds of file: " + ", ".join(sorted(IMPORT_KINDS)) + "." in " ".join(
        description.split()
    )


@pytest.mark.parametrize("name", list(IMPORT_KINDS))
def test_each_import_command_takes_its_kind_options(name: str) -> None:
    kind = IMPORT_KINDS[name]
    command = all_commands()["import"].commands[name]
    flags = {flag for p in command.params for flag in getattr(p, "opts", ())}
    for option in kind.options:
        expected = "--tag" if option.kind == "tags" else option.flag
        assert expected in flags
    assert "--db" in flags
    assert ("--format" in flags) == kind.json
    assert kind.example in command.help


def test_the_command_table_lists_every_command() -> None:
    paths = [path for path, _ in command_rows()]
    assert "import chunks" in paths
    assert "adjudicate" in paths
    assert len(paths) == len(set(paths))


# A database that does not exist (#19 item 12) -------------------------------------------------

# Arguments each command needs to get past click's own checks: the database is looked at
# before anything else the command does.
ARGUMENTS = {
    "adjudicate": ("q1", "c1", "2", "--reviewer", "ana"),
    "convert": ("exports/x/v1", "--to", "trec"),
    "diff": ("x", "v1", "v2"),
    "export": ("x",),
    "judge define": ("faith",),
    "judge export": ("--to", "ragas-annotated"),
    "judge import": ("ratings.jsonl",),
    "judge ratings": ("--metric", "relevance"),
    "judge run": (
        "--metric",
        "relevance",
        "--base-url",
        "http://127.0.0.1:9",
        "--model",
        "m",
        "--all",
    ),
    "judge sample": ("--metric", "faith"),
    "key export-public": ("public.pem",),
    "next": ("--run", "bm25", "--run", "hybrid"),
    "remap": ("--from", "v1", "--to", "v2"),
    "review accept": ("q1", "--reviewer", "ana"),
    "review reject": ("q1", "--reason", "duplicate", "--reviewer", "ana"),
    "search": ("retry",),
    "versions list": ("x",),
    "versions verify": ("exports/x/v1",),
}


def commands_with_a_database(group: click.Group = main, path: str = "") -> list[str]:
    found = []
    for name, command in sorted((all_commands() if group is main else group.commands).items()):
        full = f"{path} {name}".strip()
        if isinstance(command, click.Group):
            found += commands_with_a_database(command, full)
        elif any(p.name == "db_path" for p in command.params):
            found.append(full)
    return found


@pytest.mark.parametrize("command", commands_with_a_database())
def test_only_commands_that_bring_data_in_create_a_database(
    command: str, tmp_path, monkeypatch
) -> None:
    from labeler.cli.base import DATABASE_OPTIONAL, may_create_database

    monkeypatch.chdir(tmp_path)
    if may_create_database(command):
        return  # init, the imports and the demo: tested below
    db = tmp_path / "missing.db"
    args = (*command.split(), *ARGUMENTS.get(command, ()))
    result = run("--db", str(db), *args)
    assert not db.exists(), result.output
    assert list(tmp_path.iterdir()) == []
    if command in DATABASE_OPTIONAL:
        return  # reads version folders; the database only when it exists
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"Error: {db}: no such database; create it with `labeler --db {db} init`, or by"
        f" importing a file into it (`labeler --db {db} import chunks FILE`)\n"
    )


def test_init_and_a_good_import_create_the_database(tmp_path, files) -> None:
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    assert run("--db", str(first), "init").exit_code == 0
    assert first.exists()
    assert run("--db", str(second), "import", "chunks", str(files["chunks"])).exit_code == 0
    assert json.loads(run("--db", str(second), "status", "--format", "json").output)[
        "chunkings"
    ] == {"default": 5}


@pytest.mark.parametrize(
    ("command", "first"),
    [
        (("import", "chunks"), {"id": "c1", "text": "t"}),
        (("import", "questions"), {"id": "q1", "question": "Why?"}),
        (
            ("judge", "import"),
            {"item": "a", "metric": "tone", "rater": "j", "rater_kind": "model", "verdict": 1},
        ),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else "",
)
def test_a_failed_import_into_a_new_database_leaves_no_file(command, first, tmp_path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(first) + '\n{"id": \n', encoding="utf-8")
    db = tmp_path / "new.db"
    result = run("--db", str(db), *command, str(bad))
    assert result.exit_code == 2
    assert f"{bad}:2: not valid JSON" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_a_failed_import_into_an_existing_database_keeps_it(tmp_path, files) -> None:
    db = tmp_path / "p.db"
    assert run("--db", str(db), "import", "chunks", str(files["chunks"])).exit_code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": \n', encoding="utf-8")
    assert run("--db", str(db), "import", "chunks", str(bad)).exit_code == 2
    assert json.loads(run("--db", str(db), "status", "--format", "json").output)["chunkings"] == {
        "default": 5
    }


def test_the_list_of_commands_is_what_the_modules_register() -> None:
    """``labeler.cli.COMMANDS`` (which module holds which command, so a command's module loads
    only when it runs) names every command the modules register, and each where it is."""
    from labeler.cli import COMMANDS

    registered = {
        name: command.callback.__module__.removeprefix("labeler.cli.")
        for name, command in all_commands().items()
    }
    assert registered == COMMANDS


def test_running_one_command_loads_only_its_module() -> None:
    """``labeler eval`` starts without importing the other commands' modules."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from labeler.cli import main\n"
        "try:\n"
        "    main(['eval', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('labeler.cli.'))\n"
        "print('LOADED', *loaded)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout.strip().splitlines()[-1].split()
    assert loaded == ["LOADED", "labeler.cli.base", "labeler.cli.evaluate", "labeler.cli.reference"]
