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
    ) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO testset_versions (name, version, content_hash, chunking, parent,"
                " path, counts, selection, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (name, version) DO UPDATE SET content_hash = excluded.content_hash,"
                " chunking = excluded.chunking, parent = excluded.parent, path = excluded.path,"
                " counts = excluded.counts, selection = excluded.selection,"
                " created_at = excluded.created_at",
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
                ),
            )

    def recorded(self, name: str) -> dict[int, dict]:
        """{version: row} of what this database exported under ``name``."""
        rows = self.query(
            "SELECT name, version, content_hash, chunking, parent, path, counts, selection,"
            " created_at FROM testset_versions WHERE name = ? ORDER BY version",
            (name,),
        )
        for row in rows:
            row["counts"] = json.loads(row["counts"])
            row["selection"] = json.loads(row["selection"])
        return {row["version"]: row for row in rows}

    def testset_names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT name FROM testset_versions")]


__all__ = ["Versions"]
