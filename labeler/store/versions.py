"""The log of exported test-set versions: what this database exported, under which name and
hash, so a version on disk can be checked against what was really written (see
``labeler.versions``)."""

from __future__ import annotations

import json

from labeler.store.base import Facet


class Versions(Facet):
    __slots__ = ()

    def record(
        self,
        *,
        name: str,
        version: int,
        content_hash: str,
        chunking: str,
        parent: int | None,
        path: str,
        counts: dict,
        selection: dict,
        created_at: str,
        signature: str | None = None,
        exported_by: str | None = None,
    ) -> None:
        """Record an export; ``signature``: the fingerprint of the key that signed it;
        ``exported_by``: who exported it (None: not known)."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO testset_versions (name, version, content_hash, chunking, parent,"
                " path, counts, selection, created_at, signature, exported_by)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (name, version) DO UPDATE SET content_hash = excluded.content_hash,"
                " chunking = excluded.chunking, parent = excluded.parent, path = excluded.path,"
                " counts = excluded.counts, selection = excluded.selection,"
                " created_at = excluded.created_at, signature = excluded.signature,"
                " exported_by = excluded.exported_by",
                (
                    name,
                    version,
                    content_hash,
                    chunking,
                    parent,
                    path,
                    json.dumps(counts, sort_keys=True),
                    json.dumps(selection, sort_keys=True),
                    created_at,
                    signature,
                    exported_by,
                ),
            )

    def recorded(self, name: str) -> dict[int, dict]:
        """{version: row} of what this database exported under ``name``."""
        rows = self.query(
            "SELECT name, version, content_hash, chunking, parent, path, counts, selection,"
            " created_at, signature, exported_by FROM testset_versions WHERE name = ?"
            " ORDER BY version",
            (name,),
        )
        for row in rows:
            row["counts"] = json.loads(row["counts"])
            row["selection"] = json.loads(row["selection"])
        return {row["version"]: row for row in rows}

    def unsigned(self) -> list[dict]:
        """The versions exported before versions were signed, not yet re-signed (nor left
        unsigned for a reason): name, version, path, content_hash."""
        return self.query(
            "SELECT name, version, path, content_hash FROM testset_versions"
            " WHERE signature IS NULL ORDER BY name, version"
        )

    def set_signature(self, name: str, version: int, signature: str) -> None:
        """How a version is signed: its key's fingerprint, or ``unsigned: <why>``."""
        with self.write() as conn:
            conn.execute(
                "UPDATE testset_versions SET signature = ? WHERE name = ? AND version = ?",
                (signature, name, version),
            )

    def testset_names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT name FROM testset_versions")]


__all__ = ["Versions"]
