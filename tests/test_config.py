"""Where things live, one rule for the CLI and the app: the database, and the exports folder."""

from pathlib import Path

from click.testing import CliRunner
from streamlit.testing.v1 import AppTest

from labeler.cli import main
from labeler.config import exports_dir, resolve_db_path
from labeler.store import Store
from tests.conftest import notes

PAGE = str(Path(__file__).resolve().parents[1] / "labeler" / "app" / "app_pages" / "export.py")


def test_exports_go_next_to_the_database_unless_told(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("LABELER_EXPORTS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert exports_dir(tmp_path / "db" / "p.db") == tmp_path / "db" / "exports"
    assert exports_dir(None) == tmp_path / "exports"  # ./labeler.db
    assert exports_dir(tmp_path / "p.db", tmp_path / "out") == tmp_path / "out"
    monkeypatch.setenv("LABELER_EXPORTS", str(tmp_path / "env"))
    assert exports_dir(tmp_path / "p.db") == tmp_path / "env"
    assert exports_dir(tmp_path / "p.db", "given") == Path("given")


def test_database_rule(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LABELER_DB", raising=False)
    assert resolve_db_path(None) == tmp_path / "labeler.db"
    monkeypatch.setenv("LABELER_DB", "env.db")
    assert resolve_db_path(None) == Path("env.db")
    assert resolve_db_path("given.db") == Path("given.db")


def test_the_cli_and_the_app_export_to_the_same_folder(loaded: Store, tmp_path, monkeypatch):
    """Started from different folders, both write next to the database."""
    monkeypatch.delenv("LABELER_EXPORTS", raising=False)
    loaded.labels.set_grade("q1", "default", "rate-limits", "ana", 2)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = CliRunner().invoke(main, ["export", "orders", "--db", str(loaded.path)])
    assert result.exit_code == 0, result.output
    folder = loaded.path.resolve().parent / "exports" / "orders"
    assert sorted(p.name for p in folder.iterdir()) == ["v1"]
    loaded.labels.set_grade("q2", "default", "pagination", "ana", 2)
    monkeypatch.setenv("LABELER_DB", str(loaded.path))
    monkeypatch.chdir(tmp_path)
    page = AppTest.from_file(PAGE, default_timeout=30).run()
    page.text_input(key="export_name").input("orders")
    page.button(key="export_create").click().run()
    assert notes(page, "ok") == ["Created version v2 of orders."]
    assert sorted(p.name for p in folder.iterdir()) == ["v1", "v2"]
    assert not (elsewhere / "exports").exists()
