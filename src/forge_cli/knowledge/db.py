"""The SQLite connection of the store and the one place sqlite3 errors become ours.

Every statement the knowledge package runs goes through :meth:`Database.read` or
:meth:`Database.write`, so no raw ``sqlite3`` exception reaches a caller and every write is one
transaction (bad input leaves the store unchanged).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from forge_cli.errors import ForgeError, KnowledgeError
from forge_cli.knowledge.migrations import migrate

__all__ = ["BUSY_TIMEOUT_MS", "Database", "translate_sqlite_errors"]

BUSY_TIMEOUT_MS = 30_000
WAL_AUTOCHECKPOINT_PAGES = 10_000
"""Checkpoint the WAL every ~40 MB instead of SQLite's 4 MB: each checkpoint syncs the database
file, and at the default a 3 MB Markdown ingest paid for several of them (20% of its time)."""
CACHE_KIB = 16 * 1024


@contextmanager
def translate_sqlite_errors(path: str) -> Iterator[None]:
    """Map sqlite3 exceptions to :class:`KnowledgeError` with a one-line message."""
    try:
        yield
    except ForgeError:
        raise
    except sqlite3.Error as exc:
        text = str(exc)
        if isinstance(exc, sqlite3.OperationalError) and "locked" in text:
            raise KnowledgeError(
                f"the knowledge store {path} is busy (locked by another process)",
                hint="try again when the other Forge process has finished",
            ) from exc
        if isinstance(exc, sqlite3.DatabaseError) and "not a database" in text:
            raise KnowledgeError(
                f"{path} is not a Forge knowledge store (the file is corrupt or foreign)"
            ) from exc
        if isinstance(exc, sqlite3.IntegrityError):
            raise KnowledgeError(f"knowledge store constraint failed: {text}") from exc
        raise KnowledgeError(f"knowledge store error: {text}") from exc


class Database:
    """One SQLite connection in WAL mode, shared by threads under a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        with translate_sqlite_errors(self.path):
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
            try:
                self._configure()
                migrate(self._conn)
            except BaseException:
                self._conn.close()
                raise

    def _configure(self) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        if self.path != ":memory:":
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise KnowledgeError(f"could not put the knowledge store {self.path} in WAL mode")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        conn.execute("PRAGMA temp_store = MEMORY")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A connection for reading (statements run in autocommit; errors translated)."""
        with self._lock, translate_sqlite_errors(self.path):
            yield self._conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on any error."""
        with self._lock, translate_sqlite_errors(self.path):
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        """Close the connection; the store object is unusable afterwards."""
        with self._lock, translate_sqlite_errors(self.path):
            self._conn.close()
