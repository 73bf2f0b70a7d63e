"""Where a question's candidate chunks come from: runs, full-text search, additions, labels."""

from __future__ import annotations

from collections.abc import Sequence

from labeler.store.base import StoreBase, now


class PoolStore(StoreBase):
    def pool_sources(self, question_id: str, chunking: str) -> list[tuple[str, str, int | None]]:
        """Every (chunk id, source, position) that puts a chunk in the question's pool.

        Sources: each run's top ``pool_depth`` (source = the run's name), the built-in full-text
        search (``search:bm25``), chunks added by hand or by a generator (``added:<how>``), and
        chunks someone already labelled (``labelled``).
        """
        return [
            tuple(row)
            for row in self.conn.execute(
                """
                SELECT r.chunk_id, r.run, r.position FROM run_results r
                JOIN runs ON runs.name = r.run AND runs.chunking = :chunking
                WHERE r.question_id = :q AND r.position <= runs.pool_depth
                UNION ALL
                SELECT chunk_id, 'search:bm25', position FROM pool_fts
                WHERE question_id = :q AND chunking = :chunking
                UNION ALL
                SELECT chunk_id, 'added:' || source, NULL FROM pool_additions
                WHERE question_id = :q AND chunking = :chunking
                UNION ALL
                SELECT DISTINCT chunk_id, 'labelled', NULL FROM labels
                WHERE question_id = :q AND chunking = :chunking
                """,
                {"q": question_id, "chunking": chunking},
            )
        ]

    def add_to_pool(
        self,
        question_id: str,
        chunking: str,
        chunk_ids: Sequence[str],
        *,
        source: str,
        added_by: str | None,
    ) -> int:
        """Add chunks to a question's pool; returns how many were new there."""
        stamp = now()
        with self.write() as conn:
            return conn.executemany(
                "INSERT OR IGNORE INTO pool_additions (question_id, chunking, chunk_id, source,"
                " added_by, added_at) VALUES (?, ?, ?, ?, ?, ?)",
                [(question_id, chunking, c, source, added_by, stamp) for c in chunk_ids],
            ).rowcount

    def fts_pool_hash(self, question_id: str, chunking: str) -> str | None:
        value = self.scalar(
            "SELECT query_hash FROM pool_fts_state WHERE question_id = ? AND chunking = ?",
            (question_id, chunking),
        )
        return None if value is None else str(value)

    def save_fts_pool(
        self, question_id: str, chunking: str, query_hash: str, chunk_ids: Sequence[str]
    ) -> None:
        """Remember the search results for this question text, so a reload need not search."""
        with self.write() as conn:
            conn.execute(
                "DELETE FROM pool_fts WHERE question_id = ? AND chunking = ?",
                (question_id, chunking),
            )
            conn.executemany(
                "INSERT INTO pool_fts (question_id, chunking, chunk_id, position)"
                " VALUES (?, ?, ?, ?)",
                [(question_id, chunking, c, i) for i, c in enumerate(chunk_ids, start=1)],
            )
            conn.execute(
                "INSERT INTO pool_fts_state (question_id, chunking, query_hash) VALUES (?, ?, ?)"
                " ON CONFLICT (question_id, chunking)"
                " DO UPDATE SET query_hash = excluded.query_hash",
                (question_id, chunking, query_hash),
            )
