"""Every package's exports work as ``from labeler.<package> import *`` promises, loaded on first
use by the one helper (``labeler.lazy``)."""

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import labeler
from labeler.lazy import lazy_exports

PACKAGES = sorted(
    name
    for _, name, is_package in pkgutil.walk_packages(labeler.__path__, "labeler.")
    if is_package and not name.startswith("labeler.app")
)


def test_there_are_packages_to_check() -> None:
    assert {"labeler.grading", "labeler.versions", "labeler.metrics", "labeler.store"} <= set(
        PACKAGES
    )


@pytest.mark.parametrize("package", PACKAGES)
def test_star_import_gives_every_name_of_all(package: str) -> None:
    """Run in a fresh interpreter, so a name that only works once another test loaded its
    module is caught."""
    code = (
        f"from {package} import *\n"
        f"import {package} as p\n"
        "missing = [n for n in getattr(p, '__all__', ()) if n not in globals()]\n"
        "assert not missing, missing\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(labeler.__file__).parents[1],
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("package", PACKAGES)
def test_no_export_is_named_like_a_module_of_its_package(package: str) -> None:
    """Importing ``package.x`` sets the attribute ``x`` of the package to the module: an export
    named ``x`` would then be the module or the name depending on what was imported first."""
    module = importlib.import_module(package)
    modules = {name for _, name, _ in pkgutil.iter_modules(module.__path__)}
    assert not set(getattr(module, "__all__", ())) & modules


def test_a_lazy_name_loads_its_module_once_and_unknown_names_say_so() -> None:
    getattr_, names = lazy_exports("labeler.metrics", {"registry": ("parse_ks",)})
    assert names == ["parse_ks"]
    assert getattr_("parse_ks")("3,1") == (3, 1)
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        getattr_("nope")
    with pytest.raises(ValueError, match="exported from two modules"):
        lazy_exports("labeler.metrics", {"registry": ("x",), "types": ("x",)})
