"""Pure core, thin faces: the import rules of DESIGN.md, checked on every module."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "labeler"
MODULES = sorted(PACKAGE.rglob("*.py"))


def imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def part(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0]


def test_there_is_code_to_check() -> None:
    assert len(MODULES) > 20


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_imports_neither_streamlit_nor_click(path: Path) -> None:
    if part(path) in ("cli", "app") or path.name == "__main__.py":
        return
    found = {n.split(".")[0] for n in imports(path)}
    assert not found & {"streamlit", "click"}, f"{path.name} imports a face's library"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_store_imports_sqlite(path: Path) -> None:
    if part(path) == "store":
        return
    found = {n.split(".")[0] for n in imports(path)}
    assert not found & {"sqlite_utils", "sqlite3"}, f"{path.name} talks to SQLite directly"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_sql_lives_in_the_store(path: Path) -> None:
    if part(path) == "store":
        return
    source = path.read_text(encoding="utf-8")
    for keyword in ("SELECT ", "INSERT INTO", "UPDATE ", "DELETE FROM", ".execute("):
        assert keyword not in source, f"{path.name} holds SQL ({keyword.strip()})"


@pytest.mark.parametrize("path", sorted((PACKAGE / "cli").glob("*.py")), ids=lambda p: p.name)
def test_cli_modules_load_heavy_libraries_lazily(path: Path) -> None:
    """`labeler eval` must start fast: no pandas, streamlit or SQLite at import time."""
    found = {n.split(".")[0] for n in imports(path, top_level_only=True)}
    assert not found & {"pandas", "streamlit", "sqlite_utils", "rapidfuzz", "numpy", "pyarrow"}


def test_metrics_know_nothing_of_the_database() -> None:
    for path in (PACKAGE / "metrics").rglob("*.py"):
        found = imports(path)
        assert not any(n.startswith(("labeler.store", "labeler.app", "labeler.cli")) for n in found)


def test_the_metric_engine_does_not_import_the_exporters() -> None:
    """The version format is its own module (labeler.version_format), shared by the exporters
    and the metric engine: a data path never climbs back up the layers."""
    for path in (PACKAGE / "metrics").rglob("*.py"):
        found = imports(path)
        assert not any(n.startswith("labeler.exporters") for n in found), path.name
