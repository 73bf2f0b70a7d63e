"""The README is the user's manual: it opens with the two commands, lists every command the CLI
has (each of which shows an example in its --help) and links the reference pages under docs/,
whose tables are the registries' own."""

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from labeler.cli import all_commands, main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
# The user's manual is the README plus the reference pages under docs/.
MANUAL = "\n".join(
    [README, *(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))]
)


def command_paths(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = []
    for name, command in sorted((all_commands() if group is main else group.commands).items()):
        path = (*prefix, name)
        if isinstance(command, click.Group):
            paths.append(path)
            paths += command_paths(command, path)
        else:
            paths.append(path)
    return paths


def test_readme_opens_with_exactly_the_two_commands() -> None:
    before_first_heading = README.split("\n## ", 1)[0]
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", before_first_heading, re.S | re.M)
    assert len(blocks) == 2
    assert "labeler demo" in blocks[0]
    assert "pytest" in blocks[1]
    assert all("pip install" in b for b in blocks)
    assert all(len(b.strip().splitlines()) == 1 for b in blocks)


@pytest.mark.parametrize("path", command_paths(), ids=" ".join)
def test_every_command_has_help_with_an_example(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.output
    assert re.search(r"Example:\n\s+labeler ", result.output)


@pytest.mark.parametrize("path", command_paths(), ids=" ".join)
def test_every_command_has_a_manual_section(path: tuple[str, ...]) -> None:
    heading = "### `labeler " + " ".join(path)
    assert heading in MANUAL, f"README.md and docs/*.md lack a section starting with {heading}"


def test_readme_metric_table_is_the_registry() -> None:
    from labeler.metrics import metrics_table_markdown

    assert metrics_table_markdown().strip() in README


def test_readme_export_format_table_is_the_registry() -> None:
    from labeler.exporters.convert import formats_table

    assert formats_table().strip() in README


def test_import_table_is_the_registry() -> None:
    from labeler.importers import formats_table_markdown

    assert formats_table_markdown().strip() in README


def test_readme_links_every_reference_page_and_each_exists() -> None:
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", README))
    present = {f"docs/{p.name}" for p in DOCS.glob("*.md")}
    assert linked == present


def test_each_generated_table_is_written_once() -> None:
    from labeler.cli import commands_table_markdown
    from labeler.exporters.convert import formats_table
    from labeler.importers import formats_table_markdown
    from labeler.metrics import metrics_table_markdown

    for table in (metrics_table_markdown, formats_table, formats_table_markdown):
        assert MANUAL.count(table().strip()) == 1, table.__name__
    assert MANUAL.count(commands_table_markdown().strip()) == 1


def test_links_between_pages_resolve() -> None:
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]*)?\)", page.read_text()):
            assert (page.parent / target).resolve().is_file(), f"{page.name} links {target}"


def test_readme_command_table_is_the_cli() -> None:
    from labeler.cli import commands_table_markdown

    assert commands_table_markdown().strip() in README
