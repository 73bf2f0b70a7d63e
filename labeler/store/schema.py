"""The schema, as numbered migrations: every change to it is a new function at the bottom, named
with a number past the last (``0009_...``).

Applied by ``Store`` when it opens a database, so an old file is brought up to date in place. They
are defined, and so applied, in number order (``tests/test_store_facets.py`` holds it); which ones
a database has is known by name, so an old file applies just those it lacks.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

import sqlite_utils

migrations = sqlite_utils.Migrations("labeler")


@migrations(name="0001_initial")
def initial(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT);

        CREATE TABLE documents (
            id TEXT PRIMARY KEY,
            title TEXT,
            source TEXT,
            text TEXT,
            content_hash TEXT,
            imported_at TEXT NOT NULL
        );

        CREATE TABLE chunkings (
            name TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            source TEXT,
            description TEXT
        );

        -- pk is the FTS rowid; id is the id the user's retriever returns, unique per chunking.
        CREATE TABLE chunks (
            pk INTEGER PRIMARY KEY,
            chunking TEXT NOT NULL REFERENCES chunkings(name),
            id TEXT NOT NULL,
            doc_id TEXT,
            title TEXT,
            text TEXT NOT NULL,
            start INTEGER,
            "end" INTEGER,
            metadata TEXT,
            text_hash TEXT NOT NULL,
            UNIQUE (chunking, id)
        );
        CREATE INDEX chunks_by_doc ON chunks (chunking, doc_id, start);

        -- chunking is indexed too, so a search in one chunking is a MATCH, not a filter.
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            chunking, title, text, content='chunks', content_rowid='pk',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts (rowid, chunking, title, text)
            VALUES (new.pk, new.chunking, new.title, new.text);
        END;
        CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, chunking, title, text)
            VALUES ('delete', old.pk, old.chunking, old.title, old.text);
        END;
        CREATE TRIGGER chunks_fts_update AFTER UPDATE OF chunking, title, text ON chunks BEGIN
            INSERT INTO chunks_fts (chunks_fts, rowid, chunking, title, text)
            VALUES ('delete', old.pk, old.chunking, old.title, old.text);
            INSERT INTO chunks_fts (rowid, chunking, title, text)
            VALUES (new.pk, new.chunking, new.title, new.text);
        END;

        CREATE TABLE questions (
            id TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            reference_answer TEXT,
            tags TEXT NOT NULL DEFAULT '[]',
            origin TEXT NOT NULL DEFAULT 'human' CHECK (origin IN ('human', 'generated')),
            generator TEXT,
            source_chunk_ids TEXT NOT NULL DEFAULT '[]',
            review_status TEXT NOT NULL DEFAULT 'accepted'
                CHECK (review_status IN ('pending', 'accepted', 'rejected')),
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE question_tags (
            tag TEXT NOT NULL,
            question_id TEXT NOT NULL REFERENCES questions(id),
            PRIMARY KEY (tag, question_id)
        ) WITHOUT ROWID;

        CREATE TABLE runs (
            name TEXT PRIMARY KEY,
            chunking TEXT NOT NULL,
            source TEXT,
            results INTEGER NOT NULL,
            pool_depth INTEGER NOT NULL DEFAULT 10,
            imported_at TEXT NOT NULL
        );
        -- position is the 1-based place in the run's own order (its rank column, else file order).
        CREATE TABLE run_results (
            question_id TEXT NOT NULL,
            run TEXT NOT NULL REFERENCES runs(name),
            chunk_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            rank INTEGER,
            score REAL,
            PRIMARY KEY (question_id, run, chunk_id)
        ) WITHOUT ROWID;
        CREATE INDEX run_results_by_run ON run_results (run);

        CREATE TABLE labels (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            chunk_id TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            grade INTEGER NOT NULL CHECK (grade IN (0, 1, 2)),
            note TEXT,
            passage_text TEXT,
            doc_id TEXT,
            start INTEGER,
            "end" INTEGER,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (question_id, chunking, chunk_id, reviewer)
        ) WITHOUT ROWID;
        CREATE INDEX labels_by_reviewer ON labels (reviewer, updated_at);

        -- Question-level verdicts of one reviewer: unanswerable (a label too) and skipped.
        CREATE TABLE question_marks (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            unanswerable INTEGER NOT NULL DEFAULT 0,
            skipped INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (question_id, chunking, reviewer)
        ) WITHOUT ROWID;

        -- Append-only: every change to a label or a mark, with who and when.
        CREATE TABLE label_events (
            id INTEGER PRIMARY KEY,
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            chunk_id TEXT,
            reviewer TEXT NOT NULL,
            action TEXT NOT NULL,
            old_grade INTEGER,
            new_grade INTEGER,
            note TEXT,
            at TEXT NOT NULL
        );
        CREATE INDEX label_events_by_question ON label_events (question_id, chunking);
        CREATE INDEX label_events_by_reviewer ON label_events (reviewer, at);
        CREATE TRIGGER label_events_no_update BEFORE UPDATE ON label_events BEGIN
            SELECT RAISE(ABORT, 'label_events is append-only');
        END;
        CREATE TRIGGER label_events_no_delete BEFORE DELETE ON label_events BEGIN
            SELECT RAISE(ABORT, 'label_events is append-only');
        END;

        -- Chunks added to a question's pool by hand (search box), by a generator, or suggested.
        CREATE TABLE pool_additions (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            chunk_id TEXT NOT NULL,
            source TEXT NOT NULL,
            added_by TEXT,
            added_at TEXT NOT NULL,
            PRIMARY KEY (question_id, chunking, chunk_id)
        ) WITHOUT ROWID;

        -- The built-in full-text search's top results for a question, computed once per text.
        CREATE TABLE pool_fts (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            chunk_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (question_id, chunking, chunk_id)
        ) WITHOUT ROWID;
        CREATE TABLE pool_fts_state (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            query_hash TEXT NOT NULL,
            PRIMARY KEY (question_id, chunking)
        ) WITHOUT ROWID;

        -- Kept current by the labelling core after every grade, so progress is one cheap count.
        -- reviewer '*' holds the state for everyone together.
        CREATE TABLE progress (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            pool_size INTEGER NOT NULL,
            graded INTEGER NOT NULL,
            complete INTEGER NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (chunking, reviewer, question_id)
        ) WITHOUT ROWID;
        """
    )


