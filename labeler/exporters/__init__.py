"""Exporters: the versioned test set (``labeler export``) and the formats derived from a version.

The version writer reads the database; everything else here reads only version folders.
Names are loaded on first use, so the CLI can read the registries (``FORMATS``, ``POLICIES``)
without loading the store.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "FORMATS": "convert",
    "ExportFormat": "convert",
    "convert": "convert",
    "formats_table": "convert",
    "POLICIES": "consensus",
    "Disagreement": "consensus",
    "DisagreementError": "consensus",
    "consensus": "consensus",
    "VersionDiff": "diff",
    "describe_changes": "diff",
    "diff_contents": "diff",
    "diff_versions": "diff",
    "VersionInfo": "history",
    "check_version": "history",
    "witnessed": "history",
    "list_versions": "history",
    "resolve_version": "history",
    "names_under": "history",
    "zip_version": "history",
    "Content": "layout",
    "Version": "layout",
    "read_version": "layout",
    "ExportPlan": "testset",
    "ExportResult": "testset",
    "Selection": "testset",
    "export_testset": "testset",
    "plan_export": "testset",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        msg = f"module 'labeler.exporters' has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(f"labeler.exporters.{home}"), name)


__all__ = sorted(_HOMES)
