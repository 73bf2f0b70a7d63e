"""Ratings: metrics with their scales, raters, rated items, verdicts and their history, and the
spot-check sample plans.

Imports stage their rows in temporary tables, are checked in SQL (every problem names the line
it came from) and merged in a few statements, inside the caller's transaction: a bad line
writes nothing, and the same file twice changes nothing.

Relevance grades are labels (``labels``), not rows here: ``metric_ratings('relevance')`` reads
them as the people's ratings of the metric ``relevance``, keyed by (question, chunk), so the
same statistics measure reviewers and judges.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from labeler.errors import LabelerError, NotFoundError
from labeler.store.base import Facet, insert_batches, now, raise_first
from labeler.store.labels import check_reviewer

RELEVANCE = "relevance"
# The project setting naming the judge whose grade a reviewer sees after giving their own.
REVEAL_SETTING = "judge_after_grading"

# (key, line, question, answer, contexts JSON, chunk_id)
StagedItem = tuple[str, int, str | None, str | None, str | None, str | None]
# (line, item key, metric, rater, kind, value, passed, rationale, extra JSON)
StagedRating = tuple[int, str, str, str, str, float, int | None, str | None, str | None]

# The key the statistics see: relevance items are (question, chunk) pairs, whoever rated them.
_REPORT_KEY = (
    "CASE WHEN r.metric = 'relevance' THEN json_array(i.question_id, i.chunk_id) ELSE i.key END"
)


def relevance_key(question_id: str, chunk_id: str) -> str:
    """The report key of a (question, chunk) pair, as ``metric_ratings`` writes it."""
    return json.dumps([question_id, chunk_id], separators=(",", ":"), ensure_ascii=False)


def parse_relevance_key(key: str) -> tuple[str, str] | None:
    if not key.startswith("["):
        return None
    try:
        value = json.loads(key)
    except json.JSONDecodeError:
        return None
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return value[0], value[1]
    return None


class Ratings(Facet):
    __slots__ = ()

    # metrics and raters -----------------------------------------------------------------------

    def metrics(self) -> dict[str, dict]:
        """{name: {scale, threshold, threshold_source, pass_when, definition}}."""
        return {
            row["name"]: row
            for row in self.query(
                "SELECT name, scale, threshold, threshold_source, pass_when, definition"
                " FROM rating_metrics ORDER BY name"
            )
        }

    def metric_counts(self) -> dict[str, dict[str, int]]:
        """{metric: {"model": ratings, "human": ratings, "items": items}} of the ratings table."""
        found: dict[str, dict[str, int]] = {}
        for metric, kind, count, items in self.conn.execute(
            "SELECT r.metric, ra.kind, count(*), count(DISTINCT r.item) FROM ratings r"
            " JOIN raters ra ON ra.name = r.rater GROUP BY r.metric, ra.kind"
        ):
            entry = found.setdefault(metric, {"model": 0, "human": 0, "items": 0})
            entry[kind] = count
            entry["items"] = max(entry["items"], items)
        return found

    def metric_judges(self) -> dict[str, list[str]]:
        """{metric: its model raters, by name}."""
        found: dict[str, list[str]] = {}
        for metric, rater in self.conn.execute(
            "SELECT DISTINCT r.metric, r.rater FROM ratings r JOIN raters ra ON ra.name = r.rater"
            " WHERE ra.kind = 'model' ORDER BY r.metric, r.rater"
        ):
            found.setdefault(metric, []).append(rater)
        return found

    def label_count(self, chunking: str) -> int:
        return int(self.scalar("SELECT count(*) FROM labels WHERE chunking = ?", (chunking,)))

    def save_metric(
        self,
        name: str,
        *,
        scale: str,
        threshold: float | None,
        threshold_source: str | None,
        pass_when: str,
        definition: str | None = None,
        keep_definition: bool = True,
    ) -> bool:
        """Declare or change a metric; returns True if anything changed."""
        with self.write() as conn:
            old = conn.execute(
                "SELECT scale, threshold, threshold_source, pass_when, definition"
                " FROM rating_metrics WHERE name = ?",
                (name,),
            ).fetchone()
            if keep_definition and definition is None and old is not None:
                definition = old[4]
            new = (scale, threshold, threshold_source, pass_when, definition)
            if old is not None and tuple(old) == new:
                return False
            conn.execute(
                "INSERT INTO rating_metrics (name, scale, threshold, threshold_source, pass_when,"
                " definition, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (name) DO UPDATE SET scale = excluded.scale,"
                " threshold = excluded.threshold, threshold_source = excluded.threshold_source,"
                " pass_when = excluded.pass_when, definition = excluded.definition,"
                " updated_at = excluded.updated_at",
                (name, *new, now()),
            )
        return True

    def metric_value_range(self, name: str) -> dict:
        """min, max, count, non-integers, and whether any stored rating says it passed or not."""
        row = self.query(
            "SELECT min(value) AS low, max(value) AS high, count(*) AS n,"
            " sum(value != CAST(value AS INTEGER)) AS fractional FROM ratings WHERE metric = ?",
            (name,),
        )[0]
        return {k: (0 if v is None and k in ("n", "fractional") else v) for k, v in row.items()}

    def raters(self) -> dict[str, str]:
        """{name: kind} of every rater named in the ratings, plus every label reviewer (human)."""
        found = {r: "human" for (r,) in self.conn.execute("SELECT DISTINCT reviewer FROM labels")}
        found.update(dict(self.conn.execute("SELECT name, kind FROM raters")))
        return found

    # staging an import ------------------------------------------------------------------------

    def begin_rating_stage(self) -> None:
        self.conn.execute("DROP TABLE IF EXISTS temp.staged_items")
        self.conn.execute("DROP TABLE IF EXISTS temp.staged_ratings")
        self.conn.execute(
            "CREATE TEMP TABLE staged_items (key TEXT PRIMARY KEY, line INTEGER, question TEXT,"
            " answer TEXT, contexts TEXT, chunk_id TEXT, question_id TEXT, context_ids TEXT)"
        )
        self.conn.execute(
            "CREATE TEMP TABLE staged_ratings (seq INTEGER PRIMARY KEY, line INTEGER, item TEXT,"
            " metric TEXT,"
            " rater TEXT, kind TEXT, value REAL, passed INTEGER, rationale TEXT, extra TEXT)"
        )

    def stage_items(self, rows: Iterable[StagedItem]) -> int:
        return insert_batches(
            self.conn,
            "INSERT INTO staged_items (key, line, question, answer, contexts, chunk_id)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
            10_000,
        )

    def stage_ratings(self, rows: Iterable[StagedRating]) -> int:
        return insert_batches(
            self.conn,
            "INSERT INTO staged_ratings (line, item, metric, rater, kind, value, passed, rationale,"
            " extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
            50_000,
        )

    def staged_metric_values(self) -> dict[str, dict]:
        """Per staged metric: its first line, min and max value, count, non-integers."""
        return {
            row["metric"]: row
            for row in self.query(
                "SELECT metric, min(line) AS line, min(value) AS low, max(value) AS high,"
                " count(*) AS n, sum(value != CAST(value AS INTEGER)) AS fractional"
                " FROM staged_ratings GROUP BY metric ORDER BY min(line)"
            )
        }

    def drop_staged_metric(self, metric: str) -> None:
        self.conn.execute("DELETE FROM staged_ratings WHERE metric = ?", (metric,))

    def check_staged_verdicts(
        self, path: str, metric: str, condition: str, message: str, *, field: str = "verdict"
    ) -> None:
        """Raise on the first staged rating of ``metric`` whose value breaks ``condition`` (an
        SQL expression over ``value``, written by the caller from a Scale, never user text);
        ``field`` is where the file holds the value."""
        raise_first(
            self.conn,
            path,
            [
                (
                    f"SELECT line, value FROM staged_ratings WHERE metric = ? AND NOT ({condition})"
                    " ORDER BY line LIMIT 1",
                    (metric,),
                    field,
                    message,
                )
            ],
        )

    def resolve_staged_items(self, chunking: str, path: str) -> None:
        """Link staged items to questions and chunks, and check what must hold.

        A ``question`` that is a question id (or exactly one question's text) links the item to
        it. A ``chunk_id`` must be a chunk of ``chunking``. ``contexts`` that are all chunk ids
        of the chunking are kept as ids, their texts copied (so they survive re-chunking).
        """
        conn = self.conn
        conn.execute(
            "UPDATE staged_items SET question_id = question"
            " WHERE question IN (SELECT id FROM questions)"
        )
        conn.execute(
            "UPDATE staged_items SET question_id = (SELECT min(q.id) FROM questions q"
            " WHERE q.text = staged_items.question) WHERE question_id IS NULL"
            " AND question IS NOT NULL"
        )
        conn.execute(
            "UPDATE staged_items SET context_ids = contexts,"
            " contexts = (SELECT json_group_array(text) FROM (SELECT c.text"
            "   FROM json_each(staged_items.contexts) j JOIN chunks c"
            "   ON c.chunking = :chunking AND c.id = j.value ORDER BY j.key))"
            " WHERE contexts IS NOT NULL AND json_array_length(contexts) > 0"
            " AND NOT EXISTS (SELECT 1 FROM json_each(staged_items.contexts) j"
            "   LEFT JOIN chunks c ON c.chunking = :chunking AND c.id = j.value"
            "   WHERE c.id IS NULL)",
            {"chunking": chunking},
        )
        checks = [
            (
                "SELECT s.line, s.chunk_id FROM staged_items s LEFT JOIN chunks c"
                " ON c.chunking = ? AND c.id = s.chunk_id"
                " WHERE s.chunk_id IS NOT NULL AND c.id IS NULL ORDER BY s.line LIMIT 1",
                (chunking,),
                "chunk_id",
                f"unknown chunk id {{!r}} in chunking {chunking!r}",
            ),
            (
                "SELECT max(s.line), s.chunk_id FROM staged_items s WHERE s.chunk_id IS NOT NULL"
                " AND s.question_id IS NOT NULL GROUP BY s.question_id, s.chunk_id"
                " HAVING count(*) > 1 ORDER BY max(s.line) LIMIT 1",
                (),
                "chunk_id",
                "chunk {!r} of this question is already another item of this file",
            ),
            (
                "SELECT s.line, i.key FROM staged_items s JOIN rating_items i"
                " ON i.chunking = ? AND i.question_id = s.question_id AND i.chunk_id = s.chunk_id"
                " WHERE i.key != s.key ORDER BY s.line LIMIT 1",
                (chunking,),
                "item",
                "this question and chunk are already the item {!r}; use that item id",
            ),
        ]
        raise_first(self.conn, path, checks)

    def check_staged_ratings(self, path: str) -> None:
        """What only the database can tell: a rater's kind against the stored one, a model
        named like a reviewer, a relevance rating that is not on a question's chunk. (One
        verdict per item, metric and rater, and one kind per rater within the file, are
        checked while the file is read.)"""
        raise_first(
            self.conn,
            path,
            [
                (
                    "SELECT min(s.line), s.rater FROM staged_ratings s JOIN raters r"
                    " ON r.name = s.rater WHERE r.kind != s.kind GROUP BY s.rater"
                    " ORDER BY 1 LIMIT 1",
                    (),
                    "rater_kind",
                    "rater {!r} is already known with the other kind (model or human)",
                ),
                (
                    "SELECT min(s.line), s.rater FROM staged_ratings s WHERE s.kind = 'model'"
                    " AND s.rater IN (SELECT DISTINCT reviewer FROM labels) GROUP BY s.rater"
                    " ORDER BY 1 LIMIT 1",
                    (),
                    "rater",
                    "{!r} is a reviewer who grades chunks; a model needs another name",
                ),
                (
                    "SELECT s.line, s.item FROM staged_ratings s JOIN staged_items i"
                    " ON i.key = s.item WHERE s.metric = 'relevance'"
                    " AND (i.chunk_id IS NULL OR i.question_id IS NULL) ORDER BY s.line LIMIT 1",
                    (),
                    "chunk_id",
                    "item {!r}: relevance is graded on a question's chunk; give chunk_id and the"
                    " question's id",
                ),
            ],
        )

    def staged_human_relevance(self) -> dict[str, list[tuple[int, str, str, int]]]:
        """{reviewer: [(line, question, chunk, grade)]}: people's relevance grades in the file,
        which are labels (see ``labeler.judge.importing``)."""
        found: dict[str, list[tuple[int, str, str, int]]] = {}
        for line, rater, question_id, chunk_id, value in self.conn.execute(
            "SELECT s.line, s.rater, i.question_id, i.chunk_id, s.value FROM staged_ratings s"
            " JOIN staged_items i ON i.key = s.item WHERE s.metric = 'relevance'"
            " AND s.kind = 'human' ORDER BY s.line"
        ):
            found.setdefault(rater, []).append((line, question_id, chunk_id, int(value)))
        return found

    def settle_staged_passes(self, metric: str, *, stated: bool) -> None:
        """On a score metric a person's 1 or 0 means pass or fail and is kept as such (any other
        value is a score, which the threshold decides); a judge's own pass/fail (DeepEval's
        ``success``) is dropped when the user stated a threshold."""
        self.conn.execute(
            "UPDATE staged_ratings SET passed = CAST(value AS INTEGER)"
            " WHERE metric = ? AND kind = 'human' AND value IN (0, 1)",
            (metric,),
        )
        if stated:
            self.conn.execute(
                "UPDATE staged_ratings SET passed = NULL WHERE metric = ? AND kind = 'model'",
                (metric,),
            )

    def drop_staged_human_relevance(self) -> None:
        self.conn.execute(
            "DELETE FROM staged_ratings WHERE metric = 'relevance' AND kind = 'human'"
        )

    def merge_staged_ratings(
        self, chunking: str, source: str, *, action: str = "import"
    ) -> dict[str, int]:
        """Write the staged items and ratings; returns counts of what changed.

        Items: new keys are added; for known keys, the fields the file gives replace the
        stored ones. Ratings: added, updated (value, pass/fail or rationale changed) or
        unchanged; every added or changed rating appends a rating_events row.
        """
        stamp = now()
        params = {"chunking": chunking, "at": stamp, "source": source, "action": action}
        with self.write() as conn:
            conn.execute("PRAGMA cache_size = -262144")
            items_added = conn.execute(
                "INSERT INTO rating_items (key, question_id, question, chunking, chunk_id, answer,"
                " contexts, context_ids, source, created_at, updated_at)"
                " SELECT s.key, s.question_id,"
                " CASE WHEN s.question_id IS NULL THEN s.question END,"
                " CASE WHEN s.chunk_id IS NOT NULL THEN :chunking END, s.chunk_id, s.answer,"
                " s.contexts, s.context_ids, :source, :at, :at FROM staged_items s"
                " WHERE s.key NOT IN (SELECT key FROM rating_items) ORDER BY s.line",
                params,
            ).rowcount
            items_updated = conn.execute(
                "UPDATE rating_items SET"
                " question_id = coalesce(s.question_id, rating_items.question_id),"
                " question = CASE WHEN s.question IS NULL THEN rating_items.question"
                "   WHEN s.question_id IS NULL THEN s.question END,"
                " chunking = CASE WHEN s.chunk_id IS NOT NULL THEN :chunking"
                "   ELSE rating_items.chunking END,"
                " chunk_id = coalesce(s.chunk_id, rating_items.chunk_id),"
                " answer = coalesce(s.answer, rating_items.answer),"
                " contexts = coalesce(s.contexts, rating_items.contexts),"
                " context_ids = CASE WHEN s.contexts IS NULL THEN rating_items.context_ids"
                "   ELSE s.context_ids END,"
                " updated_at = :at"
                " FROM staged_items s WHERE rating_items.key = s.key AND ("
                " (s.question_id IS NOT NULL AND s.question_id IS NOT rating_items.question_id)"
                " OR (s.question IS NOT NULL AND s.question_id IS NULL"
                "     AND s.question IS NOT rating_items.question)"
                " OR (s.chunk_id IS NOT NULL AND s.chunk_id IS NOT rating_items.chunk_id)"
                " OR (s.answer IS NOT NULL AND s.answer IS NOT rating_items.answer)"
                " OR (s.contexts IS NOT NULL AND s.contexts IS NOT rating_items.contexts))",
                params,
            ).rowcount
            conn.execute(
                "INSERT OR IGNORE INTO raters (name, kind) SELECT DISTINCT rater, kind"
                " FROM staged_ratings"
            )
            conn.execute("DROP TABLE IF EXISTS temp.joined_ratings")
            conn.execute(
                "CREATE TEMP TABLE joined_ratings AS"
                " SELECT s.seq, s.line, s.metric, i.pk AS item, s.rater, s.value, s.passed,"
                " s.rationale, s.extra, r.value AS old_value, r.passed AS old_passed,"
                " r.rationale AS old_rationale, r.extra AS old_extra, r.rater IS NOT NULL AS known"
                " FROM staged_ratings s JOIN rating_items i ON i.key = s.item"
                " LEFT JOIN ratings r ON r.metric = s.metric AND r.item = i.pk"
                " AND r.rater = s.rater ORDER BY s.metric, i.pk, s.rater"
            )
            counts = conn.execute(
                "SELECT count(*), sum(NOT known), sum(known AND (value IS NOT old_value"
                " OR passed IS NOT old_passed OR rationale IS NOT old_rationale"
                " OR extra IS NOT old_extra)) FROM joined_ratings"
            ).fetchone()
            total, added, updated = (int(v or 0) for v in counts)
            conn.execute(
                "INSERT INTO rating_events (metric, item, rater, action, old_value, new_value, at)"
                " SELECT metric, item, rater, :action, old_value, value, :at FROM joined_ratings"
                " WHERE NOT known OR value IS NOT old_value OR passed IS NOT old_passed"
                " ORDER BY seq",
                params,
            )
            conn.execute(
                "INSERT INTO ratings (metric, item, rater, value, passed, rationale, extra, source,"
                " created_at, updated_at)"
                " SELECT metric, item, rater, value, passed, rationale, extra, :source, :at, :at"
                " FROM joined_ratings WHERE NOT known OR value IS NOT old_value"
                " OR passed IS NOT old_passed OR rationale IS NOT old_rationale"
                " OR extra IS NOT old_extra"
                " ON CONFLICT (metric, item, rater) DO UPDATE SET value = excluded.value,"
                " passed = excluded.passed, rationale = excluded.rationale,"
                " extra = excluded.extra, source = excluded.source,"
                " updated_at = excluded.updated_at"
                " WHERE ratings.value IS NOT excluded.value"
                " OR ratings.passed IS NOT excluded.passed"
                " OR ratings.rationale IS NOT excluded.rationale"
                " OR ratings.extra IS NOT excluded.extra",
                params,
            )
            conn.execute("DROP TABLE temp.joined_ratings")
        return {
            "items_added": int(items_added),
            "items_updated": int(items_updated),
            "added": added,
            "updated": updated,
            "unchanged": total - added - updated,
        }

    def rescore_metric(self, name: str, *, clear_passed_of: str = "model") -> int:
        """Forget the judges' own pass/fail on a score metric (a threshold was stated, so the
        threshold decides); returns how many ratings changed."""
        with self.write() as conn:
            return conn.execute(
                "UPDATE ratings SET passed = NULL WHERE metric = ? AND passed IS NOT NULL"
                " AND rater IN (SELECT name FROM raters WHERE kind = ?)",
                (name, clear_passed_of),
            ).rowcount

    # one rating at a time (the review page) ---------------------------------------------------

    def item_pk(self, key: str) -> int | None:
        value = self.scalar("SELECT pk FROM rating_items WHERE key = ?", (key,))
        return None if value is None else int(value)

    def set_rating(
        self,
        key: str,
        metric: str,
        rater: str,
        value: float,
        *,
        kind: str = "human",
        passed: bool | None = None,
        rationale: str | None = None,
    ) -> float | None:
        """Record one verdict (a person's, from the review page); returns the previous value.

        The rationale is kept when ``rationale`` is None. Recorded in rating_events.
        """
        rater = check_reviewer(rater)
        stamp = now()
        with self.write() as conn:
            pk = self.item_pk(key)
            if pk is None:
                msg = f"unknown item {key!r}"
                raise NotFoundError(msg, field="item")
            if (
                conn.execute("SELECT 1 FROM rating_metrics WHERE name = ?", (metric,)).fetchone()
                is None
            ):
                msg = f"unknown metric {metric!r}"
                raise NotFoundError(msg, field="metric")
            known = conn.execute("SELECT kind FROM raters WHERE name = ?", (rater,)).fetchone()
            if known is not None and known[0] != kind:
                msg = f"{rater!r} is known as a {known[0]} rater, not a {kind} one"
                raise LabelerError(msg, field="rater")
            conn.execute("INSERT OR IGNORE INTO raters (name, kind) VALUES (?, ?)", (rater, kind))
            old = conn.execute(
                "SELECT value, passed, rationale FROM ratings"
                " WHERE metric = ? AND item = ? AND rater = ?",
                (metric, pk, rater),
            ).fetchone()
            new_passed = None if passed is None else int(passed)
            new_rationale = (
                (old[2] if old else None) if rationale is None else (rationale.strip() or None)
            )
            if old is not None and (old[0], old[1], old[2]) == (value, new_passed, new_rationale):
                return old[0]
            conn.execute(
                "INSERT INTO ratings (metric, item, rater, value, passed, rationale, source,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'review', ?, ?)"
                " ON CONFLICT (metric, item, rater) DO UPDATE SET value = excluded.value,"
                " passed = excluded.passed, rationale = excluded.rationale,"
                " updated_at = excluded.updated_at",
                (metric, pk, rater, value, new_passed, new_rationale, stamp, stamp),
            )
            if old is None or old[0] != value or old[1] != new_passed:
                conn.execute(
                    "INSERT INTO rating_events (metric, item, rater, action, old_value,"
                    " new_value, at) VALUES (?, ?, ?, 'rate', ?, ?, ?)",
                    (metric, pk, rater, None if old is None else old[0], value, stamp),
                )
        return None if old is None else old[0]

    def item_ratings(self, metric: str, key: str, chunking: str) -> list[dict]:
        """Every rating of one item on one metric: rater, kind, value, passed, rationale.

        ``key`` is the report's key: a (question, chunk) pair for relevance, whose people's
        ratings are the labels."""
        if metric == RELEVANCE:
            pair = parse_relevance_key(key)
            if pair is None:
                return []
            return self.query(
                "SELECT r.rater, ra.kind, r.value, r.passed, r.rationale FROM ratings r"
                " JOIN rating_items i ON i.pk = r.item JOIN raters ra ON ra.name = r.rater"
                " WHERE r.metric = 'relevance' AND i.chunking = :chunking"
                " AND i.question_id = :q AND i.chunk_id = :c"
                " UNION ALL SELECT reviewer, 'human', grade, NULL, note FROM labels"
                " WHERE chunking = :chunking AND question_id = :q AND chunk_id = :c"
                " ORDER BY 1",
                {"chunking": chunking, "q": pair[0], "c": pair[1]},
            )
        return self.query(
            "SELECT r.rater, ra.kind, r.value, r.passed, r.rationale FROM ratings r"
            " JOIN rating_items i ON i.pk = r.item JOIN raters ra ON ra.name = r.rater"
            " WHERE r.metric = ? AND i.key = ? ORDER BY r.rater",
            (metric, key),
        )

    def history(self, key: str) -> list[dict]:
        return self.query(
            "SELECT e.metric, e.rater, e.action, e.old_value, e.new_value, e.at"
            " FROM rating_events e JOIN rating_items i ON i.pk = e.item WHERE i.key = ?"
            " ORDER BY e.id",
            (key,),
        )

    # what the report and the review page read -----------------------------------------------

    def metric_ratings(self, metric: str, chunking: str) -> list[tuple]:
        """(item key, rater, kind, value, passed, rationale) of every rating of ``metric``.

        For ``relevance`` the reviewers' labels in ``chunking`` are included as people's
        ratings (value = grade, rationale = note), every item keyed by (question, chunk).
        """
        sql = (
            f"SELECT {_REPORT_KEY}, r.rater, ra.kind, r.value, r.passed, r.rationale"
            " FROM ratings r JOIN rating_items i ON i.pk = r.item"
            " JOIN raters ra ON ra.name = r.rater WHERE r.metric = :metric"
        )
        if metric == RELEVANCE:
            sql += (
                " AND i.chunking = :chunking UNION ALL"
                " SELECT json_array(question_id, chunk_id), reviewer, 'human', grade, NULL, note"
                " FROM labels WHERE chunking = :chunking"
            )
        return [
            tuple(row) for row in self.conn.execute(sql, {"metric": metric, "chunking": chunking})
        ]

    def revision(self) -> tuple:
        """Changes whenever a rating, a label, an adjudication or a metric changes: the key
        under which a face may cache a report (label_events and rating_events only grow)."""
        return tuple(
            self.conn.execute(
                "SELECT (SELECT max(id) FROM rating_events), (SELECT max(id) FROM label_events),"
                " (SELECT max(updated_at) FROM rating_metrics), (SELECT count(*) FROM ratings),"
                " (SELECT max(updated_at) FROM ratings)"
            ).fetchone()
        )

    def has_relevance_labels(self, chunking: str) -> bool:
        return (
            self.scalar("SELECT 1 FROM labels WHERE chunking = ? LIMIT 1", (chunking,)) is not None
        )

    def rating_items_by_key(self, keys: Sequence[str]) -> dict[str, dict]:
        """What an item shows: key, question (id and text), chunk id and text, answer,
        contexts (texts) and context ids."""
        if not keys:
            return {}
        rows = self.query(
            "SELECT i.key, i.question_id, coalesce(q.text, i.question) AS question,"
            " i.chunking, i.chunk_id, c.text AS chunk_text, c.title AS chunk_title,"
            " i.answer, i.contexts, i.context_ids"
            " FROM rating_items i LEFT JOIN questions q ON q.id = i.question_id"
            " LEFT JOIN chunks c ON c.chunking = i.chunking AND c.id = i.chunk_id"
            " WHERE i.key IN (SELECT value FROM json_each(?))",
            (json.dumps(list(keys)),),
        )
        for row in rows:
            row["contexts"] = json.loads(row["contexts"]) if row["contexts"] else []
            row["context_ids"] = json.loads(row["context_ids"]) if row["context_ids"] else None
        return {row["key"]: row for row in rows}

    def chunk_item_keys(self, chunking: str, question_ids: Sequence[str]) -> dict:
        """{(question id, chunk id): item key} of the (question, chunk) items of these
        questions already stored (a judge run rates them under the key they have)."""
        return {
            (q, c): key
            for q, c, key in self.conn.execute(
                "SELECT question_id, chunk_id, key FROM rating_items WHERE chunking = ?"
                " AND chunk_id IS NOT NULL AND question_id IN (SELECT value FROM json_each(?))",
                (chunking, json.dumps(list(question_ids))),
            )
        }

    def answer_items(self, question_ids: Sequence[str] | None) -> list[dict]:
        """Items that hold an answer with its passages: key, question id, question text,
        answer, contexts (texts); of these questions, or every one (None), by key."""
        rows = self.query(
            "SELECT i.key, i.question_id, coalesce(q.text, i.question) AS question, i.answer,"
            " i.contexts FROM rating_items i LEFT JOIN questions q ON q.id = i.question_id"
            " WHERE i.answer IS NOT NULL AND (:all OR i.question_id IN"
            " (SELECT value FROM json_each(:ids))) ORDER BY i.key",
            {"all": question_ids is None, "ids": json.dumps(list(question_ids or ()))},
        )
        for row in rows:
            row["contexts"] = json.loads(row["contexts"]) if row["contexts"] else []
        return rows

    # the judge's grade after a reviewer's own ----------------------------------------------

    def revealed_judge(self) -> str | None:
        """The judge whose relevance grade a reviewer sees beside their own, once given; or
        None (off, the default)."""
        return self.get_setting(REVEAL_SETTING) or None

    def set_revealed_judge(self, judge: str | None) -> None:
        self.set_setting(REVEAL_SETTING, judge or "")

    def relevance_grades(self, rater: str, chunking: str) -> dict[tuple[str, str], int]:
        """{(question id, chunk id): grade} of every relevance rating ``rater`` gave in
        ``chunking``: a judge's grades as label-next's prior."""
        return {
            (q, c): int(value)
            for q, c, value in self.conn.execute(
                "SELECT i.question_id, i.chunk_id, r.value FROM ratings r"
                " JOIN rating_items i ON i.pk = r.item WHERE r.metric = 'relevance'"
                " AND r.rater = ? AND i.chunking = ?",
                (rater, chunking),
            )
        }

    def relevance_verdicts(
        self, rater: str, chunking: str, question_id: str
    ) -> dict[str, tuple[float, str | None]]:
        """{chunk id: (grade, reason)} of ``rater``'s relevance ratings of one question."""
        return {
            chunk: (value, reason)
            for chunk, value, reason in self.conn.execute(
                "SELECT i.chunk_id, r.value, r.rationale FROM ratings r"
                " JOIN rating_items i ON i.pk = r.item WHERE r.metric = 'relevance'"
                " AND r.rater = ? AND i.chunking = ? AND i.question_id = ?",
                (rater, chunking, question_id),
            )
        }

    def rating_extras(self, metric: str, rater: str) -> dict[str, dict]:
        """{item key: extra} of one rater's ratings of a metric that kept something extra."""
        return {
            key: json.loads(extra)
            for key, extra in self.conn.execute(
                "SELECT i.key, r.extra FROM ratings r JOIN rating_items i ON i.pk = r.item"
                " WHERE r.metric = ? AND r.rater = ? AND r.extra IS NOT NULL",
                (metric, rater),
            )
        }


__all__ = ["RELEVANCE", "REVEAL_SETTING", "Ratings", "parse_relevance_key", "relevance_key"]