@migrations(name="0002_testset_versions")
def testset_versions(db: sqlite_utils.Database) -> None:
    """Every exported test-set version, adjudicated grades, and exact-text lookup of chunks."""
    db.executescript(
        """
        -- A log of what this database exported; the version folder on disk is the artefact.
        CREATE TABLE testset_versions (
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            chunking TEXT NOT NULL,
            parent INTEGER,
            path TEXT NOT NULL,
            counts TEXT NOT NULL,
            selection TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (name, version)
        );

        -- The settled grade of a (question, chunk) when reviewers disagree; wins over theirs.
        CREATE TABLE adjudications (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            chunk_id TEXT NOT NULL,
            grade INTEGER NOT NULL CHECK (grade IN (0, 1, 2)),
            reviewer TEXT NOT NULL,
            note TEXT,
            at TEXT NOT NULL,
            PRIMARY KEY (question_id, chunking, chunk_id)
        ) WITHOUT ROWID;

        -- Matching imported contexts (Ragas, DeepEval) to chunks by their exact text.
        CREATE INDEX chunks_by_text_hash ON chunks (chunking, text_hash);
        """
    )


@migrations(name="0003_fts_hashsize")
def fts_hashsize(db: sqlite_utils.Database) -> None:
    """FTS5 buffers 64 MB of new terms before writing a segment (its default is 1 MB), so a
    large import writes far fewer, larger segments."""
    db.execute("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('hashsize', 67108864)")


@migrations(name="0004_label_state")
def label_state(db: sqlite_utils.Database) -> None:
    """A label (and an adjudication) is 'current', or 'stale' when its chunk's text was replaced
    after it was given: a stale grade counts as ungraded and is left out of exports until a
    reviewer confirms or changes it. Labels are found by chunk, for the re-import check."""
    db.executescript(
        """
        ALTER TABLE labels ADD COLUMN state TEXT NOT NULL DEFAULT 'current'
            CHECK (state IN ('current', 'stale'));
        ALTER TABLE adjudications ADD COLUMN state TEXT NOT NULL DEFAULT 'current'
            CHECK (state IN ('current', 'stale'));
        CREATE INDEX labels_by_chunk ON labels (chunking, chunk_id);
        """
    )


