"""The store is one connection and one facet per table family: each facet a small class over its
own SQL, attached once, and the migrations applied in number order."""

import ast
import re
from pathlib import Path

from labeler.store import FACETS, Facet, Store
from labeler.store.schema import migrations

STORE = Path(__file__).resolve().parents[1] / "labeler" / "store"


def test_every_facet_is_attached_once_under_its_listed_name(tmp_path: Path) -> None:
    with Store(tmp_path / "p.db") as store:
        attached = {name: value for name, value in vars(store).items() if isinstance(value, Facet)}
        assert set(attached) == set(FACETS)
        assert len({id(facet) for facet in attached.values()}) == len(FACETS)
        # Each facet works over the store's own connection.
        assert all(facet.conn is store.conn for facet in attached.values())


def test_every_facet_class_of_the_package_is_attached(tmp_path: Path) -> None:
    """A facet class written in a store module but never attached would be dead SQL."""
    defined = set()
    for path in STORE.glob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base) == "Facet" for base in node.bases
            ):
                defined.add(node.name)
    with Store(tmp_path / "p.db") as store:
        attached = {type(getattr(store, name)).__name__ for name in FACETS}
    assert defined == attached


def test_facets_share_no_private_helpers() -> None:
    """Helpers more than one facet needs live in store/base.py, under public names."""
    for path in STORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("labeler"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert private == [], f"{path.name} imports {private} from {node.module}"


def test_migrations_are_defined_in_number_order() -> None:
    """Numbered from 0001, each once, defined (and so applied) in that order."""
    names = [m.name for m in migrations._migrations]
    numbers = [int(re.match(r"(\d{4})_", name).group(1)) for name in names]
    assert numbers[0] == 1
    assert numbers == sorted(set(numbers)), names


def test_a_new_database_applies_them_in_number_order(tmp_path: Path) -> None:
    with Store(tmp_path / "p.db") as store:
        applied = [
            row[0]
            for row in store.conn.execute("SELECT name FROM _sqlite_migrations ORDER BY rowid")
        ]
    assert applied == sorted(applied) == [m.name for m in migrations._migrations]
