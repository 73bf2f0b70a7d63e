"""Accounts, their sessions, failed logins and the log of what was done to them.

The rules (who may log in, the lockout, the idle limit, who may do what) are
``labeler.accounts``'; this facet only reads and writes the rows, each change of an account in
one transaction with its row in ``account_events``.
"""

from __future__ import annotations

import sqlite3

from labeler.store.base import Facet

ACCOUNT_COLUMNS = (
    "name, role, password_hash, email, disabled, created_at, created_by, last_login, last_active"
)


def _event(
    conn: sqlite3.Connection, account: str, action: str, actor: str, at: str, detail: str | None
) -> None:
    conn.execute(
        "INSERT INTO account_events (account, action, detail, actor, at) VALUES (?, ?, ?, ?, ?)",
        (account, action, detail, actor, at),
    )


class Accounts(Facet):
    __slots__ = ()

    # accounts -----------------------------------------------------------------------------

    def any(self) -> bool:
        """Whether the database has an account: the app's mode (none: single-person)."""
        return bool(self.scalar("SELECT EXISTS (SELECT 1 FROM accounts)"))

    def get(self, name: str) -> dict | None:
        rows = self.query(f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name = ?", (name,))
        return rows[0] if rows else None

    def by_folded(self, name: str) -> dict | None:
        """The account whose name is ``name`` in any case (two never differ by case alone)."""
        rows = self.query(
            f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE folded = ?", (name.lower(),)
        )
        return rows[0] if rows else None

    def by_email(self, email: str) -> dict | None:
        rows = self.query(
            f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE email = ?", (email.lower(),)
        )
        return rows[0] if rows else None

    def all(self) -> list[dict]:
        return self.query(f"SELECT {ACCOUNT_COLUMNS} FROM accounts ORDER BY name")

    def add(
        self,
        name: str,
        role: str,
        password_hash: str | None,
        email: str | None,
        *,
        actor: str,
        at: str,
        detail: str | None = None,
    ) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO accounts (name, folded, role, password_hash, email, created_at,"
                " created_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, name.lower(), role, password_hash, email, at, actor),
            )
            _event(conn, name, "created", actor, at, detail or f"role {role}")

    def update(
        self,
        name: str,
        action: str,
        *,
        actor: str,
        at: str,
        detail: str | None = None,
        **columns: object,
    ) -> None:
        """Set ``columns`` of one account and log ``action``; a disabled account's sessions end
        in the same transaction."""
        with self.write() as conn:
            if columns:
                sets = ", ".join(f"{column} = :{column}" for column in columns)
                conn.execute(
                    f"UPDATE accounts SET {sets} WHERE name = :name", {**columns, "name": name}
                )
            if columns.get("disabled"):
                self.end_sessions(name, "disabled", at=at)
            _event(conn, name, action, actor, at, detail)

    def log(
        self, name: str, action: str, *, actor: str, at: str, detail: str | None = None
    ) -> None:
        with self.write() as conn:
            _event(conn, name, action, actor, at, detail)

    def events(self, name: str | None = None, *, limit: int = 200) -> list[dict]:
        return self.query(
            "SELECT account, action, detail, actor, at FROM account_events"
            " WHERE ? IS NULL OR account = ? ORDER BY id DESC LIMIT ?",
            (name, name, limit),
        )

    # failed logins --------------------------------------------------------------------------

    def add_failure(self, name: str, at: str) -> None:
        with self.write() as conn:
            conn.execute("INSERT INTO login_failures (name, at) VALUES (?, ?)", (name, at))

    def failures_since(self, name: str, since: str) -> list[str]:
        """When ``name`` failed to log in since ``since``, oldest first."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT at FROM login_failures WHERE name = ? AND at >= ? ORDER BY at",
                (name, since),
            )
        ]

    def clear_failures(self, name: str) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM login_failures WHERE name = ?", (name,))

    # sessions -------------------------------------------------------------------------------

    def start_session(self, token_hash: str, account: str, method: str, at: str) -> None:
        with self.write() as conn:
            conn.execute(
                "INSERT INTO sessions (token_hash, account, method, created_at, last_seen)"
                " VALUES (?, ?, ?, ?, ?)",
                (token_hash, account, method, at, at),
            )
            conn.execute(
                "UPDATE accounts SET last_login = ?, last_active = ? WHERE name = ?",
                (at, at, account),
            )
            _event(conn, account, "login", account, at, method)

    def session(self, token_hash: str) -> dict | None:
        """The session with its account's role and state, or None."""
        rows = self.query(
            "SELECT s.token_hash, s.account, s.method, s.created_at, s.last_seen, s.ended_at,"
            " a.role, a.disabled FROM sessions s JOIN accounts a ON a.name = s.account"
            " WHERE s.token_hash = ?",
            (token_hash,),
        )
        return rows[0] if rows else None

    def touch_session(self, token_hash: str, account: str, at: str) -> None:
        with self.write() as conn:
            conn.execute("UPDATE sessions SET last_seen = ? WHERE token_hash = ?", (at, token_hash))
            conn.execute("UPDATE accounts SET last_active = ? WHERE name = ?", (at, account))

    def end_session(self, token_hash: str, reason: str, at: str) -> bool:
        """End one session; True if it was open. A logout is logged on the account."""
        with self.write() as conn:
            row = conn.execute(
                "SELECT account FROM sessions WHERE token_hash = ? AND ended_at IS NULL",
                (token_hash,),
            ).fetchone()
            if row is None:
                return False
            conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE token_hash = ?",
                (at, reason, token_hash),
            )
            _event(
                conn,
                row[0],
                "logout" if reason == "logout" else "session ended",
                row[0],
                at,
                reason,
            )
        return True

    def end_sessions(self, account: str, reason: str, *, at: str) -> int:
        with self.write() as conn:
            return conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ?"
                " WHERE account = ? AND ended_at IS NULL",
                (at, reason, account),
            ).rowcount

    def open_sessions(self, account: str) -> int:
        return int(
            self.scalar(
                "SELECT count(*) FROM sessions WHERE account = ? AND ended_at IS NULL", (account,)
            )
        )

    # reviewers without an account ----------------------------------------------------------

    def reviewers_without_account(self) -> dict[str, int]:
        """{reviewer: labels} of every reviewer with labels, marks or history and no account:
        who an account of the same name would adopt."""
        return self.pairs(
            "SELECT r.reviewer, (SELECT count(*) FROM labels l WHERE l.reviewer = r.reviewer)"
            " FROM (SELECT reviewer FROM labels UNION SELECT reviewer FROM question_marks"
            " UNION SELECT reviewer FROM label_events) r"
            " WHERE r.reviewer NOT IN (SELECT name FROM accounts) AND r.reviewer != '*'"
            " ORDER BY r.reviewer"
        )

    def work_of(self, name: str) -> dict[str, int]:
        """What a reviewer of this name already did: labels, marks, history rows, decisions on
        generated questions, ratings (an account of this name adopts them all)."""
        return {
            "labels": int(self.scalar("SELECT count(*) FROM labels WHERE reviewer = ?", (name,))),
            "marks": int(
                self.scalar("SELECT count(*) FROM question_marks WHERE reviewer = ?", (name,))
            ),
            "history": int(
                self.scalar("SELECT count(*) FROM label_events WHERE reviewer = ?", (name,))
            ),
            "review decisions": int(
                self.scalar("SELECT count(*) FROM review_events WHERE reviewer = ?", (name,))
            ),
            "ratings": int(self.scalar("SELECT count(*) FROM ratings WHERE rater = ?", (name,))),
        }


__all__ = ["Accounts"]