@migrations(name="0005_question_review")
def question_review(db: sqlite_utils.Database) -> None:
    """The review of generated questions: how each was generated (synthesizer, persona, the
    contexts it came from and the chunks they matched), its review state and append-only
    history, and its advisory flags with the duplicate pairs and the queue order they give.

    Tables named here: question_generation, question_contexts, question_reviews,
    review_events, question_flags, duplicate_pairs, review_queue, flags_dirty. The triggers on
    questions only note, in flags_dirty, which questions' flags need recomputing, and copy a
    question's status and generator into review_queue: whatever writes a question (an import,
    an edit, a decision), its flags and its place in the queue follow without that code
    knowing.
    """
    db.executescript(
        """
        CREATE TABLE question_generation (
            question_id TEXT PRIMARY KEY REFERENCES questions(id),
            synthesizer TEXT,
            persona TEXT,
            metadata TEXT NOT NULL DEFAULT '{}'
        ) WITHOUT ROWID;
        CREATE INDEX question_generation_by_synthesizer ON question_generation (synthesizer);
        CREATE INDEX question_generation_by_persona ON question_generation (persona);

        -- The contexts a question was generated from, in order, with what they matched on
        -- import: how ("id", "exact", "fuzzy", "none") and the chunk ids, in that chunking.
        CREATE TABLE question_contexts (
            question_id TEXT NOT NULL REFERENCES questions(id),
            position INTEGER NOT NULL,
            text TEXT NOT NULL,
            chunking TEXT NOT NULL,
            how TEXT NOT NULL,
            chunk_ids TEXT NOT NULL DEFAULT '[]',
            score REAL,
            PRIMARY KEY (question_id, position)
        ) WITHOUT ROWID;

        -- The current review state of a question someone decided or edited. ``revision``
        -- grows with every decision, edit and undo: a write that names an older revision is
        -- a conflict (someone else decided since the page was opened), never an overwrite.
        CREATE TABLE question_reviews (
            question_id TEXT PRIMARY KEY REFERENCES questions(id),
            revision INTEGER NOT NULL DEFAULT 0,
            decided_by TEXT,
            decided_at TEXT,
            reason TEXT,
            note TEXT,
            original_text TEXT,
            original_reference TEXT,
            edited_by TEXT,
            edited_at TEXT
        ) WITHOUT ROWID;

        -- Append-only: every decision, edit, undo and skip, with who and when.
        CREATE TABLE review_events (
            id INTEGER PRIMARY KEY,
            question_id TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            action TEXT NOT NULL,
            old_status TEXT,
            new_status TEXT,
            reason TEXT,
            note TEXT,
            old_text TEXT,
            new_text TEXT,
            old_reference TEXT,
            new_reference TEXT,
            sources TEXT,
            undoes INTEGER,
            batch TEXT,
            seconds REAL,
            at TEXT NOT NULL
        );
        CREATE INDEX review_events_by_question ON review_events (question_id, id);
        CREATE INDEX review_events_by_reviewer ON review_events (reviewer, id);
        CREATE INDEX review_events_by_undoes ON review_events (undoes) WHERE undoes IS NOT NULL;
        CREATE TRIGGER review_events_no_update BEFORE UPDATE ON review_events BEGIN
            SELECT RAISE(ABORT, 'review_events is append-only');
        END;
        CREATE TRIGGER review_events_no_delete BEFORE DELETE ON review_events BEGIN
            SELECT RAISE(ABORT, 'review_events is append-only');
        END;

        -- Advisory flags of generated questions (labeler.flags), kept current by
        -- labeler.review.ensure_flags; ``related`` is a JSON list of question ids.
        CREATE TABLE question_flags (
            question_id TEXT NOT NULL,
            name TEXT NOT NULL,
            reason TEXT NOT NULL,
            related TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (question_id, name)
        ) WITHOUT ROWID;
        CREATE INDEX question_flags_by_name ON question_flags (name, question_id);

        -- Near-duplicate pairs (a < b) over all questions, human ones included.
        CREATE TABLE duplicate_pairs (
            a TEXT NOT NULL,
            b TEXT NOT NULL,
            score REAL NOT NULL,
            PRIMARY KEY (a, b)
        ) WITHOUT ROWID;
        CREATE INDEX duplicate_pairs_by_b ON duplicate_pairs (b);

        -- The review queue's order for every generated question: duplicate clusters first,
        -- then other flagged questions grouped by flag, then the rest; ``cluster`` is the
        -- smallest id of the question's duplicate cluster. Status, generator, synthesizer and
        -- persona are copies (kept in step by the triggers below) so that the queue's counts,
        -- positions and next question are index lookups at 50,000 questions, with no join.
        CREATE TABLE review_queue (
            question_id TEXT PRIMARY KEY,
            queue_key TEXT NOT NULL,
            cluster TEXT,
            status TEXT NOT NULL,
            generator TEXT,
            synthesizer TEXT,
            persona TEXT
        ) WITHOUT ROWID;
        CREATE INDEX review_queue_order ON review_queue (status, queue_key);
        CREATE INDEX review_queue_by_key ON review_queue (queue_key);
        CREATE INDEX review_queue_by_cluster ON review_queue (cluster);
        CREATE TRIGGER questions_queue_copy AFTER UPDATE OF review_status, generator
        ON questions BEGIN
            UPDATE review_queue SET status = new.review_status, generator = new.generator
            WHERE question_id = new.id;
        END;
        CREATE TRIGGER question_generation_queue_insert AFTER INSERT ON question_generation
        BEGIN
            UPDATE review_queue SET synthesizer = new.synthesizer, persona = new.persona
            WHERE question_id = new.question_id;
        END;
        CREATE TRIGGER question_generation_queue_update AFTER UPDATE OF synthesizer, persona
        ON question_generation BEGIN
            UPDATE review_queue SET synthesizer = new.synthesizer, persona = new.persona
            WHERE question_id = new.question_id;
        END;

        -- Questions whose flags need recomputing, in the order they changed: a refresh clears
        -- the rows up to the last one it read, so a change made while it computed stays.
        CREATE TABLE flags_dirty (seq INTEGER PRIMARY KEY, question_id TEXT NOT NULL);
        INSERT INTO flags_dirty (question_id) SELECT id FROM questions;
        CREATE TRIGGER questions_flags_insert AFTER INSERT ON questions BEGIN
            INSERT INTO flags_dirty (question_id) VALUES (new.id);
        END;
        CREATE TRIGGER questions_flags_update AFTER UPDATE OF text, reference_answer, origin
        ON questions BEGIN
            INSERT INTO flags_dirty (question_id) VALUES (new.id);
        END;
        CREATE TRIGGER questions_flags_delete AFTER DELETE ON questions BEGIN
            INSERT INTO flags_dirty (question_id) VALUES (old.id);
        END;
        CREATE TRIGGER question_contexts_flags_insert AFTER INSERT ON question_contexts BEGIN
            INSERT INTO flags_dirty (question_id) VALUES (new.question_id);
        END;
        CREATE TRIGGER question_contexts_flags_delete AFTER DELETE ON question_contexts BEGIN
            INSERT INTO flags_dirty (question_id) VALUES (old.question_id);
        END;
        """
    )


