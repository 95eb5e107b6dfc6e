"""Ordered, numbered schema migrations for our own tables, on SQLite and PostgreSQL alike.

Each is applied once, in order, inside a transaction, and recorded in `_migrations`.
Never edit a released migration: add the next number. The text is SQLite's; on PostgreSQL the
same migration runs with its types translated (`migration_sql`), except the few that SQLite
writes with its own extensions (FTS5), which get their PostgreSQL text in `_postgres`.
"""

from __future__ import annotations

import re

MIGRATIONS: list[tuple[str, str]] = [
    (
        "001_runs",
        """
        CREATE TABLE runs (
            thread_id    TEXT PRIMARY KEY,
            task         TEXT NOT NULL,
            model        TEXT NOT NULL,
            critic_model TEXT NOT NULL,
            status       TEXT NOT NULL,
            created_at   REAL NOT NULL,
            updated_at   REAL NOT NULL,
            rounds       INTEGER NOT NULL DEFAULT 0,
            first_score  REAL,
            best_score   REAL,
            final_score  REAL,
            stop_reason  TEXT,
            calls        INTEGER NOT NULL DEFAULT 0,
            tokens       INTEGER NOT NULL DEFAULT 0,
            cost         REAL,
            fallbacks    INTEGER NOT NULL DEFAULT 0,
            artifact     TEXT,
            settings     TEXT NOT NULL,
            error        TEXT,
            owner_pid    INTEGER,
            owner_host   TEXT
        );
        CREATE INDEX runs_created ON runs (created_at);
        """,
    ),
    (
        "002_call_journal",
        """
        CREATE TABLE call_journal (
            key        TEXT PRIMARY KEY,
            thread_id  TEXT NOT NULL,
            step       TEXT NOT NULL,
            model      TEXT NOT NULL,
            answer     TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE INDEX call_journal_thread ON call_journal (thread_id);
        """,
    ),
    (
        "003_run_state",
        """
        CREATE TABLE run_state (
            thread_id TEXT PRIMARY KEY,
            state     TEXT NOT NULL
        );
        CREATE INDEX runs_status ON runs (status);
        CREATE TABLE run_usage (
            thread_id         TEXT NOT NULL,
            model             TEXT NOT NULL,
            calls             INTEGER NOT NULL,
            prompt_tokens     INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            cost              REAL,
            PRIMARY KEY (thread_id, model)
        );
        """,
    ),
    (
        "004_sources",
        """
        CREATE TABLE sources (
            id           INTEGER PRIMARY KEY AUTOINCREMENT,
            kind         TEXT NOT NULL,
            location     TEXT NOT NULL UNIQUE,
            title        TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            chars        INTEGER NOT NULL,
            added_at     REAL NOT NULL,
            updated_at   REAL NOT NULL
        );
        CREATE TABLE chunks (
            id        INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL REFERENCES sources (id),
            seq       INTEGER NOT NULL,
            text      TEXT NOT NULL,
            page      INTEGER,
            heading   TEXT,
            char_start INTEGER NOT NULL,
            char_end   INTEGER NOT NULL
        );
        CREATE INDEX chunks_source ON chunks (source_id, seq);
        CREATE VIRTUAL TABLE chunk_index USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2')
        """,
    ),
    (
        "005_chunk_terms",
        """
        CREATE VIRTUAL TABLE chunk_terms USING fts5vocab (chunk_index, 'row')
        """,
    ),
    (
        "006_run_grounding",
        """
        ALTER TABLE runs ADD COLUMN sources_used INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN citations_removed INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN claims INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN claims_supported INTEGER NOT NULL DEFAULT 0
        """,
    ),
    (
        "007_memory",
        """
        CREATE TABLE lessons (
            id            INTEGER PRIMARY KEY AUTOINCREMENT,
            text          TEXT NOT NULL,
            scope         TEXT NOT NULL DEFAULT 'general',
            tags          TEXT NOT NULL DEFAULT '',
            strength      REAL NOT NULL,
            seen          INTEGER NOT NULL DEFAULT 1,
            uses          INTEGER NOT NULL DEFAULT 0,
            created_at    REAL NOT NULL,
            last_seen     REAL NOT NULL,
            status        TEXT NOT NULL DEFAULT 'active',
            pinned        INTEGER NOT NULL DEFAULT 0,
            superseded_by INTEGER,
            origin        TEXT NOT NULL DEFAULT 'learned'
        );
        CREATE INDEX lessons_status ON lessons (status, strength);
        CREATE TABLE lesson_evidence (
            lesson_id    INTEGER NOT NULL,
            thread_id    TEXT,
            round        INTEGER,
            kind         TEXT NOT NULL,
            score_change REAL,
            detail       TEXT NOT NULL DEFAULT '',
            at           REAL NOT NULL
        );
        CREATE INDEX lesson_evidence_lesson ON lesson_evidence (lesson_id);
        CREATE TABLE memory_log (
            id        INTEGER PRIMARY KEY,
            at        REAL NOT NULL,
            event     TEXT NOT NULL,
            lesson_id INTEGER,
            thread_id TEXT,
            detail    TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE memory_runs (
            thread_id  TEXT PRIMARY KEY,
            learned_at REAL NOT NULL,
            result     TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE lesson_index USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2');
        ALTER TABLE runs ADD COLUMN lessons_recalled INTEGER NOT NULL DEFAULT 0
        """,
    ),
    (
        "008_evals",
        """
        CREATE TABLE evals (
            id          TEXT PRIMARY KEY,
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL,
            suite       TEXT NOT NULL,
            judge       TEXT NOT NULL,
            settings    TEXT NOT NULL,
            tasks       TEXT NOT NULL,
            status      TEXT NOT NULL,
            against     TEXT
        );
        CREATE TABLE eval_results (
            eval_id TEXT NOT NULL,
            n       INTEGER NOT NULL,
            kind    TEXT NOT NULL,
            result  TEXT NOT NULL,
            at      REAL NOT NULL,
            PRIMARY KEY (eval_id, n, kind)
        )
        """,
    ),
    (
        "009_leases_batches",
        """
        ALTER TABLE runs ADD COLUMN lease_until REAL;
        CREATE TABLE batches (
            id         TEXT PRIMARY KEY,
            created_at REAL NOT NULL,
            source     TEXT NOT NULL,
            mode       TEXT NOT NULL,
            settings   TEXT NOT NULL,
            cancelled  INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE batch_tasks (
            batch_id   TEXT NOT NULL,
            n          INTEGER NOT NULL,
            line       INTEGER NOT NULL,
            thread_id  TEXT NOT NULL UNIQUE,
            task       TEXT NOT NULL,
            overrides  TEXT NOT NULL,
            job_id     INTEGER,
            worker     TEXT,
            queued_at  REAL NOT NULL,
            started_at REAL,
            attempts   INTEGER NOT NULL DEFAULT 0,
            faults     INTEGER NOT NULL DEFAULT 0,
            error      TEXT,
            PRIMARY KEY (batch_id, n)
        )
        """,
    ),
    (
        "010_chunk_stems",  # stemmed matching ("coroutines" finds "coroutine"), built for what is there
        """
        CREATE VIRTUAL TABLE chunk_stems USING fts5 (body, tokenize = 'porter unicode61 remove_diacritics 2');
        INSERT INTO chunk_stems (rowid, body) SELECT rowid, body FROM chunk_index
        """,
    ),
    (
        "011_eval_meta",  # the judge's independence, its api_base and context, another system's file
        """
        ALTER TABLE evals ADD COLUMN meta TEXT
        """,
    ),
    (
        "012_cache_tokens",  # input tokens read from / written to providers' prompt caches
        """
        ALTER TABLE run_usage ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE run_usage ADD COLUMN cache_creation_tokens INTEGER NOT NULL DEFAULT 0
        """,
    ),
    (
        "013_fencing",  # a claim's generation (the fencing token), its process's start, queue faults
        """
        ALTER TABLE runs ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE runs ADD COLUMN owner_started INTEGER;
        CREATE TABLE queue_faults (
            id      INTEGER PRIMARY KEY AUTOINCREMENT,
            at      REAL NOT NULL,
            job_id  INTEGER,
            worker  TEXT NOT NULL,
            kind    TEXT NOT NULL,
            error   TEXT NOT NULL
        );
        CREATE INDEX queue_faults_job ON queue_faults (job_id)
        """,
    ),
    (
        "014_busy_claims",  # a task found busy: how many times in a row, and under which claim
        """
        ALTER TABLE batch_tasks ADD COLUMN busy INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE batch_tasks ADD COLUMN busy_generation INTEGER
        """,
    ),
    (
        "015_toc_chunks",  # a chunk of a page that lists page numbers (contents, index): searched last
        """
        ALTER TABLE chunks ADD COLUMN toc INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX chunks_toc ON chunks (id) WHERE toc = 1
        """,
    ),
    (
        "016_source_shown",  # a file source's path as shown: relative to the folder the user added
        """
        ALTER TABLE sources ADD COLUMN shown TEXT
        """,
    ),
    (
        "017_estimated_tokens",  # of a run's tokens (and a model's), those the provider did not report
        """
        ALTER TABLE runs ADD COLUMN estimated_tokens INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE run_usage ADD COLUMN estimated_tokens INTEGER NOT NULL DEFAULT 0
        """,
    ),
    (
        "018_resumes",  # times a run was resumed after it stopped unfinished (Ctrl-C, a kill, a failure)
        "ALTER TABLE runs ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0",
    ),
]

