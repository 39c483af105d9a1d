"""Stored files: list, read back and delete them.

Part of :class:`~forge_cli.knowledge.store.KnowledgeStore`; adding files is in ``batch.py``.
"""

from __future__ import annotations

from forge_cli.errors import NotFoundError
from forge_cli.knowledge.base import StoreBase
from forge_cli.knowledge.models import FileRecord
from forge_cli.knowledge.records import FILE_COLUMNS, fetch_file, file_record

__all__ = ["FileOps"]


class FileOps(StoreBase):
    """Reading and deleting stored files."""

    def list_files(self) -> list[FileRecord]:
        """Every stored file, oldest first."""
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT {FILE_COLUMNS} FROM files f ORDER BY f.created_at, f.rowid"
            ).fetchall()
        return [file_record(r) for r in rows]

    def get_file(self, file_id: str) -> FileRecord:
        """One stored file by id."""
        with self._db.read() as conn:
            return fetch_file(conn, file_id)

    def get_file_content(self, file_id: str) -> bytes:
        """The original bytes of a stored file."""
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT data FROM file_contents WHERE file_id = ?", (file_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no file with id {file_id!r}")
        return bytes(row[0])

    def delete_file(self, file_id: str) -> None:
        """Delete a file, its chunks and its memberships."""
        with self._db.write() as conn:
            if conn.execute("DELETE FROM files WHERE id = ?", (file_id,)).rowcount == 0:
                raise NotFoundError(f"no file with id {file_id!r}")
