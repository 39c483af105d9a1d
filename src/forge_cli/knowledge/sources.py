"""File identity in a vector store: a stored file is known by the path it came from.

Part of :class:`~forge_cli.knowledge.store.KnowledgeStore` (and of the store interface a shared
implementation must offer, see ``docs/adr/0030-file-identity-and-sync.md``). Each vector store
keeps, per source path, the file that path holds now and the size and mtime it had when it was
read, so ``forge vs sync`` knows an unchanged file without reading it and ``forge vs add`` of an
edited file replaces the old version instead of keeping both. The content hash is the stored
file's ``sha256``.

When a path's content is replaced or the path is removed, its old file leaves the vector store
once no other path of that store holds it, and is deleted (chunks, vectors, full-text entries)
once no vector store holds it: all in the caller's transaction, so a killed process leaves the
old version or the new one, never both or neither.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from forge_cli.knowledge.base import StoreBase
from forge_cli.knowledge.records import require_store

__all__ = [
    "MAX_ATTRIBUTE_PATH",
    "PATH_ATTRIBUTE",
    "SourceFile",
    "SourceOps",
    "SourceStat",
    "fetch_sources",
    "release_member",
    "set_source",
    "source_attributes",
    "source_from_attributes",
    "source_key",
    "stat_source",
]


@dataclass(frozen=True, slots=True)
class SourceStat:
    """A source file as seen on disk before it was read: its path, size and mtime."""

    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A path of a vector store and what it holds: the file, its content hash, and the size and
    mtime the path had when it was read (``None`` where a server does not keep them)."""

    path: str
    file_id: str
    sha256: str | None
    size: int | None = None
    mtime_ns: int | None = None

    def same_stat(self, stat: SourceStat) -> bool:
        """Whether the path looks untouched since it was read (same size and mtime)."""
        return self.size == stat.size and self.mtime_ns == stat.mtime_ns


def source_key(path: str | os.PathLike[str]) -> str:
    """The identity of a path: absolute and normalised, symlinks kept as named (a link in a
    folder is a file of that folder, wherever it points)."""
    return os.path.abspath(os.fspath(path))


def stat_source(path: str | os.PathLike[str]) -> SourceStat:
    """The size and mtime of ``path`` now (``OSError`` when it cannot be looked at)."""
    info = os.stat(path)
    return SourceStat(source_key(path), info.st_size, info.st_mtime_ns)


def fetch_sources(conn: sqlite3.Connection, vector_store_id: str) -> list[SourceFile]:
    """The paths of a vector store, read on ``conn`` (also inside a transaction)."""
    rows = conn.execute(
        "SELECT s.path, s.file_id, f.sha256, s.size, s.mtime_ns FROM sources s "
        "JOIN files f ON f.id = s.file_id WHERE s.vector_store_id = ? ORDER BY s.path",
        (vector_store_id,),
    ).fetchall()
    return [SourceFile(str(p), str(i), str(h), int(z), int(m)) for p, i, h, z, m in rows]


def release_member(conn: sqlite3.Connection, vector_store_id: str, file_id: str) -> None:
    """Drop ``file_id`` from the vector store once none of its paths holds it, and delete the
    file (its chunks and vectors go by cascade) once no vector store holds it."""
    held = conn.execute(
        "SELECT 1 FROM sources WHERE vector_store_id = ? AND file_id = ? LIMIT 1",
        (vector_store_id, file_id),
    ).fetchone()
    if held is not None:
        return
    conn.execute(
        "DELETE FROM membership WHERE vector_store_id = ? AND file_id = ?",
        (vector_store_id, file_id),
    )
    if conn.execute("SELECT 1 FROM membership WHERE file_id = ? LIMIT 1", (file_id,)).fetchone():
        return
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


def set_source(
    conn: sqlite3.Connection, vector_store_id: str, file_id: str, stat: SourceStat
) -> str | None:
    """Record that ``stat.path`` holds ``file_id`` (a member of the store) inside the caller's
    transaction; the file the path held before is released. Returns that old file's id when the
    content changed, else ``None``."""
    row = conn.execute(
        "SELECT file_id FROM sources WHERE vector_store_id = ? AND path = ?",
        (vector_store_id, stat.path),
    ).fetchone()
    conn.execute(
        "INSERT INTO sources (vector_store_id, path, file_id, size, mtime_ns) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (vector_store_id, path) DO UPDATE SET "
        "file_id = excluded.file_id, size = excluded.size, mtime_ns = excluded.mtime_ns",
        (vector_store_id, stat.path, file_id, stat.size, stat.mtime_ns),
    )
    old = None if row is None else str(row[0])
    if old is None or old == file_id:
        return None
    release_member(conn, vector_store_id, old)
    return old


PATH_ATTRIBUTE = "forge_path"
"""The attribute that holds a file's source path on a server (with :data:`SHA_ATTRIBUTE` and the
size and mtime), so a server keeps file identity without knowing about it."""
SHA_ATTRIBUTE = "forge_sha256"
SIZE_ATTRIBUTE = "forge_size"
MTIME_ATTRIBUTE = "forge_mtime_ns"
MAX_ATTRIBUTE_PATH = 512
"""The longest value an OpenAI-style server keeps in an attribute: a longer path cannot be
tracked remotely."""


def source_attributes(stat: SourceStat, sha256: str) -> dict[str, str]:
    """The attributes that carry a file's identity to a server (numbers as strings: an mtime in
    nanoseconds does not survive a float)."""
    return {
        PATH_ATTRIBUTE: stat.path,
        SHA_ATTRIBUTE: sha256,
        SIZE_ATTRIBUTE: str(stat.size),
        MTIME_ATTRIBUTE: str(stat.mtime_ns),
    }


def source_from_attributes(file_id: str, attributes: Mapping[str, object]) -> SourceFile | None:
    """The :class:`SourceFile` that a member's attributes describe, if they carry a path."""
    path = attributes.get(PATH_ATTRIBUTE)
    if not isinstance(path, str) or not path:
        return None
    sha = attributes.get(SHA_ATTRIBUTE)
    return SourceFile(
        path,
        file_id,
        sha if isinstance(sha, str) else None,
        _maybe_int(attributes.get(SIZE_ATTRIBUTE)),
        _maybe_int(attributes.get(MTIME_ATTRIBUTE)),
    )


def _maybe_int(value: object) -> int | None:
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


class SourceOps(StoreBase):
    """The paths of a vector store: list them, and remove paths gone from disk."""

    def list_sources(self, vector_store_id: str) -> list[SourceFile]:
        """Every path of the vector store with its file, content hash, size and mtime."""
        with self._db.read() as conn:
            require_store(conn, vector_store_id)
            return fetch_sources(conn, vector_store_id)

    def remove_sources(
        self, vector_store_id: str, paths: Iterable[str], file_ids: Iterable[str] = ()
    ) -> int:
        """Forget these paths of the vector store in one transaction (their files leave the
        store and are deleted as :func:`release_member` says), and release the members
        ``file_ids`` that no path holds; returns how many paths were there."""
        removed = 0
        with self._db.write() as conn:
            require_store(conn, vector_store_id)
            for file_id in file_ids:
                release_member(conn, vector_store_id, file_id)
            for path in paths:
                key = (vector_store_id, path)
                row = conn.execute(
                    "SELECT file_id FROM sources WHERE vector_store_id = ? AND path = ?", key
                ).fetchone()
                if row is not None:
                    conn.execute("DELETE FROM sources WHERE vector_store_id = ? AND path = ?", key)
                    removed += 1
                    release_member(conn, vector_store_id, str(row[0]))
        return removed
