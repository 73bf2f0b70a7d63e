"""The group itself: --db before or after the command, every group's help listing every
command, and the import group built from the importer registry."""

import json

import click
import pytest
from click.testing import CliRunner

from labeler.cli import main
from labeler.cli.reference import command_rows
from labeler.importers.registry import IMPORT_KINDS


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def groups(group: click.Group = main, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, command in group.commands.items():
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
        group = group.commands[name]
    output = run(*path, "--help").output
    listed = output.split("Commands:", 1)[1]
    for name, command in group.commands.items():
        assert f"\n  {name} " in listed, f"{name} is missing from the help of {path}"
        summary = command.get_short_help_str(limit=45).split()[0]
        assert summary in listed


def test_the_import_group_is_the_registry() -> None:
    assert set(main.commands["import"].commands) == set(IMPORT_KINDS)
    description = run("import", "--help").output.split("Commands:", 1)[0]
    assert "Kinds of file: " + ", ".join(sorted(IMPORT_KINDS)) + "." in " ".join(
        description.split()
    )


@pytest.mark.parametrize("name", list(IMPORT_KINDS))
def test_each_import_command_takes_its_kind_options(name: str) -> None:
    kind = IMPORT_KINDS[name]
    command = main.commands["import"].commands[name]
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
