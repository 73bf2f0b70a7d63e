"""The flags of generated questions, their duplicate pairs, and the review queue they order.

Flags are computed by ``labeler.flags`` (pure) and kept current by ``labeler.review``: this
module only stores them, says which questions changed since (``flags_dirty``, filled by
triggers on the questions), and answers the queue's queries (filters, order, counts) in SQL,
so a queue of 50,000 questions is a few index lookups per page.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from labeler.store.base import Facet


@dataclass(frozen=True, slots=True)
class QueueFilter:
    """Which generated questions the queue holds: by status (None for all), generator,
    synthesizer, persona, tag and flag name. ``exclude`` drops ids (the first of each
    duplicate cluster, for a batch that keeps them)."""

    status: str | None = "pending"
    generator: str | None = None
    synthesizer: str | None = None
    persona: str | None = None
    tag: str | None = None
    flag: str | None = None
    exclude: tuple[str, ...] = ()

    def where(self) -> tuple[str, dict]:
        """The SQL condition over ``rq`` (review_queue, which holds every generated question
        with copies of its status, generator, synthesizer and persona), with its parameters."""
        parts = ["1"]
        params: dict = {}
        for column in ("status", "generator", "synthesizer", "persona"):
            value = getattr(self, column)
            if value is not None:
                parts.append(f"rq.{column} = :{column}")
                params[column] = value
        if self.tag is not None:
            parts.append(
                "rq.question_id IN (SELECT question_id FROM question_tags WHERE tag = :tag)"
            )
            params["tag"] = self.tag
        if self.flag is not None:
            parts.append(
                "rq.question_id IN (SELECT question_id FROM question_flags WHERE name = :flag)"
            )
            params["flag"] = self.flag
        if self.exclude:
            parts.append("rq.question_id NOT IN (SELECT value FROM json_each(:exclude))")
            params["exclude"] = json.dumps(list(self.exclude))
        return " AND ".join(parts), params


_FROM = " FROM review_queue rq"


class Flags(Facet):
    __slots__ = ()

    # what needs recomputing -------------------------------------------------------------------

    def dirty_questions(self) -> tuple[int, list[str]]:
        """(the last change's number, the questions changed up to it), for ``clear_dirty``."""
        last = self.scalar("SELECT max(seq) FROM flags_dirty")
        if last is None:
            return 0, []
        ids = [
            r[0]
            for r in self.conn.execute(
                "SELECT DISTINCT question_id FROM flags_dirty WHERE seq <= ?", (last,)
            )
        ]
        return int(last), ids

    def clear_dirty(self, upto: int) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM flags_dirty WHERE seq <= ?", (upto,))

    def queue_out_of_step(self) -> bool:
        """True when the queue does not hold as many questions as there are generated ones (a
        table rebuilt without its triggers, a database from before this migration): then
        everything is recomputed. Two counts: it runs on every page load."""
        return bool(
            self.scalar(
                "SELECT (SELECT count(*) FROM questions WHERE origin = 'generated')"
                " != (SELECT count(*) FROM review_queue)"
            )
        )

    # what flags are computed from ---------------------------------------------------------------

    def flag_inputs(self, ids: Sequence[str] | None = None) -> Iterator[dict]:
        """Generated questions with their contexts: id, text, reference_answer, and contexts
        as a list of (text, chunking, matched chunk ids); all, or only ``ids``."""
        where = "q.origin = 'generated'"
        params: tuple = ()
        if ids is not None:
            where += " AND q.id IN (SELECT value FROM json_each(?))"
            params = (json.dumps(list(ids)),)
        cursor = self.conn.execute(
            "SELECT q.id, q.text, q.reference_answer,"
            " (SELECT json_group_array(json_array(c.text, c.chunking, json(c.chunk_ids)))"
            "  FROM (SELECT * FROM question_contexts WHERE question_id = q.id"
            "        ORDER BY position) c)"
            f" FROM questions q WHERE {where} ORDER BY q.id",
            params,
        )
        while rows := cursor.fetchmany(5000):
            for question_id, text, reference, contexts in rows:
                yield {
                    "id": question_id,
                    "text": text,
                    "reference_answer": reference,
                    "contexts": [tuple(c) for c in json.loads(contexts or "[]")],
                }

    def every_question_text(self) -> dict[str, str]:
        """Every question's text, human ones included: what duplicates are found among."""
        return dict(self.conn.execute("SELECT id, text FROM questions"))

    def generated_ids(self) -> set[str]:
        return {
            r[0] for r in self.conn.execute("SELECT id FROM questions WHERE origin = 'generated'")
        }

    def chunk_text_of(self, chunking: str, chunk_ids: Iterable[str]) -> dict[str, str]:
        rows = self.conn.execute(
            "SELECT id, text FROM chunks WHERE chunking = ?"
            " AND id IN (SELECT value FROM json_each(?))",
            (chunking, json.dumps(list(chunk_ids))),
        )
        return dict(rows.fetchall())

    # writing flags ----------------------------------------------------------------------------

    def replace_flags(
        self, flags: Mapping[str, Sequence[tuple[str, str, Sequence[str]]]], *, keep: str
    ) -> None:
        """Replace the flags of the questions in ``flags`` (each a list of (name, reason,
        related ids)), leaving their flags named ``keep`` alone."""
        with self.write() as conn:
            ids = json.dumps(list(flags))
            conn.execute(
                "DELETE FROM question_flags WHERE name != ?"
                " AND question_id IN (SELECT value FROM json_each(?))",
                (keep, ids),
            )
            conn.executemany(
                "INSERT INTO question_flags (question_id, name, reason, related)"
                " VALUES (?, ?, ?, ?)",
                [
                    (question_id, name, reason, json.dumps(list(related)))
                    for question_id, found in flags.items()
                    for name, reason, related in found
                    if name != keep
                ],
            )

    def clear_all_flags(self) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM question_flags")
            conn.execute("DELETE FROM duplicate_pairs")

    def replace_duplicate_pairs(
        self, question_ids: Iterable[str] | None, pairs: Iterable[tuple[str, str, float]]
    ) -> None:
        """Drop every pair touching ``question_ids`` (None: every pair) and store ``pairs``
        (a < b)."""
        with self.write() as conn:
            if question_ids is None:
                conn.execute("DELETE FROM duplicate_pairs")
            else:
                ids = json.dumps(list(question_ids))
                conn.execute(
                    "DELETE FROM duplicate_pairs WHERE a IN (SELECT value FROM json_each(?))"
                    " OR b IN (SELECT value FROM json_each(?))",
                    (ids, ids),
                )
            conn.executemany(
                "INSERT OR REPLACE INTO duplicate_pairs (a, b, score) VALUES (?, ?, ?)", pairs
            )

    def duplicate_pairs(self) -> list[tuple[str, str, float]]:
        return [tuple(r) for r in self.conn.execute("SELECT a, b, score FROM duplicate_pairs")]

    def flag_names(self) -> dict[str, list[str]]:
        """The names of every question's flags."""
        names: dict[str, list[str]] = {}
        for question_id, name in self.conn.execute(
            "SELECT question_id, name FROM question_flags ORDER BY question_id, name"
        ):
            names.setdefault(question_id, []).append(name)
        return names

    def duplicate_flags(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        return {
            question_id: (reason, tuple(json.loads(related)))
            for question_id, reason, related in self.conn.execute(
                "SELECT question_id, reason, related FROM question_flags WHERE name = 'duplicate'"
            )
        }

    def set_duplicate_flags(
        self, removed: Iterable[str], flags: Mapping[str, tuple[str, Sequence[str]]]
    ) -> None:
        with self.write() as conn:
            conn.execute(
                "DELETE FROM question_flags WHERE name = 'duplicate'"
                " AND question_id IN (SELECT value FROM json_each(?))",
                (json.dumps([*removed, *flags]),),
            )
            conn.executemany(
                "INSERT INTO question_flags (question_id, name, reason, related)"
                " VALUES (?, 'duplicate', ?, ?)",
                [(q, reason, json.dumps(list(related))) for q, (reason, related) in flags.items()],
            )

    def queue_rows(self) -> dict[str, tuple[str, str | None]]:
        return {
            question_id: (key, cluster)
            for question_id, key, cluster in self.conn.execute(
                "SELECT question_id, queue_key, cluster FROM review_queue"
            )
        }

    def set_queue_rows(
        self, rows: Mapping[str, tuple[str, str | None]], removed: Iterable[str] = ()
    ) -> None:
        """Place questions in the queue (key, cluster), with copies of their status,
        generator, synthesizer and persona; take ``removed`` out."""
        with self.write() as conn:
            conn.execute(
                "DELETE FROM review_queue WHERE question_id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(removed)),),
            )
            conn.executemany(
                "INSERT INTO review_queue (question_id, queue_key, cluster, status, generator,"
                " synthesizer, persona) SELECT q.id, ?2, ?3, q.review_status, q.generator,"
                " g.synthesizer, g.persona FROM questions q"
                " LEFT JOIN question_generation g ON g.question_id = q.id WHERE q.id = ?1"
                " ON CONFLICT (question_id) DO UPDATE SET queue_key = excluded.queue_key,"
                " cluster = excluded.cluster, status = excluded.status,"
                " generator = excluded.generator, synthesizer = excluded.synthesizer,"
                " persona = excluded.persona",
                [(q, key, cluster) for q, (key, cluster) in rows.items()],
            )

    # reading flags ----------------------------------------------------------------------------

    def flags_of(self, question_ids: Iterable[str]) -> dict[str, list[dict]]:
        """{question id: [{"name", "reason", "related"}]} in the order of FLAG_NAMES."""
        from labeler.flags import FLAG_NAMES

        order = {name: i for i, name in enumerate(FLAG_NAMES)}
        found: dict[str, list[dict]] = {}
        for question_id, name, reason, related in self.conn.execute(
            "SELECT question_id, name, reason, related FROM question_flags"
            " WHERE question_id IN (SELECT value FROM json_each(?))",
            (json.dumps(list(question_ids)),),
        ):
            found.setdefault(question_id, []).append(
                {"name": name, "reason": reason, "related": json.loads(related)}
            )
        for flags in found.values():
            flags.sort(key=lambda f: order.get(f["name"], len(order)))
        return found

    def flag_counts(self, status: str | None = "pending") -> dict[str, int]:
        """Generated questions per flag, among those in ``status`` (None: all)."""
        return dict(
            self.conn.execute(
                "SELECT f.name, count(*) FROM question_flags f JOIN questions q"
                " ON q.id = f.question_id WHERE q.origin = 'generated'"
                " AND (:status IS NULL OR q.review_status = :status)"
                " GROUP BY f.name ORDER BY f.name",
                {"status": status},
            ).fetchall()
        )

    def pair_scores(self, question_id: str) -> dict[str, float]:
        return {
            other: score
            for other, score in self.conn.execute(
                "SELECT b, score FROM duplicate_pairs WHERE a = ?"
                " UNION ALL SELECT a, score FROM duplicate_pairs WHERE b = ?",
                (question_id, question_id),
            )
        }

    def cluster_members(self, cluster: str) -> list[dict]:
        """Every question of a duplicate cluster, human ones included: id, text, origin,
        status; generated ones carry the cluster in the queue, human ones are found through
        their pairs."""
        generated = [
            r[0]
            for r in self.conn.execute(
                "SELECT question_id FROM review_queue WHERE cluster = ?", (cluster,)
            )
        ]
        if not generated:
            return []
        ids = json.dumps(generated)
        return self.query(
            "SELECT id, text, origin, review_status AS status FROM questions"
            " WHERE id IN (SELECT value FROM json_each(:ids))"
            " OR id IN (SELECT a FROM duplicate_pairs WHERE b IN (SELECT value FROM"
            " json_each(:ids))) OR id IN (SELECT b FROM duplicate_pairs WHERE a IN"
            " (SELECT value FROM json_each(:ids))) ORDER BY id",
            {"ids": ids},
        )

    def duplicate_clusters(self, where: QueueFilter) -> dict[str, list[dict]]:
        """The clusters of the questions matching ``where``, each with all its members (id,
        origin, status), for choosing which one of each cluster to keep."""
        condition, params = where.where()
        clusters = [
            r[0]
            for r in self.conn.execute(
                f"SELECT DISTINCT rq.cluster {_FROM} WHERE {condition} AND rq.cluster IS NOT NULL",
                params,
            )
        ]
        members: dict[str, list[dict]] = {}
        for cluster in clusters:
            members[cluster] = self.cluster_members(cluster)
        return members

    # the queue --------------------------------------------------------------------------------

    def queue_count(self, where: QueueFilter) -> int:
        condition, params = where.where()
        return int(self.scalar(f"SELECT count(*) {_FROM} WHERE {condition}", params))

    def queue_position(self, where: QueueFilter, key: str) -> int:
        """How many questions of the queue come before ``key``."""
        condition, params = where.where()
        return int(
            self.scalar(
                f"SELECT count(*) {_FROM} WHERE {condition} AND rq.queue_key < :key",
                {**params, "key": key},
            )
        )

    def in_queue(self, where: QueueFilter, question_id: str) -> bool:
        condition, params = where.where()
        return (
            self.scalar(
                f"SELECT 1 {_FROM} WHERE {condition} AND rq.question_id = :id",
                {**params, "id": question_id},
            )
            is not None
        )

    def queue_key(self, question_id: str) -> str | None:
        value = self.scalar(
            "SELECT queue_key FROM review_queue WHERE question_id = ?", (question_id,)
        )
        return None if value is None else str(value)

    def queue_next(
        self,
        where: QueueFilter,
        *,
        after: str | None = None,
        before: str | None = None,
        skip: Sequence[str] = (),
        limit: int = 1,
    ) -> list[str]:
        """Question ids in queue order after ``after`` (or, with ``before``, the last ones
        before it, nearest first), leaving out ``skip``."""
        condition, params = where.where()
        if skip:
            condition += " AND rq.question_id NOT IN (SELECT value FROM json_each(:skip))"
            params["skip"] = json.dumps(list(skip))
        if before is not None:
            condition += " AND rq.queue_key < :before"
            params["before"] = before
            order = "DESC"
        else:
            if after is not None:
                condition += " AND rq.queue_key > :after"
                params["after"] = after
            order = "ASC"
        return [
            r[0]
            for r in self.conn.execute(
                f"SELECT rq.question_id {_FROM} WHERE {condition}"
                f" ORDER BY rq.queue_key {order} LIMIT :n",
                {**params, "n": limit},
            )
        ]

    def queue_rows_full(self, where: QueueFilter) -> list[dict]:
        """Every question of the queue in order, as ``review list`` prints it (id, status,
        generator, synthesizer, persona, text, flags): two plain queries (the rows, then the
        flags) rather than a subquery per row, as 50,000 rows are a common size."""
        from labeler.flags import FLAG_NAMES

        condition, params = where.where()
        order = {name: i for i, name in enumerate(FLAG_NAMES)}
        flags: dict[str, list[tuple[int, dict]]] = {}
        for question_id, name, reason, related in self.conn.execute(
            "SELECT question_id, name, reason, related FROM question_flags"
        ):
            flags.setdefault(question_id, []).append(
                (
                    order.get(name, len(order)),
                    {"name": name, "reason": reason, "related": json.loads(related)},
                )
            )
        cursor = self.conn.execute(
            "SELECT rq.question_id, rq.status, rq.generator, rq.synthesizer, rq.persona, q.text"
            f" {_FROM} JOIN questions q ON q.id = rq.question_id WHERE {condition}"
            " ORDER BY rq.queue_key",
            params,
        )
        return [
            {
                "id": question_id,
                "status": status,
                "generator": generator,
                "synthesizer": synthesizer,
                "persona": persona,
                "text": text,
                "flags": [f for _, f in sorted(flags[question_id], key=lambda x: x[0])]
                if question_id in flags
                else [],
            }
            for question_id, status, generator, synthesizer, persona, text in cursor
        ]

    def queue_revisions(self, where: QueueFilter) -> dict[str, int]:
        """{id: revision} of every question of the queue: what a batch is confirmed on."""
        condition, params = where.where()
        return dict(
            self.conn.execute(
                f"SELECT rq.question_id, coalesce(r.revision, 0) {_FROM}"
                " LEFT JOIN question_reviews r ON r.question_id = rq.question_id"
                f" WHERE {condition} ORDER BY rq.queue_key",
                params,
            ).fetchall()
        )

    def filter_values(self) -> dict[str, list[tuple[str, int]]]:
        """The values each filter can take, with how many generated questions have each."""

        def grouped(sql: str) -> list[tuple[str, int]]:
            return [(r[0], r[1]) for r in self.conn.execute(sql) if r[0] is not None]

        return {
            "generator": grouped(
                "SELECT generator, count(*) FROM review_queue GROUP BY generator ORDER BY 1"
            ),
            "synthesizer": grouped(
                "SELECT synthesizer, count(*) FROM review_queue GROUP BY synthesizer ORDER BY 1"
            ),
            "persona": grouped(
                "SELECT persona, count(*) FROM review_queue GROUP BY persona ORDER BY 1"
            ),
            "tag": grouped(
                "SELECT t.tag, count(*) FROM question_tags t JOIN questions q"
                " ON q.id = t.question_id WHERE q.origin = 'generated'"
                " GROUP BY t.tag ORDER BY t.tag"
            ),
            "flag": grouped(
                "SELECT name, count(*) FROM question_flags GROUP BY name ORDER BY name"
            ),
        }


__all__ = ["Flags", "QueueFilter"]
