"""The project's signing key: the 32-byte seed of its Ed25519 key pair (``labeler.versions.
signing`` derives the public key and signs). One row, made when the database is created.

The seed is read by the signing code only; nothing prints, logs or exports it.
"""

from __future__ import annotations

from labeler.store.base import Facet, now


class Keys(Facet):
    __slots__ = ()

    def seed(self) -> bytes | None:
        value = self.scalar("SELECT seed FROM signing_key WHERE id = 1")
        return None if value is None else bytes(value)

    def create(self, seed: bytes) -> bytes:
        """Store ``seed`` unless a key is there already; returns the key in force (two
        processes making one at once agree on the first)."""
        with self.write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO signing_key (id, algorithm, seed, created_at)"
                " VALUES (1, 'Ed25519', ?, ?)",
                (seed, now()),
            )
            return bytes(conn.execute("SELECT seed FROM signing_key WHERE id = 1").fetchone()[0])

    def created_at(self) -> str | None:
        value = self.scalar("SELECT created_at FROM signing_key WHERE id = 1")
        return None if value is None else str(value)


__all__ = ["Keys"]
