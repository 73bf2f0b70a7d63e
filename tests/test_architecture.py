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


def test_the_metric_engine_reads_versions_but_not_what_makes_them() -> None:
    """A version is its own package (labeler.versions), shared by the exporters and the metric
    engine: a data path never climbs back up the layers to the exporters or the export."""
    for path in (PACKAGE / "metrics").rglob("*.py"):
        found = imports(path)
        assert not any(
            n.split(".")[:2] in (["labeler", "exporters"], ["labeler", "export"]) for n in found
        )


def test_exporters_only_write_formats_from_a_version() -> None:
    """``exporters/`` holds writers of other tools' formats; the rules of a version (its
    format, hash, history) live in ``versions/`` and the making of one in ``export``."""
    for path in (PACKAGE / "exporters").rglob("*.py"):
        found = imports(path)
        rooms = {".".join(n.split(".")[:2]) for n in found}
        assert not rooms & {"labeler.store", "labeler.grading", "labeler.export"}, path.name


def test_versions_need_nothing_of_the_engine_or_the_loop() -> None:
    """The metric engine reads test sets through ``labeler.versions``, so versions import
    neither the engine nor the grading loop (whose label-next queue uses the engine)."""
    for path in (PACKAGE / "versions").rglob("*.py"):
        found = imports(path)
        assert not any(n.startswith(("labeler.metrics", "labeler.grading")) for n in found)


# rooms: the package's top-level modules and packages --------------------------------------------


def room(module: str) -> str | None:
    """The room a module belongs to: ``labeler.grading.queues`` -> ``grading``."""
    parts = module.split(".")
    if parts[0] != "labeler" or len(parts) < 2:
        return None
    return parts[1]


def module_name(path: Path) -> str:
    parts = ("labeler", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_edges(path: Path) -> list[tuple[str, bool]]:
    """(imported module, at module level?) for every import of a ``labeler`` module in the
    file; ``from labeler.x import y`` counts as importing ``labeler.x.y`` when that is a module.
    Imports under ``if TYPE_CHECKING:`` are for type checkers only and are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            typing_only.update(id(n) for child in node.body for n in ast.walk(child))
    top = {id(n) for stmt in tree.body for n in ast.walk(stmt)} - {
        id(n)
        for stmt in ast.walk(tree)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
        for n in ast.walk(stmt)
    }
    edges = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            names += [
                f"{node.module}.{alias.name}"
                for alias in node.names
                if (PACKAGE.parent / f"{node.module}.{alias.name}".replace(".", "/"))
                .with_suffix(".py")
                .is_file()
                or (PACKAGE.parent / f"{node.module}.{alias.name}".replace(".", "/")).is_dir()
            ]
        edges.extend((name, id(node) in top) for name in names if name.startswith("labeler."))
    return edges


def room_graph(*, module_level_only: bool) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        source = room(module_name(path))
        if source is None:
            continue
        for target, at_top in import_edges(path):
            if module_level_only and not at_top:
                continue
            target_room = room(target)
            if target_room is not None and target_room != source:
                graph.setdefault(source, set()).add(target_room)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more rooms (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_rooms_import_each_other() -> None:
    """Rooms (``labeler``'s top-level packages and modules) stand in layers: no loop of imports
    between them at module level, so each can be read, tested and moved on its own."""
    assert cycles(room_graph(module_level_only=True)) == []


def test_no_import_inside_a_function_dodges_a_loop() -> None:
    """An import inside a function (to load something heavy late) is fine; one that would close
    a loop between rooms if it stood at the top is a loop all the same."""
    assert cycles(room_graph(module_level_only=False)) == []


def test_no_loop_of_modules() -> None:
    """Nor between modules, inside a package or across (a package's ``__init__`` counts as a
    module; a module's import of its own package's ``__init__`` does not close a loop), at the
    top or inside a function."""
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        source = module_name(path)
        for target, _ in import_edges(path):
            if target != source and not source.startswith(f"{target}."):
                graph.setdefault(source, set()).add(target)
    known = {module_name(p) for p in MODULES}
    graph = {k: {t for t in v if t in known} for k, v in graph.items()}
    assert cycles(graph) == []


# the faces ---------------------------------------------------------------------------------------

APP_PAGES = sorted((PACKAGE / "app" / "app_pages").glob("[!_]*.py"))


@pytest.mark.parametrize("path", APP_PAGES, ids=lambda p: p.name)
def test_a_page_reads_calls_and_renders(path: Path) -> None:
    """Under 400 lines; no CSS of its own (``app/style.css``); user errors through the one
    wrapper (``app/state.py``), not a page's own; no private session key of another module."""
    source = path.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 400
    assert "<style" not in source
    assert "except LabelerError" not in source
    assert 'session_state["_' not in source


@pytest.mark.parametrize("path", APP_PAGES, ids=lambda p: p.name)
def test_a_keyboard_page_draws_its_keys_with_the_one_toolbar(path: Path) -> None:
    """A page that answers keys draws them with ``widgets.toolbar`` and lists them with
    ``widgets.keys_legend`` (panels of one mode, such as the reasons to reject, may add
    their own keys)."""
    source = path.read_text(encoding="utf-8")
    if "shortcut" not in source and "Key(" not in source:
        return
    assert "toolbar(" in source
    assert "keys_legend(" in source
    assert "lbl-keys" not in source
