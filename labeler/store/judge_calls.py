"""The calls ``labeler judge run`` made to a model: the cache, failed calls with their raw
text, and the link from a judge's rating to the call it came from (model, prompt, host, raw
answer, tokens, latency).

A rating itself lives in ``ratings`` like any imported one (``labeler.judge.importing`` writes
it); this family holds only what a call adds. Nothing here ever holds an API key or a URL
beyond its host.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from labeler.store.base import Facet


class CallRecord(NamedTuple):
    """One finished call, as ``record`` stores it. ``grade`` is None for a failed call."""

    cache_key: str
    metric: str
    judge: str
    model: str
    prompt_version: str
    prompt_hash: str
    host: str
    item_key: str
    question_id: str | None
    chunk_id: str | None
    grade: int | None
    reason: str | None
    raw: str | None
    error: str | None
    tokens_in: int | None
    tokens_out: int | None
    latency_ms: float | None
    tries: int
    at: str


class CachedAnswer(NamedTuple):
    call: int
    grade: int
    reason: str | None


_COLUMNS = ", ".join(CallRecord._fields)


class JudgeCalls(Facet):
    __slots__ = ()

    def cached(self, keys: Sequence[str]) -> dict[str, CachedAnswer]:
        """{cache key: the latest successful call's answer} for the keys that have one."""
        if not keys:
            return {}
        found: dict[str, CachedAnswer] = {}
        for key, call, grade, reason in self.conn.execute(
            "SELECT cache_key, id, grade, reason FROM judge_calls WHERE status = 'ok'"
            " AND cache_key IN (SELECT value FROM json_each(?)) ORDER BY id",
            (json.dumps(list(keys)),),
        ):
            found[key] = CachedAnswer(call, grade, reason)
        return found

    def rated(self, metric: str, rater: str) -> dict[str, str | None]:
        """{item key: the cache key of the call its rating came from, or None} of every rating
        ``rater`` gave on ``metric`` (None: imported, or given without a call)."""
        return self.pairs(
            "SELECT i.key, c.cache_key FROM ratings r JOIN rating_items i ON i.pk = r.item"
            " LEFT JOIN rating_calls l ON l.metric = r.metric AND l.item = r.item"
            " AND l.rater = r.rater LEFT JOIN judge_calls c ON c.id = l.call"
            " WHERE r.metric = ? AND r.rater = ?",
            (metric, rater),
        )

    def record(self, calls: Iterable[CallRecord]) -> list[int]:
        """Store finished calls (inside the caller's transaction); returns their ids in order."""
        placeholders = ", ".join("?" for _ in CallRecord._fields)
        sql = (
            f"INSERT INTO judge_calls ({_COLUMNS}, status) VALUES ({placeholders},"
            " CASE WHEN ? IS NULL THEN 'failed' ELSE 'ok' END)"
        )
        ids = []
        for call in calls:
            ids.append(self.conn.execute(sql, (*call, call.grade)).lastrowid)
        return ids

    def link(self, metric: str, rater: str, links: Iterable[tuple[str, int]]) -> None:
        """Each (item key, call id): the rating ``rater`` gave the item came from that call."""
        self.conn.executemany(
            "INSERT INTO rating_calls (metric, item, rater, call)"
            " SELECT ?, pk, ?, ? FROM rating_items WHERE key = ?"
            " ON CONFLICT (metric, item, rater) DO UPDATE SET call = excluded.call",
            [(metric, rater, call, key) for key, call in links],
        )

    def judge_ratings(self, metric: str, judge: str | None, chunking: str) -> list[dict]:
        """Every model rater's rating of ``metric`` (of ``judge`` only, when given), with what
        was rated and, for a rating a judge run made, the call's details; (question, chunk)
        items only in ``chunking``. By judge, question, chunk, answer."""
        return self.query(
            "SELECT i.question_id, coalesce(q.text, i.question) AS question, i.chunk_id,"
            " i.answer, r.rater AS judge, r.value, r.rationale AS reason, c.model,"
            " c.prompt_version, c.prompt_hash, c.host, c.tokens_in, c.tokens_out,"
            " c.latency_ms, c.raw FROM ratings r JOIN raters ra ON ra.name = r.rater"
            " JOIN rating_items i ON i.pk = r.item LEFT JOIN questions q ON q.id = i.question_id"
            " LEFT JOIN rating_calls l ON l.metric = r.metric AND l.item = r.item"
            " AND l.rater = r.rater LEFT JOIN judge_calls c ON c.id = l.call"
            " WHERE r.metric = :metric AND ra.kind = 'model'"
            " AND (:judge IS NULL OR r.rater = :judge)"
            " AND (i.chunk_id IS NULL OR i.chunking = :chunking)"
            " ORDER BY r.rater, i.question_id, i.chunk_id, i.answer, i.key",
            {"metric": metric, "judge": judge, "chunking": chunking},
        )

    def failures(self, metric: str, judge: str | None = None) -> list[dict]:
        """Failed calls not since answered, latest first: the item, the judge, why it failed
        and the raw text the model sent (if it sent any)."""
        return self.query(
            "SELECT c.item_key, c.question_id, coalesce(i.question, q.text) AS question,"
            " c.chunk_id, i.answer, c.judge, c.model, c.host, c.error, c.raw, c.tries, c.at"
            " FROM judge_calls c LEFT JOIN rating_items i ON i.key = c.item_key"
            " LEFT JOIN questions q ON q.id = c.question_id"
            " WHERE c.status = 'failed' AND c.metric = :metric"
            " AND (:judge IS NULL OR c.judge = :judge)"
            " AND NOT EXISTS (SELECT 1 FROM judge_calls o WHERE o.cache_key = c.cache_key"
            "   AND o.status = 'ok')"
            " ORDER BY c.id DESC",
            {"metric": metric, "judge": judge},
        )

    def failed_keys(self, metric: str, judge: str) -> set[str]:
        """Cache keys whose calls only ever failed, for this judge and metric."""
        return {
            key
            for (key,) in self.conn.execute(
                "SELECT DISTINCT cache_key FROM judge_calls c WHERE metric = ? AND judge = ?"
                " AND status = 'failed' AND NOT EXISTS (SELECT 1 FROM judge_calls o"
                " WHERE o.cache_key = c.cache_key AND o.status = 'ok')",
                (metric, judge),
            )
        }


__all__ = ["CachedAnswer", "CallRecord", "JudgeCalls"]