# PostgreSQL's text for the migrations SQLite writes with its own extensions: full-text search
# is a table with a generated tsvector and a GIN index; FTS5's vocabulary table is not needed.
_FTS = """
        CREATE TABLE {name} (
            rowid BIGINT PRIMARY KEY,
            body  TEXT NOT NULL,
            tsv   tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED
        );
        CREATE INDEX {name}_tsv ON {name} USING GIN (tsv)
"""
_VIRTUAL = re.compile(r"CREATE VIRTUAL TABLE (\w+) USING fts5 \(body[^)]*\)")


def _postgres(name: str, sql: str) -> str:
    from reflectcli.store.pg import schema_sql

    if name == "005_chunk_terms":
        return "SELECT 1"
    if name == "010_chunk_stems":  # a second tsvector, English-stemmed, computed for every row
        return (
            "ALTER TABLE chunk_index ADD COLUMN stems tsvector GENERATED ALWAYS AS "
            "(to_tsvector('english', body)) STORED;\n"
            "CREATE INDEX chunk_index_stems ON chunk_index USING GIN (stems)"
        )
    sql = _VIRTUAL.sub(lambda m: _FTS.format(name=m.group(1)), sql)
    if name == "013_fencing":  # leases are judged by the database's clock (SQLite: a Python function)
        sql += (
            ";\nCREATE OR REPLACE FUNCTION db_now() RETURNS double precision "
            "AS 'SELECT EXTRACT(EPOCH FROM now())::double precision' LANGUAGE SQL STABLE"
        )
    if name == "001_runs":  # history's search uses instr(), which PostgreSQL spells strpos()
        sql += (
            ";\nCREATE OR REPLACE FUNCTION instr(text, text) RETURNS integer "
            "AS 'SELECT strpos($1, $2)' LANGUAGE SQL IMMUTABLE"
        )
    return schema_sql(sql)


def migration_sql(name: str, dialect: str) -> str:
    """The text of migration `name` for `dialect` ("sqlite" or "postgres")."""
    sql = dict(MIGRATIONS)[name]
    return _postgres(name, sql) if dialect == "postgres" else sql
