"""Schema migrations of the knowledge store, applied in order.

``PRAGMA user_version`` holds the number of migrations applied. Each migration is a list of
single SQL statements (so they can run inside one explicit transaction), or of Python steps
that take the connection (a backfill); never edit a released migration, append a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from forge_cli.errors import KnowledgeError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate"]

_V1_CORE = [
    """CREATE TABLE files (
        id TEXT PRIMARY KEY,
        filename TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        sha256 TEXT NOT NULL UNIQUE,
        mime_type TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'processed',
        metadata TEXT NOT NULL DEFAULT '{}',
        paged INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE file_contents (
        file_id TEXT PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
        data BLOB NOT NULL
    )""",
    """CREATE TABLE file_texts (
        file_id TEXT PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
        text TEXT NOT NULL
    )""",
    """CREATE TABLE pages (
        file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        char_start INTEGER NOT NULL,
        char_end INTEGER NOT NULL,
        PRIMARY KEY (file_id, number)
    )""",
    """CREATE TABLE vector_stores (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        description TEXT,
        metadata TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL DEFAULT 'completed',
        created_at INTEGER NOT NULL
    )""",
    "CREATE INDEX vector_stores_name ON vector_stores(name)",
    """CREATE TABLE membership (
        vector_store_id TEXT NOT NULL REFERENCES vector_stores(id) ON DELETE CASCADE,
        file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        attributes TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL DEFAULT 'completed',
        created_at INTEGER NOT NULL,
        PRIMARY KEY (vector_store_id, file_id)
    )""",
    "CREATE INDEX membership_file ON membership(file_id)",
    """CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        ordinal INTEGER NOT NULL,
        heading TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL,
        page INTEGER,
        char_start INTEGER NOT NULL,
        char_end INTEGER NOT NULL,
        UNIQUE (file_id, ordinal)
    )""",
    # External-content FTS5 index over the chunk text and its heading path; the delete trigger
    # keeps it in step when chunks go (foreign-key cascades fire it too). Since version 4 new
    # chunks are indexed explicitly, see _V4_BULK_INDEX.
    """CREATE VIRTUAL TABLE chunks_fts USING fts5(
        heading, text, content='chunks', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    )""",
    """CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, heading, text) VALUES (new.id, new.heading, new.text);
    END""",
    """CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, heading, text)
        VALUES ('delete', old.id, old.heading, old.text);
    END""",
]

_V2_EMBEDDINGS = [
    """CREATE TABLE embeddings (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        dim INTEGER NOT NULL,
        vector BLOB NOT NULL
    )""",
]

_V3_RANK = [
    # The FTS5 ``rank`` column then means bm25 with the heading weighted 1.5, which lets
    # ``ORDER BY rank LIMIT n`` take FTS5's fast path.
    "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25(1.5, 1.0)')",
]

_V4_BULK_INDEX = [
    # Chunks are indexed by one ``INSERT INTO chunks_fts ... SELECT`` per file or per batch
    # (``ingest.index_chunks``) instead of a row trigger: FTS5 then flushes one index segment
    # per write instead of many small ones, which made indexing about twice as fast.
    "DROP TRIGGER IF EXISTS chunks_ai",
]

_V5_EMBEDDING_MODELS = [
    # Each vector records the model that made it: vectors of different models are never
    # compared, and ``forge vs reembed`` finds the chunks that lack one for the current model.
    # ``generation`` grows on every write of a model's vectors (explicitly after inserts, by
    # trigger on deletes, which foreign-key cascades fire too), so an in-memory copy of them
    # (``dense.py``) knows when it is stale from one indexed read. Vectors from before version 5
    # keep model 0 ("unknown") until they are re-embedded.
    """CREATE TABLE embedding_models (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        dim INTEGER NOT NULL,
        generation INTEGER NOT NULL DEFAULT 0
    )""",
    "ALTER TABLE embeddings ADD COLUMN model_id INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX embeddings_model ON embeddings(model_id)",
    """CREATE TRIGGER embeddings_ad AFTER DELETE ON embeddings BEGIN
        UPDATE embedding_models SET generation = generation + 1 WHERE id = old.model_id;
    END""",
]


def _backfill_context(conn: sqlite3.Connection) -> None:
    """Give the chunks of every stored file its document lead (from the stored text)."""
    from forge_cli.knowledge.chunking import CONTEXT_SCAN_CHARS, document_context

    rows = conn.execute(
        f"SELECT file_id, substr(text, 1, {CONTEXT_SCAN_CHARS}) FROM file_texts"
    ).fetchall()
    conn.executemany(
        "UPDATE chunks SET context = ? WHERE file_id = ?",
        [(document_context(str(text)), str(file_id)) for file_id, text in rows],
    )


_V6_DOCUMENT_CONTEXT: list[str | Callable[[sqlite3.Connection], None]] = [
    # Every chunk carries its document's lead (``chunking.document_context``) as a third
    # full-text column with its own BM25 weight; the index is rebuilt with it. Vectors made
    # before keep working; `forge vs reembed --all` embeds them with the lead too.
    "ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT ''",
    _backfill_context,
    "DROP TRIGGER IF EXISTS chunks_ad",
    "DROP TABLE chunks_fts",
    """CREATE VIRTUAL TABLE chunks_fts USING fts5(
        heading, text, context, content='chunks', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    )""",
    "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25(1.5, 1.0, 1.0)')",
    "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')",
    """CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, heading, text, context)
        VALUES ('delete', old.id, old.heading, old.text, old.context);
    END""",
]


def _relabel_api_chunks(conn: sqlite3.Connection) -> None:
    """Give stored chunks the heading path the chunker gives them now (reST API descriptions).

    Since schema 7 a top-level ``.. function:: f(x)`` joins the heading path of the chunks
    after it (``chunking``); chunk boundaries did not change. Each stored text that has a
    directive is chunked again, and a chunk whose span is the same and whose heading differs
    gets the new heading, in the table and in the full-text index. A chunk whose span differs
    (a store from an older chunker) is left as it is. Vectors keep the old heading until
    ``forge vs reembed --all``.
    """
    from forge_cli.knowledge.chunking import chunk_text

    files = conn.execute(
        "SELECT f.id, f.paged, t.text FROM files f JOIN file_texts t ON t.file_id = f.id "
        "WHERE instr(t.text, '.. ') > 0"
    ).fetchall()
    for file_id, paged, text in files:
        pages = None
        if paged:
            pages = [
                (int(r[0]), int(r[1]))
                for r in conn.execute(
                    "SELECT char_start, char_end FROM pages WHERE file_id = ? ORDER BY number",
                    (file_id,),
                )
            ]
        specs = {(c.ordinal, c.char_start, c.char_end): c.heading for c in chunk_text(text, pages)}
        stored = conn.execute(
            "SELECT id, ordinal, char_start, char_end, heading, text, context FROM chunks "
            "WHERE file_id = ?",
            (file_id,),
        ).fetchall()
        for chunk_id, ordinal, start, end, heading, chunk, context in stored:
            new = specs.get((ordinal, start, end))
            if new is None or new == heading:
                continue
            conn.execute(
                "INSERT INTO chunks_fts(chunks_fts, rowid, heading, text, context) "
                "VALUES ('delete', ?, ?, ?, ?)",
                (chunk_id, heading, chunk, context),
            )
            conn.execute("UPDATE chunks SET heading = ? WHERE id = ?", (new, chunk_id))
            conn.execute(
                "INSERT INTO chunks_fts(rowid, heading, text, context) VALUES (?, ?, ?, ?)",
                (chunk_id, new, chunk, context),
            )


_V7_API_HEADINGS: list[str | Callable[[sqlite3.Connection], None]] = [_relabel_api_chunks]

_V8_FILE_IDENTITY = [
    # A file's identity in a vector store is its source path (``sources.py``): ``forge vs add``
    # of a path already there replaces it, and ``forge vs sync`` compares size and mtime before
    # it reads a file again. Several paths may hold the same content (one stored file, one
    # membership); a membership that goes takes its paths with it. Members added before version
    # 8 have no path until a sync or an add of their content gives them one.
    """CREATE TABLE IF NOT EXISTS sources (
        vector_store_id TEXT NOT NULL,
        path TEXT NOT NULL,
        file_id TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        PRIMARY KEY (vector_store_id, path),
        FOREIGN KEY (vector_store_id, file_id)
            REFERENCES membership(vector_store_id, file_id) ON DELETE CASCADE
    )""",
    "CREATE INDEX IF NOT EXISTS sources_member ON sources(vector_store_id, file_id)",
]

MIGRATIONS: list[list[str] | list[str | Callable[[sqlite3.Connection], None]]] = [
    _V1_CORE,
    _V2_EMBEDDINGS,
    _V3_RANK,
    _V4_BULK_INDEX,
    _V5_EMBEDDING_MODELS,
    _V6_DOCUMENT_CONTEXT,
    _V7_API_HEADINGS,
    _V8_FILE_IDENTITY,
]
"""Every migration in order; migration ``i`` brings the schema to version ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the schema up to ``target``, each step atomically; returns the final version.

    The connection must be in autocommit mode (``isolation_level=None``). ``BEGIN IMMEDIATE``
    makes two processes opening a fresh store at once apply each migration exactly once.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise KnowledgeError(
                f"the knowledge store has schema version {version}, newer than this Forge "
                f"understands ({SCHEMA_VERSION})",
                hint="upgrade Forge or point it at another data directory",
            )
        for index in range(version, target):
            for statement in MIGRATIONS[index]:
                if callable(statement):
                    statement(conn)
                else:
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {index + 1}")
            version = index + 1
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return version