@migrations(name="0006_remap")
def remap(db: sqlite_utils.Database) -> None:
    """Carrying labels from one chunking to another: each remap, and every mapping it made.

    A mapping is one (label, new chunk) pair with the evidence behind it and the rule's
    decision; the old labels are never touched, so a remap can be redone. A proposal sent to
    the review queue keeps the reviewer's decision on the same row.
    """
    db.executescript(
        """
        CREATE TABLE remaps (
            from_chunking TEXT NOT NULL,
            to_chunking TEXT NOT NULL,
            min_coverage REAL NOT NULL,
            counts TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (from_chunking, to_chunking)
        );

        -- new_chunk_id is '' for a lost label. grade is what the mapping carries (applied) or
        -- proposes (queued). applied_at is the updated_at the remap gave the label it wrote,
        -- so a later remap can tell a label nobody touched since from one a reviewer changed.
        CREATE TABLE remap_mappings (
            from_chunking TEXT NOT NULL,
            to_chunking TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('label', 'adjudication')),
            question_id TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            old_chunk_id TEXT NOT NULL,
            new_chunk_id TEXT NOT NULL,
            old_grade INTEGER NOT NULL CHECK (old_grade IN (0, 1, 2)),
            grade INTEGER NOT NULL CHECK (grade IN (0, 1, 2)),
            note TEXT,
            method TEXT CHECK (method IN ('identical', 'offsets', 'fuzzy')),
            coverage REAL NOT NULL,
            containment REAL NOT NULL,
            similarity REAL NOT NULL,
            decision TEXT NOT NULL CHECK (decision IN ('applied', 'queued', 'lost')),
            reason TEXT NOT NULL,
            applied_at TEXT,
            review TEXT CHECK (review IN ('accepted', 'changed', 'rejected')),
            review_grade INTEGER CHECK (review_grade IN (0, 1, 2)),
            reviewed_by TEXT,
            reviewed_at TEXT,
            PRIMARY KEY (from_chunking, to_chunking, kind, question_id, reviewer, old_chunk_id,
                         new_chunk_id)
        ) WITHOUT ROWID;
        -- The mappings that point at a new chunk: a label's provenance, and the review queue
        -- read from the index alone (proposals grouped by question and chunk).
        CREATE INDEX remap_mappings_by_target
            ON remap_mappings (to_chunking, question_id, new_chunk_id, from_chunking, kind,
                               decision, reviewer, grade, review);
        """
    )


