"""The connection and what every facet shares: one connection per Store, WAL, a busy timeout,
write transactions that take the lock up front, and the ``Facet`` base of the table families.

Streamlit runs every rerun on a new thread, so the app opens a Store per script run (cheap for
SQLite) and never shares one between threads; SQLite's same-thread check stays on to prove it.
``BEGIN IMMEDIATE`` makes two writers queue on the busy timeout instead of one failing on a
read-to-write lock upgrade: two reviewers never lose a write.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from labeler.errors import LabelerError, Quoted


def _import_sqlite_utils():
    """sqlite_utils imports pandas when it can, only to map ``pandas.Timestamp`` columns on
    insert, which the store never does: kept from seeing it, every command starts 0.3 to 1 s
    sooner (pandas stays importable for whoever needs it)."""
    if "pandas" in sys.modules:
        import sqlite_utils

        return sqlite_utils
    sys.modules["pandas"] = None  # type: ignore[assignment]  (import pandas: ImportError)
    try:
        import sqlite_utils
    finally:
        del sys.modules["pandas"]
    return sqlite_utils


sqlite_utils = _import_sqlite_utils()

BUSY_TIMEOUT_S = 30.0


def now() -> str:
    """UTC timestamp, ISO 8601 with microseconds: sorts as text and compares across machines."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class Database:
    """Opens the database, applies migrations, and hands out transactions."""

    def __init__(self, path: str | Path, *, migrate: bool = True, handed: bool = False) -> None:
        """``handed``: the connection may be handed from one thread to the next (never used by
        two at once: the app's runs take turns with it, see ``labeler.app.state``); else
        SQLite's own check keeps it on the thread that opened it."""
        self.path = Path(path)
        in_memory = str(path) == ":memory:"
        if not in_memory and self.path.is_dir():
            raise LabelerError("is a folder, not a database file", path=self.path)
        if not in_memory and self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._open(path, in_memory=in_memory, migrate=migrate, handed=handed)
        except sqlite3.DatabaseError as error:
            if getattr(self, "db", None) is not None:
                self.db.close()
            msg = f"not a labeler database (SQLite says: {error})"
            raise LabelerError(msg, path=self.path) from None

    def _open(self, path: str | Path, *, in_memory: bool, migrate: bool, handed: bool) -> None:
        """Connect, check that the file is a SQLite database, and bring its schema up to date.
        A file that is not a database raises sqlite3.DatabaseError at the first statement."""
        self.db = None
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=not handed
        )
        self.db = sqlite_utils.Database(conn, execute_plugins=False)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        conn.execute("PRAGMA foreign_keys = ON")
        if not in_memory and self.db.journal_mode != "wal":
            self.db.enable_wal()
        conn.execute("PRAGMA synchronous = NORMAL")
        self._cache_size = int(conn.execute("PRAGMA cache_size").fetchone()[0])
        if migrate:
            from labeler.store.schema import migrations

            if migrations.pending(self.db):
                with self.write():
                    migrations.apply(self.db)

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    def reset_session(self) -> None:
        """The connection as it was opened, for the next run a store is handed to
        (``labeler.app.state``): SQLite's page cache back to its size (an import asks for 1 GiB)
        and no temporary table left (an import's staging and its notes of changed texts)."""
        self.conn.execute(f"PRAGMA cache_size = {self._cache_size}")
        temporary = self.conn.execute(
            "SELECT name FROM temp.sqlite_master WHERE type = 'table'"
        ).fetchall()
        for (name,) in temporary:
            self.conn.execute(f'DROP TABLE temp."{name}"')

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the write lock at BEGIN; nested calls join the outer one.

        Everything inside commits together or not at all: an import that fails on line 900 000
        leaves the database as it was.
        """
        if self.conn.in_transaction:
            with self.db.atomic():
                yield self.conn
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    def query(self, sql: str, params: tuple | list | dict = ()) -> list[sqlite3.Row]:
        cursor = self.conn.execute(sql, params)
        columns = [c[0] for c in cursor.description or ()]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]

    def scalar(self, sql: str, params: tuple | list | dict = ()) -> object:
        row = self.conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def pairs(self, sql: str, params: tuple | list | dict = ()) -> dict:
        """{first column: second column} of a two-column query, in the query's order."""
        return dict(self.conn.execute(sql, params).fetchall())

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction (WAL: a fixed view of the database) for everything inside, so a
        reviewer grading during an export can never leave it with half of a change.

        Inside a write transaction already, it simply joins it.
        """
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    # settings -------------------------------------------------------------------------------

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        value = self.scalar("SELECT value FROM settings WHERE key = ?", (key,))
        return default if value is None else str(value)

    def set_setting(self, key: str, value: str) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )


class Facet:
    """One table family's SQL (``store.labels``, ``store.runs``, ...), over the project's one
    connection. A facet reads and writes its own tables; the few that act on another family in
    the same transaction are handed that facet when the store is built, never the whole store.
    """

    __slots__ = ("_db",)

    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def conn(self) -> sqlite3.Connection:
        return self._db.conn

    def write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return self._db.write()

    def query(self, sql: str, params: tuple | list | dict = ()) -> list[dict]:
        return self._db.query(sql, params)

    def scalar(self, sql: str, params: tuple | list | dict = ()) -> object:
        return self._db.scalar(sql, params)

    def pairs(self, sql: str, params: tuple | list | dict = ()) -> dict:
        return self._db.pairs(sql, params)

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        return self._db.get_setting(key, default)

    def set_setting(self, key: str, value: str) -> None:
        self._db.set_setting(key, value)


# helpers of more than one facet ----------------------------------------------------------------


def insert_batches(conn: sqlite3.Connection, sql: str, rows: Iterable[tuple], batch: int) -> int:
    """``executemany`` in batches of ``batch`` rows, so a file of millions of rows is never held
    in memory at once; returns the rows inserted."""
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


def raise_first(conn: sqlite3.Connection, path: str, checks: list[tuple]) -> None:
    """Run each (sql, params, field, message) check over staged rows; raise a LabelerError
    naming the file and line of the first hit (a check's query returns (line, value))."""
    for sql, params, field, message in checks:
        row = conn.execute(sql, params).fetchone()
        if row is not None:
            raise LabelerError(message.format(Quoted(row[1])), path=path, line=row[0], field=field)
