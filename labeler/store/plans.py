"""Spot-check sample plans: a stratified sample of one judge's verdicts on one metric, in review
order, and which of its items a reviewer has rated."""

from __future__ import annotations

from collections.abc import Sequence

from labeler.store.base import Facet, now
from labeler.store.ratings import RELEVANCE


class Plans(Facet):
    __slots__ = ()

    def save(
        self,
        name: str,
        *,
        metric: str,
        judge: str,
        seed: int,
        per_stratum: int,
        disagreements: bool,
        created_by: str | None,
        items: Sequence[tuple[str, str, str]],
    ) -> None:
        """Store a sample plan: (item key, stratum, reason) in review order."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO judge_plans (name, metric, judge, seed, per_stratum, disagreements,"
                " created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, metric, judge, seed, per_stratum, int(disagreements), created_by, now()),
            )
            conn.executemany(
                "INSERT INTO judge_plan_items (plan, position, item, stratum, reason)"
                " VALUES (?, ?, ?, ?, ?)",
                [(name, i, *row) for i, row in enumerate(items, start=1)],
            )

    def delete(self, name: str) -> None:
        """Drop a plan (not the ratings given while following it: those are labels)."""
        with self.write() as conn:
            conn.execute("DELETE FROM judge_plan_items WHERE plan = ?", (name,))
            conn.execute("DELETE FROM judge_plans WHERE name = ?", (name,))

    def get(self, name: str) -> dict | None:
        rows = self.query("SELECT * FROM judge_plans WHERE name = ?", (name,))
        return rows[0] if rows else None

    def all(self) -> list[dict]:
        return self.query(
            "SELECT p.*, (SELECT count(*) FROM judge_plan_items WHERE plan = p.name) AS items"
            " FROM judge_plans p ORDER BY p.created_at, p.name"
        )

    def items(self, name: str) -> list[dict]:
        return self.query(
            "SELECT position, item, stratum, reason FROM judge_plan_items WHERE plan = ?"
            " ORDER BY position",
            (name,),
        )

    def rated_plan_items(self, plan: str, metric: str, rater: str, chunking: str) -> set[str]:
        """The items of a plan that ``rater`` has rated on its metric (labels for relevance)."""
        if metric == RELEVANCE:
            sql = (
                "SELECT p.item FROM judge_plan_items p JOIN labels l"
                " ON l.chunking = :chunking AND l.reviewer = :rater"
                " AND json_array(l.question_id, l.chunk_id) = p.item WHERE p.plan = :plan"
            )
        else:
            sql = (
                "SELECT p.item FROM judge_plan_items p JOIN rating_items i ON i.key = p.item"
                " JOIN ratings r ON r.item = i.pk AND r.metric = :metric AND r.rater = :rater"
                " WHERE p.plan = :plan"
            )
        params = {"plan": plan, "metric": metric, "rater": rater, "chunking": chunking}
        return {row[0] for row in self.conn.execute(sql, params)}


__all__ = ["Plans"]