@migrations(name="0007_ratings")
def ratings(db: sqlite_utils.Database) -> None:
    """Ratings of judges and people in one model: metrics with their scales, raters, the items
    they rated, every verdict with its history, and the spot-check sample plans."""
    db.executescript(
        """
        -- scale: 'binary', 'ordinal:LO-HI' or 'score'; a score passes at threshold (pass_when
        -- '>=' or, where lower is better, '<='). threshold_source: stated, file or default.
        CREATE TABLE rating_metrics (
            name TEXT PRIMARY KEY,
            scale TEXT NOT NULL,
            threshold REAL,
            threshold_source TEXT,
            pass_when TEXT NOT NULL DEFAULT '>=' CHECK (pass_when IN ('>=', '<=')),
            definition TEXT,
            updated_at TEXT NOT NULL
        );

        CREATE TABLE raters (
            name TEXT PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('model', 'human'))
        );

        -- What was rated: a (question, chunk) pair, or an answer with its contexts. key is the
        -- file's item id, or derived from the content so the same answer is one item across
        -- files. A chunk item is linked to its question and chunk, once.
        CREATE TABLE rating_items (
            pk INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            question_id TEXT,
            question TEXT,
            chunking TEXT,
            chunk_id TEXT,
            answer TEXT,
            contexts TEXT,
            context_ids TEXT,
            source TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX rating_items_by_chunk
            ON rating_items (chunking, question_id, chunk_id) WHERE chunk_id IS NOT NULL;

        -- value: the verdict on the metric's scale; passed: a score rating's own pass/fail
        -- where it says so (a person's verdict, a judge tool's decision); extra: what a source
        -- file held that an export gives back (Ragas' prompts).
        CREATE TABLE ratings (
            metric TEXT NOT NULL REFERENCES rating_metrics(name),
            item INTEGER NOT NULL REFERENCES rating_items(pk),
            rater TEXT NOT NULL REFERENCES raters(name),
            value REAL NOT NULL,
            passed INTEGER,
            rationale TEXT,
            extra TEXT,
            source TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (metric, item, rater)
        ) WITHOUT ROWID;
        CREATE INDEX ratings_by_rater ON ratings (rater, metric);

        -- Append-only: every change to a rating, with who and when.
        CREATE TABLE rating_events (
            id INTEGER PRIMARY KEY,
            metric TEXT NOT NULL,
            item INTEGER NOT NULL,
            rater TEXT NOT NULL,
            action TEXT NOT NULL,
            old_value REAL,
            new_value REAL,
            at TEXT NOT NULL
        );
        CREATE INDEX rating_events_by_item ON rating_events (item, metric);
        CREATE TRIGGER rating_events_no_update BEFORE UPDATE ON rating_events BEGIN
            SELECT RAISE(ABORT, 'rating_events is append-only');
        END;
        CREATE TRIGGER rating_events_no_delete BEFORE DELETE ON rating_events BEGIN
            SELECT RAISE(ABORT, 'rating_events is append-only');
        END;

        -- A spot-check: a stratified sample of one judge's verdicts on one metric, reproducible
        -- from its seed. item is the report's item key (see Ratings.metric_ratings).
        CREATE TABLE judge_plans (
            name TEXT PRIMARY KEY,
            metric TEXT NOT NULL,
            judge TEXT NOT NULL,
            seed INTEGER NOT NULL,
            per_stratum INTEGER NOT NULL,
            disagreements INTEGER NOT NULL,
            created_by TEXT,
            created_at TEXT NOT NULL
        );
        CREATE TABLE judge_plan_items (
            plan TEXT NOT NULL REFERENCES judge_plans(name),
            position INTEGER NOT NULL,
            item TEXT NOT NULL,
            stratum TEXT NOT NULL,
            reason TEXT NOT NULL,
            PRIMARY KEY (plan, position),
            UNIQUE (plan, item)
        );
        """
    )


