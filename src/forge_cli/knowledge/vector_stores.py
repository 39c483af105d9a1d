"""Vector stores and membership: create, find, update and delete stores; attach files to them.

Part of :class:`~forge_cli.knowledge.store.KnowledgeStore`. Each write is one transaction and
input is checked first, so a failed call leaves the store unchanged.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping

from forge_cli.errors import NotFoundError, UsageError
from forge_cli.knowledge.base import StoreBase
from forge_cli.knowledge.models import Attributes, VectorStore, VectorStoreFile
from forge_cli.knowledge.records import (
    MEMBER_COLUMNS,
    VS_COLUMNS,
    attributes_json,
    check_metadata,
    check_name,
    member_record,
    new_id,
    require_store,
    validate_attributes,
    vector_store_record,
)

__all__ = ["VectorStoreOps", "attach", "is_member"]


def is_member(conn: sqlite3.Connection, vector_store_id: str, file_id: str) -> bool:
    """Whether ``file_id`` is in the vector store already."""
    row = conn.execute(
        "SELECT 1 FROM membership WHERE vector_store_id = ? AND file_id = ?",
        (vector_store_id, file_id),
    ).fetchone()
    return row is not None


def attach(
    conn: sqlite3.Connection, vector_store_id: str, file_id: str, attributes: Attributes | None
) -> None:
    """Add ``file_id`` to a vector store inside the caller's transaction.

    An existing membership is kept; with ``attributes`` its attributes are replaced.
    """
    require_store(conn, vector_store_id)
    if conn.execute("SELECT 1 FROM files WHERE id = ?", (file_id,)).fetchone() is None:
        raise NotFoundError(f"no file with id {file_id!r}")
    conn.execute(
        "INSERT INTO membership (vector_store_id, file_id, attributes, created_at) "
        "VALUES (?, ?, ?, ?) ON CONFLICT (vector_store_id, file_id) DO NOTHING",
        (vector_store_id, file_id, attributes_json(attributes or {}), int(time.time())),
    )
    if attributes is not None:
        conn.execute(
            "UPDATE membership SET attributes = ? WHERE vector_store_id = ? AND file_id = ?",
            (attributes_json(attributes), vector_store_id, file_id),
        )


def _named(conn: sqlite3.Connection, name: str) -> list[str]:
    """The ids of the vector stores called ``name``, oldest first."""
    rows = conn.execute(
        "SELECT id FROM vector_stores WHERE name = ? ORDER BY created_at, rowid", (name,)
    ).fetchall()
    return [str(row[0]) for row in rows]


def _one_named(conn: sqlite3.Connection, name: str) -> str | None:
    """The id of the vector store called ``name``; a name that several stores share (a store
    from before names were unique) is refused with their ids, never resolved to one of them."""
    ids = _named(conn, name)
    if len(ids) > 1:
        raise UsageError(
            f"{len(ids)} vector stores are named {name!r} ({', '.join(ids)}); give the id"
        )
    return ids[0] if ids else None


def _check_free(conn: sqlite3.Connection, name: str, vector_store_id: str | None = None) -> None:
    """Refuse a name another vector store has: names are unique, so a name means one store."""
    taken = [i for i in _named(conn, name) if i != vector_store_id]
    if taken:
        raise UsageError(
            f"a vector store named {name!r} exists already ({taken[0]})",
            hint="choose another name, or use that store",
        )


def _insert_store(
    conn: sqlite3.Connection, name: str, description: str | None, metadata: str
) -> str:
    _check_free(conn, name)
    vs_id = new_id("vs")
    conn.execute(
        "INSERT INTO vector_stores (id, name, description, metadata, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (vs_id, name, description, metadata, int(time.time())),
    )
    return vs_id


class VectorStoreOps(StoreBase):
    """Vector store CRUD and file membership."""

    def create_vector_store(
        self,
        name: str,
        *,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
        file_ids: Iterable[str] = (),
    ) -> VectorStore:
        """Create a vector store (optionally with existing files attached); a name another
        store has is refused (``UsageError`` naming that store's id)."""
        name = check_name(name)
        meta = check_metadata(metadata)
        with self._db.write() as conn:
            vs_id = _insert_store(conn, name, description, meta)
            for file_id in file_ids:
                attach(conn, vs_id, file_id, None)
        return self.get_vector_store(vs_id)

    def find_or_create_vector_store(
        self,
        name: str,
        *,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> VectorStore:
        """The vector store called ``name``, created first if there is none.

        The look-up and the insert share one write transaction, so two processes asking at the
        same moment still end up with one store.
        """
        name = check_name(name)
        meta = check_metadata(metadata)
        with self._db.write() as conn:
            vs_id = _one_named(conn, name) or _insert_store(conn, name, description, meta)
        return self.get_vector_store(vs_id)

    def list_vector_stores(self) -> list[VectorStore]:
        """Every vector store, oldest first."""
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT {VS_COLUMNS} FROM vector_stores v ORDER BY v.created_at, v.rowid"
            ).fetchall()
        return [vector_store_record(r) for r in rows]

    def get_vector_store(self, vector_store_id: str) -> VectorStore:
        """One vector store by id."""
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {VS_COLUMNS} FROM vector_stores v WHERE v.id = ?", (vector_store_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no vector store with id {vector_store_id!r}")
        return vector_store_record(row)

    def find_vector_store(self, name: str) -> VectorStore | None:
        """The vector store with this exact name, if any (``UsageError`` when several stores of
        an older store share it)."""
        with self._db.read() as conn:
            vs_id = _one_named(conn, name)
        return None if vs_id is None else self.get_vector_store(vs_id)

    def update_vector_store(
        self,
        vector_store_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> VectorStore:
        """Change a vector store's name, description or metadata (None keeps the old value)."""
        updates: dict[str, object] = {}
        if name is not None:
            updates["name"] = check_name(name)
        if description is not None:
            updates["description"] = description
        if metadata is not None:
            updates["metadata"] = check_metadata(metadata)
        with self._db.write() as conn:
            require_store(conn, vector_store_id)
            if name is not None:
                _check_free(conn, str(updates["name"]), vector_store_id)
            for column, value in updates.items():
                conn.execute(
                    f"UPDATE vector_stores SET {column} = ? WHERE id = ?", (value, vector_store_id)
                )
        return self.get_vector_store(vector_store_id)

    def delete_vector_store(self, vector_store_id: str) -> None:
        """Delete a vector store; its files stay in the store (as in the OpenAI API)."""
        with self._db.write() as conn:
            require_store(conn, vector_store_id)
            conn.execute("DELETE FROM vector_stores WHERE id = ?", (vector_store_id,))

    def attach_file(
        self,
        vector_store_id: str,
        file_id: str,
        *,
        attributes: Mapping[str, object] | None = None,
    ) -> VectorStoreFile:
        """Add a stored file to a vector store; with ``attributes``, set its attributes there."""
        attrs = validate_attributes(attributes) if attributes is not None else None
        with self._db.write() as conn:
            attach(conn, vector_store_id, file_id, attrs)
        return self.get_vector_store_file(vector_store_id, file_id)

    def detach_file(self, vector_store_id: str, file_id: str) -> None:
        """Remove a file from a vector store (the file itself stays)."""
        with self._db.write() as conn:
            require_store(conn, vector_store_id)
            cursor = conn.execute(
                "DELETE FROM membership WHERE vector_store_id = ? AND file_id = ?",
                (vector_store_id, file_id),
            )
            if cursor.rowcount == 0:
                raise NotFoundError(f"file {file_id!r} is not in vector store {vector_store_id!r}")

    def get_vector_store_file(self, vector_store_id: str, file_id: str) -> VectorStoreFile:
        """A file's membership in a vector store."""
        with self._db.read() as conn:
            require_store(conn, vector_store_id)
            row = conn.execute(
                f"SELECT {MEMBER_COLUMNS} FROM membership m JOIN files f ON f.id = m.file_id "
                "WHERE m.vector_store_id = ? AND m.file_id = ?",
                (vector_store_id, file_id),
            ).fetchone()
        if row is None:
            raise NotFoundError(f"file {file_id!r} is not in vector store {vector_store_id!r}")
        return member_record(row)

    def list_vector_store_files(self, vector_store_id: str) -> list[VectorStoreFile]:
        """The files of a vector store, in the order they were added."""
        with self._db.read() as conn:
            require_store(conn, vector_store_id)
            rows = conn.execute(
                f"SELECT {MEMBER_COLUMNS} FROM membership m JOIN files f ON f.id = m.file_id "
                "WHERE m.vector_store_id = ? ORDER BY m.created_at, m.rowid",
                (vector_store_id,),
            ).fetchall()
        return [member_record(r) for r in rows]
