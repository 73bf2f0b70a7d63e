"""Retrieval runs: a retriever's ranked chunks per question, imported whole and replaced whole.

Imports go through a temporary staging table, so a run file is checked against the questions and
chunks in SQL (fast, streaming) and merged in one statement, or not at all.
"""

from __future__ import annotations

from collections.abc import Iterable

from labeler.errors import LabelerError, Quoted
from labeler.store.base import StoreBase, now

# (line, question_id, chunk_id, rank or None, score or None)
StagedResult = tuple[int, str, str, int | None, float | None]

# Each staged result's position in its question's list: by rank when the file gives ranks (file
# order breaks ties), else by score descending (chunk id descending breaks ties, as trec_eval).
_POSITIONED = """
    SELECT question_id, chunk_id, rank, score,
        row_number() OVER (
            PARTITION BY question_id
            ORDER BY rank IS NULL, rank,
                     CASE WHEN rank IS NULL THEN -score END,
                     CASE WHEN rank IS NULL THEN chunk_id END DESC,
                     line
        ) AS position
    FROM staged_results
"""


class RunStore(StoreBase):
    def stage_results(self, rows: Iterable[StagedResult], *, batch: int = 50_000) -> int:
        """Load parsed run lines into the temporary table ``staged_results``; returns the count."""
        self.conn.execute("DROP TABLE IF EXISTS temp.staged_results")
        self.conn.execute(
            "CREATE TEMP TABLE staged_results (line INTEGER PRIMARY KEY, question_id TEXT,"
            " chunk_id TEXT, rank INTEGER, score REAL)"
        )
        return _insert_batches(
            self.conn, "INSERT INTO staged_results VALUES (?, ?, ?, ?, ?)", rows, batch
        )

    def check_staged_results(self, chunking: str, path: str) -> None:
        """Raise on the first staged line whose question or chunk is unknown, or repeated."""
        _raise_first(
            self,
            path,
            [
                (
                    "SELECT s.line, s.question_id FROM staged_results s"
                    " LEFT JOIN questions q ON q.id = s.question_id"
                    " WHERE q.id IS NULL ORDER BY s.line LIMIT 1",
                    (),
                    "question_id",
                    "unknown question id {!r} (import the questions first)",
                ),
                (
                    "SELECT s.line, s.chunk_id FROM staged_results s"
                    " LEFT JOIN chunks c ON c.chunking = ? AND c.id = s.chunk_id"
                    " WHERE c.id IS NULL ORDER BY s.line LIMIT 1",
                    (chunking,),
                    "chunk_id",
                    f"unknown chunk id {{!r}} in chunking {chunking!r}",
                ),
                (
                    "SELECT max(s.line), s.chunk_id FROM staged_results s"
                    " GROUP BY s.question_id, s.chunk_id HAVING count(*) > 1"
                    " ORDER BY max(s.line) LIMIT 1",
                    (),
                    "chunk_id",
                    "chunk id {!r} appears twice for the same question",
                ),
            ],
        )

    def merge_staged_results(
        self, name: str, chunking: str, source: str, *, pool_depth: int = 10
    ) -> tuple[int, int, int]:
        """Replace run ``name`` with the staged lines; returns (added, updated, unchanged).

        A result's position is its place in the question's list: by rank when the file gives
        ranks (file order breaks ties), else by score descending (chunk id descending breaks
        ties, as trec_eval does), else file order.
        """
        with self.write() as conn:
            conn.execute("DROP TABLE IF EXISTS temp.new_results")
            conn.execute(f"CREATE TEMP TABLE new_results AS {_POSITIONED}")
            unchanged = self.scalar(
                "SELECT count(*) FROM new_results n JOIN run_results r"
                " ON r.question_id = n.question_id AND r.run = ? AND r.chunk_id = n.chunk_id"
                " AND r.position = n.position AND r.rank IS n.rank AND r.score IS n.score",
                (name,),
            )
            kept = self.scalar(
                "SELECT count(*) FROM new_results n JOIN run_results r"
                " ON r.question_id = n.question_id AND r.run = ? AND r.chunk_id = n.chunk_id",
                (name,),
            )
            total = self.scalar("SELECT count(*) FROM new_results")
            old_total = self.scalar("SELECT count(*) FROM run_results WHERE run = ?", (name,))
            old = self.conn.execute(
                "SELECT chunking, pool_depth FROM runs WHERE name = ?", (name,)
            ).fetchone()
            if unchanged == total == old_total and old == (chunking, pool_depth):
                return 0, 0, int(unchanged)
            conn.execute("DELETE FROM run_results WHERE run = ?", (name,))
            conn.execute(
                "INSERT INTO runs (name, chunking, source, results, pool_depth, imported_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET"
                " chunking = excluded.chunking, source = excluded.source,"
                " results = excluded.results, pool_depth = excluded.pool_depth,"
                " imported_at = excluded.imported_at",
                (name, chunking, source, total, pool_depth, now()),
            )
            conn.execute(
                "INSERT INTO run_results (question_id, run, chunk_id, position, rank, score)"
                " SELECT question_id, ?, chunk_id, position, rank, score FROM new_results",
                (name,),
            )
            conn.execute("DROP TABLE temp.new_results")
        return int(total - kept), int(kept - unchanged), int(unchanged)

    def staged_ranking(self) -> list[tuple[str, str, int]]:
        """The staged lines as (question, chunk, position), positioned exactly as an import
        would store them, by question then position: an uploaded run read for evaluation."""
        return self.conn.execute(
            f"SELECT question_id, chunk_id, position FROM ({_POSITIONED})"
            " ORDER BY question_id, position"
        ).fetchall()

    def run_ranking(self, name: str) -> list[tuple[str, str, int]]:
        """(question, chunk, position) of every result of an imported run, by question then
        position (1 is the top)."""
        return self.conn.execute(
            "SELECT question_id, chunk_id, position FROM run_results WHERE run = ?"
            " ORDER BY question_id, position",
            (name,),
        ).fetchall()

    def graded_questions_in_staged_results(self, chunking: str) -> list[str]:
        """Questions of the staged run whose progress is tracked (someone has graded them)."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT s.question_id FROM staged_results s JOIN progress p"
                " ON p.question_id = s.question_id AND p.chunking = ?",
                (chunking,),
            )
        ]

    def runs(self) -> list[dict]:
        return self.query(
            "SELECT name, chunking, source, results, pool_depth, imported_at,"
            " (SELECT count(DISTINCT question_id) FROM run_results WHERE run = runs.name)"
            " AS questions FROM runs ORDER BY name"
        )

    def run_names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM runs ORDER BY name")]


def _insert_batches(conn, sql: str, rows: Iterable[tuple], batch: int) -> int:
    count = 0
    pending: list[tuple] = []
    for row in rows:
        pending.append(row)
        if len(pending) >= batch:
            conn.executemany(sql, pending)
            count += len(pending)
            pending.clear()
    if pending:
        conn.executemany(sql, pending)
        count += len(pending)
    return count


def _raise_first(store: StoreBase, path: str, checks: list[tuple]) -> None:
    """Run each (sql, params, field, message) check; raise LabelerError on the first hit."""
    for sql, params, field, message in checks:
        row = store.conn.execute(sql, params).fetchone()
        if row is not None:
            raise LabelerError(message.format(Quoted(row[1])), path=path, line=row[0], field=field)