@migrations(name="0008_pools")
def pools(db: sqlite_utils.Database) -> None:
    """Search pools computed ahead: their scores, who computed them and when, and claims.

    A claim says a worker is computing a question's search pool, so two workers (two
    reviewers' servers, or the CLI beside the app) never compute and write the same one twice;
    a claim older than the stale limit is taken over, so a pool is never lost to a dead worker.
    """
    db.executescript(
        """
        ALTER TABLE pool_fts ADD COLUMN score REAL;
        ALTER TABLE pool_fts_state ADD COLUMN computed_at TEXT;
        ALTER TABLE pool_fts_state ADD COLUMN computed_by TEXT;
        ALTER TABLE pool_fts_state ADD COLUMN search_ms REAL;
        CREATE TABLE pool_claims (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            query_hash TEXT NOT NULL,
            worker TEXT NOT NULL,
            claimed_at TEXT NOT NULL,
            PRIMARY KEY (question_id, chunking)
        ) WITHOUT ROWID;
        """
    )


@migrations(name="0009_signing")
def signing(db: sqlite_utils.Database) -> None:
    """The project's Ed25519 signing key (the seed of the key pair: 32 random bytes from the
    operating system), made here for a database created before, and for every new one; and, per
    exported version, how it is signed: its key's fingerprint, or why it was left unsigned.
    ``signature`` is NULL for a version exported before: it is re-signed on the next open of the
    database by the app or the CLI (``labeler.versions.writing.resign_recorded``), only if its
    files still match its hash."""
    db.executescript(
        """
        CREATE TABLE signing_key (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            algorithm TEXT NOT NULL,
            seed BLOB NOT NULL,
            created_at TEXT NOT NULL
        );
        ALTER TABLE testset_versions ADD COLUMN signature TEXT;
        """
    )
    db.execute(
        "INSERT INTO signing_key (id, algorithm, seed, created_at) VALUES (1, 'Ed25519', ?, ?)",
        (os.urandom(32), datetime.now(UTC).isoformat(timespec="microseconds")),
    )


@migrations(name="0010_judge_calls")
def judge_calls(db: sqlite_utils.Database) -> None:
    """The calls ``labeler judge run`` made to a model: its cache and each rating's details.

    A call is keyed by what decides its answer (``cache_key``: a hash of the prompt's hash, the
    model, the question's text and the rated text), so the same pair with the same text and
    prompt is never sent twice. A failed call (no grade: an answer that is not the JSON the
    prompt asks for, or the tries ran out) is kept with its raw text and why it failed, and is
    tried again by the next run. ``rating_calls`` links a judge's rating to the call it came
    from: model, prompt, host, raw answer, tokens and latency. Never the key or the full URL.
    """
    db.executescript(
        """
        CREATE TABLE judge_calls (
            id INTEGER PRIMARY KEY,
            cache_key TEXT NOT NULL,
            metric TEXT NOT NULL,
            judge TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            prompt_hash TEXT NOT NULL,
            host TEXT NOT NULL,
            item_key TEXT NOT NULL,
            question_id TEXT,
            chunk_id TEXT,
            status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
            grade INTEGER,
            reason TEXT,
            raw TEXT,
            error TEXT,
            tokens_in INTEGER,
            tokens_out INTEGER,
            latency_ms REAL,
            tries INTEGER NOT NULL,
            at TEXT NOT NULL,
            CHECK ((status = 'ok') = (grade IS NOT NULL))
        );
        CREATE INDEX judge_calls_by_key ON judge_calls (cache_key, status);
        CREATE INDEX judge_calls_by_judge ON judge_calls (judge, metric, status);

        CREATE TABLE rating_calls (
            metric TEXT NOT NULL,
            item INTEGER NOT NULL REFERENCES rating_items(pk),
            rater TEXT NOT NULL,
            call INTEGER NOT NULL REFERENCES judge_calls(id),
            PRIMARY KEY (metric, item, rater)
        ) WITHOUT ROWID;
        """
    )


