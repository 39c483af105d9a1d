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
from forge_cli.privacy import private_dir, private_file

__all__ = ["BUSY_TIMEOUT_MS", "Database", "StoreUnwritable", "translate_sqlite_errors"]

BUSY_TIMEOUT_MS = 30_000
WAL_AUTOCHECKPOINT_PAGES = 10_000
"""Checkpoint the WAL every ~40 MB instead of SQLite's 4 MB: each checkpoint syncs the database
file, and at the default a 3 MB Markdown ingest paid for several of them (20% of its time)."""
CACHE_KIB = 16 * 1024


class StoreUnwritable(KnowledgeError):
    """The store itself cannot be written (disk full, read-only, I/O error): no file can go in,
    so a batch stops instead of blaming each file."""


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
        if isinstance(exc, sqlite3.OperationalError) and "disk is full" in text:
            raise StoreUnwritable(
                f"cannot write the knowledge store {path}: the disk is full",
                hint="free some space; what was committed before is kept",
            ) from exc
        if isinstance(exc, sqlite3.OperationalError) and "disk I/O error" in text:
            raise StoreUnwritable(f"cannot write the knowledge store {path}: {text}") from exc
        if isinstance(exc, sqlite3.OperationalError) and "unable to open" in text:
            raise KnowledgeError(
                f"cannot open the knowledge store {path}: {text}",
                hint=f"check that {Path(path).parent} exists and is writable",
            ) from exc
        if isinstance(exc, sqlite3.OperationalError) and (
            "readonly" in text or "read-only" in text
        ):
            raise StoreUnwritable(
                f"the knowledge store {path} is read-only: {text}",
                hint=f"check the permissions of {path} and {Path(path).parent}",
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
                # 0700 directory, 0600 file: SQLite gives the -wal/-shm files the same mode.
                private_dir(Path(self.path).parent, tighten=False)
                private_file(Path(self.path))
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
            try:
                self._configure()
                for suffix in ("-wal", "-shm"):  # left by an older Forge with another mode
                    if Path(self.path + suffix).exists():
                        private_file(Path(self.path + suffix))
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
                # SQLite may have rolled back already (SQLITE_FULL, I/O errors): a second
                # ROLLBACK would replace the real error with "no transaction is active".
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Close the connection; the store object is unusable afterwards."""
        with self._lock, translate_sqlite_errors(self.path):
            self._conn.close()
