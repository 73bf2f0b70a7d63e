"""Where a question's candidate chunks come from: runs, full-text search, dense search,
additions, labels; and the pools computed ahead (BM25 and dense), with the claims that keep two
workers from doing one twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal, NamedTuple

from labeler.store.base import Facet, now
from labeler.store.search import SearchHit

# A pool computed ahead: the BM25 search's or the dense search's. Its tables: the pool, its
# state (the key it was computed for, when, by whom) and the claims of workers computing it.
PoolKind = Literal["search", "dense"]
_TABLES: dict[str, tuple[str, str, str]] = {
    "search": ("pool_fts", "pool_fts_state", "pool_claims"),
    "dense": ("pool_dense", "pool_dense_state", "pool_dense_claims"),
}


class PoolSource(NamedTuple):
    """One reason a chunk is in a question's pool.

    ``kind``: ``run`` (name: the run, rank: its position), ``search`` (name: ``bm25``, rank: its
    place in the search results), ``dense`` (name: the embedding model, name@version, rank: its
    place in the dense search's results), ``added`` (name: who added it from the search box),
    ``generator`` (name: the import that matched it to the question's source contexts), or
    ``labelled`` (name: the reviewer who graded it). ``via`` is the stored addition source.
    """

    chunk_id: str
    kind: str
    name: str
    rank: int | None
    via: str | None = None


class Pools(Facet):
    __slots__ = ()

    def provenance(self, question_id: str, chunking: str) -> list[PoolSource]:
        """Every source that puts a chunk in the question's pool (one row per source).

        Runs count to their ``pool_depth``; the searches (BM25, dense) to the size they were
        computed at.
        """
        rows = self.provenance_rows(chunking, [question_id]).get(question_id, [])
        return [PoolSource._make(row[1:]) for row in rows]

    def provenance_rows(
        self, chunking: str, question_ids: Sequence[str]
    ) -> dict[str, list[tuple[str, str, str, str, int | None, str | None]]]:
        """``provenance`` of many questions in one query (an export reads every pool in its
        one read transaction), as the rows come: {question: [(question, chunk, kind, name,
        rank, via)]}, a ``PoolSource`` after the question; no object per row, so that
        reading hundreds of thousands of sources costs the query and little more."""
        found: dict[str, list] = {}
        cursor = self.conn.execute(
            # (question, chunk, reviewer) is the labels' key within a chunking: no DISTINCT.
            """
            WITH wanted(id) AS (SELECT value FROM json_each(:ids))
            SELECT r.question_id, r.chunk_id, 'run', r.run, r.position, NULL FROM run_results r
            JOIN runs ON runs.name = r.run AND runs.chunking = :chunking
            WHERE r.question_id IN wanted AND r.position <= runs.pool_depth
            UNION ALL
            SELECT question_id, chunk_id, 'search', 'bm25', position, NULL FROM pool_fts
            WHERE question_id IN wanted AND chunking = :chunking
            UNION ALL
            SELECT d.question_id, d.chunk_id, 'dense', coalesce(s.model, 'dense'), d.position,
                NULL
            FROM pool_dense d JOIN pool_dense_state s
            ON s.question_id = d.question_id AND s.chunking = d.chunking
            WHERE d.question_id IN wanted AND d.chunking = :chunking
            UNION ALL
            SELECT question_id, chunk_id,
                CASE source WHEN 'suggested' THEN 'generator' ELSE 'added' END,
                coalesce(added_by, source), NULL, source
            FROM pool_additions WHERE question_id IN wanted AND chunking = :chunking
            UNION ALL
            SELECT question_id, chunk_id, 'labelled', reviewer, NULL, NULL FROM labels
            WHERE question_id IN wanted AND chunking = :chunking
            """,
            {"ids": json.dumps(list(question_ids)), "chunking": chunking},
        )
        while rows := cursor.fetchmany(50_000):
            for row in rows:
                sources = found.get(row[0])
                if sources is None:
                    sources = found[row[0]] = []
                sources.append(row)
        return found

    def run_depths(self, chunking: str) -> dict[str, int]:
        """{run: the depth to which it pools} of the runs on ``chunking``."""
        return self.pairs("SELECT name, pool_depth FROM runs WHERE chunking = ?", (chunking,))

    def sources(self, question_id: str, chunking: str) -> list[tuple[str, str, int | None]]:
        """(chunk id, source, position) per source, sources named as the grading page shows
        them: a run's name, ``search:bm25``, ``dense:<model>``, ``added:<how>``, ``labelled``."""
        found: dict[tuple[str, str, int | None], None] = {}
        for s in self.provenance(question_id, chunking):
            if s.kind == "run":
                label = s.name
            elif s.kind in ("search", "dense"):
                label = f"{s.kind}:{s.name}"
            elif s.kind in ("added", "generator"):
                label = f"added:{s.via}"
            else:
                label = s.kind
            found[(s.chunk_id, label, s.rank)] = None
        return list(found)

    def add(
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

    # pools computed ahead: BM25 search ("search") and dense ("dense") ---------------------------
    # The two kinds are stored, keyed and claimed alike, each in its own tables (``_TABLES``):
    # a kind's pool is written once per key, and goes stale apart from the other's.

    def fts_pool_hash(
        self, question_id: str, chunking: str, *, kind: PoolKind = "search"
    ) -> str | None:
        value = self.scalar(
            f"SELECT query_hash FROM {_TABLES[kind][1]} WHERE question_id = ? AND chunking = ?",
            (question_id, chunking),
        )
        return None if value is None else str(value)

    def fts_pool_hashes(self, chunking: str, *, kind: PoolKind = "search") -> dict[str, str]:
        """Question id -> the key its stored pool of ``kind`` was computed for."""
        return dict(
            self.conn.execute(
                f"SELECT question_id, query_hash FROM {_TABLES[kind][1]} WHERE chunking = ?",
                (chunking,),
            )
        )

    def fts_pool_state(
        self, question_id: str, chunking: str, *, kind: PoolKind = "search"
    ) -> dict | None:
        rows = self.query(
            "SELECT query_hash, computed_at, computed_by, search_ms"
            + (", model" if kind == "dense" else "")
            + f" FROM {_TABLES[kind][1]} WHERE question_id = ? AND chunking = ?",
            (question_id, chunking),
        )
        return rows[0] if rows else None

    def claim_fts_pool(
        self,
        question_id: str,
        chunking: str,
        query_hash: str,
        worker: str,
        *,
        stale_before: str,
        kind: PoolKind = "search",
    ) -> str:
        """Take the right to compute a pool, in one transaction.

        Returns ``ready`` (a pool for this key is stored: nothing to do), ``busy`` (another
        worker claimed it since ``stale_before`` and is computing it) or ``claimed``.
        """
        claims = _TABLES[kind][2]
        with self.write() as conn:
            if self.fts_pool_hash(question_id, chunking, kind=kind) == query_hash:
                return "ready"
            held = conn.execute(
                f"SELECT worker, query_hash, claimed_at FROM {claims}"
                " WHERE question_id = ? AND chunking = ?",
                (question_id, chunking),
            ).fetchone()
            if (
                held is not None
                and held[0] != worker
                and held[1] == query_hash
                and held[2] >= stale_before
            ):
                return "busy"
            conn.execute(
                f"INSERT INTO {claims} (question_id, chunking, query_hash, worker, claimed_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (question_id, chunking) DO UPDATE SET"
                " query_hash = excluded.query_hash, worker = excluded.worker,"
                " claimed_at = excluded.claimed_at",
                (question_id, chunking, query_hash, worker, now()),
            )
            return "claimed"

    def release_fts_claim(
        self, question_id: str, chunking: str, worker: str, *, kind: PoolKind = "search"
    ) -> None:
        with self.write() as conn:
            conn.execute(
                f"DELETE FROM {_TABLES[kind][2]}"
                " WHERE question_id = ? AND chunking = ? AND worker = ?",
                (question_id, chunking, worker),
            )

    def save_fts_pool(
        self,
        question_id: str,
        chunking: str,
        query_hash: str,
        hits: Sequence[SearchHit],
        *,
        worker: str | None = None,
        search_ms: float | None = None,
        kind: PoolKind = "search",
        model: str | None = None,
    ) -> bool:
        """Store the results for this key, unless they are already stored: a pool is written
        once. Returns whether it wrote. Releases the worker's claim either way. ``model``: the
        embedding model of a dense pool."""
        pool, state, claims = _TABLES[kind]
        with self.write() as conn:
            if worker is not None:
                conn.execute(
                    f"DELETE FROM {claims} WHERE question_id = ? AND chunking = ? AND worker = ?",
                    (question_id, chunking, worker),
                )
            if self.fts_pool_hash(question_id, chunking, kind=kind) == query_hash:
                return False
            conn.execute(
                f"DELETE FROM {pool} WHERE question_id = ? AND chunking = ?",
                (question_id, chunking),
            )
            conn.executemany(
                f"INSERT INTO {pool} (question_id, chunking, chunk_id, position, score)"
                " VALUES (?, ?, ?, ?, ?)",
                [(question_id, chunking, h.chunk_id, h.rank, h.score) for h in hits],
            )
            conn.execute(
                f"INSERT INTO {state} (question_id, chunking, query_hash, computed_at,"
                " computed_by, search_ms) VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (question_id, chunking) DO UPDATE SET"
                " query_hash = excluded.query_hash, computed_at = excluded.computed_at,"
                " computed_by = excluded.computed_by, search_ms = excluded.search_ms",
                (question_id, chunking, query_hash, now(), worker, search_ms),
            )
            if kind == "dense":
                conn.execute(
                    f"UPDATE {state} SET model = ? WHERE question_id = ? AND chunking = ?",
                    (model, question_id, chunking),
                )
            return True