@migrations(name="0012_accounts")
def accounts(db: sqlite_utils.Database) -> None:
    """A team server: accounts with their roles, server-side sessions, failed logins (for the
    lockout), an append-only log of what was done to accounts, work assigned to reviewers, and
    a mark on the label history for what a reviewer did after seeing others' grades.

    A database without accounts is in single-person mode, as before; a reviewer who graded
    before accounts existed keeps their labels, and an account of the same name adopts them
    (labels, marks and history are keyed by the name). ``label_events.seen_others`` is 1 on a
    change made after the reviewer was shown others' grades on that question (the history's
    ``saw others`` row says when): agreement reads each grade as it stood before.
    """
    db.executescript(
        """
        -- name: the reviewer name (labeler.names); password_hash: argon2id, NULL for an
        -- account that signs in only through OpenID Connect (email). folded: the name in
        -- lower case, so that two accounts never differ by case alone.
        CREATE TABLE accounts (
            name TEXT PRIMARY KEY,
            folded TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL CHECK (role IN ('reviewer', 'lead', 'owner')),
            password_hash TEXT,
            email TEXT UNIQUE,
            disabled INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            created_by TEXT NOT NULL,
            last_login TEXT,
            last_active TEXT
        );

        -- A session is known by the SHA-256 of its token (the token itself is only ever in the
        -- browser's cookie); it ends on logout, on the account's disabling, or after 12 hours
        -- without activity (last_seen).
        CREATE TABLE sessions (
            token_hash TEXT PRIMARY KEY,
            account TEXT NOT NULL REFERENCES accounts(name),
            method TEXT NOT NULL CHECK (method IN ('password', 'oidc')),
            created_at TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            ended_at TEXT,
            end_reason TEXT
        ) WITHOUT ROWID;
        CREATE INDEX sessions_by_account ON sessions (account, ended_at);

        -- Failed logins per account name (known or not), for the lockout window.
        CREATE TABLE login_failures (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX login_failures_by_name ON login_failures (name, at);

        -- Append-only: every change to an account, every login and logout, with who did it.
        CREATE TABLE account_events (
            id INTEGER PRIMARY KEY,
            account TEXT NOT NULL,
            action TEXT NOT NULL,
            detail TEXT,
            actor TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX account_events_by_account ON account_events (account, id);
        CREATE TRIGGER account_events_no_update BEFORE UPDATE ON account_events BEGIN
            SELECT RAISE(ABORT, 'account_events is append-only');
        END;
        CREATE TRIGGER account_events_no_delete BEFORE DELETE ON account_events BEGIN
            SELECT RAISE(ABORT, 'account_events is append-only');
        END;

        -- Questions assigned to reviewers (a question given to two is in the overlap, for
        -- agreement); batch names one ``labeler assign``.
        CREATE TABLE assignments (
            question_id TEXT NOT NULL REFERENCES questions(id),
            reviewer TEXT NOT NULL,
            batch TEXT NOT NULL,
            overlap INTEGER NOT NULL DEFAULT 0,
            assigned_by TEXT NOT NULL,
            assigned_at TEXT NOT NULL,
            PRIMARY KEY (reviewer, question_id)
        ) WITHOUT ROWID;
        CREATE INDEX assignments_by_question ON assignments (question_id);

        ALTER TABLE label_events ADD COLUMN seen_others INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX label_events_by_action ON label_events (action, reviewer)
            WHERE action = 'saw others';
        """
    )


@migrations(name="0013_conversations")
def conversations(db: sqlite_utils.Database) -> None:
    """Questions that are turns of a conversation (``labeler.conversations``): the
    conversation, the turn's number among the user's turns, the messages said before it (JSON
    ``[[role, text], ...]``), its standalone rewrite, and how its pool's search is asked
    (``search``: NULL for the default). One question per turn of a conversation; the index
    finds a conversation's turns in order. A new or changed turn marks its question's flags
    for recomputing, as a changed question does."""
    db.executescript(
        """
        -- A rowid table: a history of ten turns is kilobytes, too large a row for WITHOUT ROWID.
        CREATE TABLE question_turns (
            question_id TEXT PRIMARY KEY REFERENCES questions(id),
            conversation TEXT NOT NULL,
            turn INTEGER NOT NULL CHECK (turn >= 1),
            history TEXT NOT NULL DEFAULT '[]',
            rewrite TEXT,
            search TEXT,
            UNIQUE (conversation, turn)
        );
        -- A turn is compared for near-duplicates as read with its conversation: a new or
        -- changed turn needs its flags recomputed (see 0005's flags_dirty).
        CREATE TRIGGER question_turns_flags_insert AFTER INSERT ON question_turns BEGIN
            INSERT INTO flags_dirty (question_id) VALUES (new.question_id);
        END;
        CREATE TRIGGER question_turns_flags_update AFTER UPDATE OF history, rewrite
        ON question_turns BEGIN
            INSERT INTO flags_dirty (question_id) VALUES (new.question_id);
        END;
        """
    )


@migrations(name="0015_dense_pools")
def dense_pools(db: sqlite_utils.Database) -> None:
    """Dense pools computed ahead (issue #21): each question's nearest chunks by the project's
    embedding model, stored, keyed and claimed exactly as the BM25 search pools are (0008), in
    tables of their own so that the two sources are computed, and go stale, apart. ``model``
    is the embedding model (name@version) the pool was computed with."""
    db.executescript(
        """
        CREATE TABLE pool_dense (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            chunk_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            score REAL,
            PRIMARY KEY (question_id, chunking, chunk_id)
        ) WITHOUT ROWID;
        CREATE TABLE pool_dense_state (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            query_hash TEXT NOT NULL,
            model TEXT,
            computed_at TEXT,
            computed_by TEXT,
            search_ms REAL,
            PRIMARY KEY (question_id, chunking)
        ) WITHOUT ROWID;
        CREATE TABLE pool_dense_claims (
            question_id TEXT NOT NULL,
            chunking TEXT NOT NULL,
            query_hash TEXT NOT NULL,
            worker TEXT NOT NULL,
            claimed_at TEXT NOT NULL,
            PRIMARY KEY (question_id, chunking)
        ) WITHOUT ROWID;
        """
    )


@migrations(name="0017_run_order")
def run_order(db: sqlite_utils.Database) -> None:
    """A run's results indexed in the order the metric engine reads them (question, then
    position): reading a run becomes one ordered scan of the index, which holds every column
    it reads (the table is WITHOUT ROWID, so an index entry carries the chunk id), instead of a
    lookup per row and a sort: 0.51 -> 0.27 s of CPU for a run of 200,000 results (issue #23,
    the Results page at 10,000 questions). The old index on the run alone is its prefix."""
    db.executescript(
        """
        DROP INDEX IF EXISTS run_results_by_run;
        CREATE INDEX run_results_by_run ON run_results (run, question_id, position);
        """
    )


@migrations(name="0018_questions_by_status")
def questions_by_status(db: sqlite_utils.Database) -> None:
    """Questions indexed by review status: the grading page counts the accepted ones after
    every grade (its progress line), which scanned every question's row, text and all: 4.8 ms
    a key at 10,000 questions, 0.8 ms from this index (issue #23, key-to-screen at 1M chunks)."""
    db.execute("CREATE INDEX questions_by_status ON questions (review_status)")


@migrations(name="0019_exported_by")
def exported_by(db: sqlite_utils.Database) -> None:
    """Who exported each version: the app's logged-in account, the CLI's ``--as`` name or the
    operating-system user. Every change of the labels says who made it; an export did not.
    Versions exported before are left without a name (NULL): nobody recorded it then."""
    db.execute("ALTER TABLE testset_versions ADD COLUMN exported_by TEXT")
