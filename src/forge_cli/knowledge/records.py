"""Rows to records: the SQL column lists of files, vector stores and memberships, and readers.

Shared by the parts of :class:`~forge_cli.knowledge.store.KnowledgeStore` so a record is read the
same way everywhere (also inside a write transaction, where the connection is passed in).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping, Sequence

from forge_cli.errors import NotFoundError, UsageError
from forge_cli.knowledge.models import (
    Attributes,
    FileCounts,
    FileRecord,
    VectorStore,
    VectorStoreFile,
)
from forge_cli.knowledge.search import parse_attributes

__all__ = [
    "FILE_COLUMNS",
    "MEMBER_COLUMNS",
    "VS_COLUMNS",
    "attributes_json",
    "check_metadata",
    "check_name",
    "fetch_file",
    "file_record",
    "member_record",
    "new_id",
    "require_store",
    "validate_attributes",
    "vector_store_record",
]

FILE_COLUMNS = (
    "f.id, f.filename, f.bytes, f.sha256, f.mime_type, f.created_at, f.metadata, f.paged, "
    "(SELECT count(*) FROM pages p WHERE p.file_id = f.id), "
    "(SELECT count(*) FROM chunks c WHERE c.file_id = f.id)"
)
VS_COLUMNS = (
    "v.id, v.name, v.description, v.metadata, v.created_at, "
    "(SELECT count(*) FROM membership m WHERE m.vector_store_id = v.id), "
    "(SELECT coalesce(sum(f.bytes), 0) FROM membership m JOIN files f ON f.id = m.file_id "
    "WHERE m.vector_store_id = v.id)"
)
MEMBER_COLUMNS = (
    "m.vector_store_id, m.file_id, f.filename, m.attributes, m.created_at, f.bytes, "
    "(SELECT min(s.path) FROM sources s "
    "WHERE s.vector_store_id = m.vector_store_id AND s.file_id = m.file_id)"
)


def file_record(row: Sequence[object]) -> FileRecord:
    """A :class:`FileRecord` from a row of :data:`FILE_COLUMNS`."""
    return FileRecord(
        id=str(row[0]),
        filename=str(row[1]),
        bytes=int(str(row[2])),
        sha256=str(row[3]),
        mime_type=str(row[4]),
        created_at=int(str(row[5])),
        metadata=json.loads(str(row[6])),
        page_count=int(str(row[8])) if row[7] else None,
        chunk_count=int(str(row[9])),
    )


def vector_store_record(row: Sequence[object]) -> VectorStore:
    """A :class:`VectorStore` from a row of :data:`VS_COLUMNS`."""
    count = int(str(row[5]))
    return VectorStore(
        id=str(row[0]),
        name=str(row[1]),
        description=None if row[2] is None else str(row[2]),
        metadata=json.loads(str(row[3])),
        created_at=int(str(row[4])),
        file_counts=FileCounts(completed=count, total=count),
        usage_bytes=int(str(row[6])),
    )


def member_record(row: Sequence[object]) -> VectorStoreFile:
    """A :class:`VectorStoreFile` from a row of :data:`MEMBER_COLUMNS`."""
    return VectorStoreFile(
        vector_store_id=str(row[0]),
        file_id=str(row[1]),
        filename=str(row[2]),
        attributes=parse_attributes(row[3]),
        created_at=int(str(row[4])),
        bytes=int(str(row[5])),
        source_path=None if row[6] is None else str(row[6]),
    )


def fetch_file(conn: sqlite3.Connection, file_id: str) -> FileRecord:
    """One stored file by id, read on ``conn`` (so it also works inside a transaction)."""
    row = conn.execute(f"SELECT {FILE_COLUMNS} FROM files f WHERE f.id = ?", (file_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no file with id {file_id!r}")
    return file_record(row)


def require_store(conn: sqlite3.Connection, vector_store_id: str) -> None:
    """Raise :class:`NotFoundError` unless the vector store exists."""
    row = conn.execute("SELECT 1 FROM vector_stores WHERE id = ?", (vector_store_id,))
    if row.fetchone() is None:
        raise NotFoundError(f"no vector store with id {vector_store_id!r}")


def check_metadata(metadata: Mapping[str, str] | None) -> str:
    """Vector store metadata as stored JSON (≤ 16 string pairs), or a UsageError."""
    if metadata is None:
        return "{}"
    if not isinstance(metadata, Mapping) or len(metadata) > 16:
        raise UsageError("metadata must be an object of at most 16 string key: value pairs")
    for key, value in metadata.items():
        if not isinstance(key, str) or not isinstance(value, str) or len(value) > 512:
            raise UsageError(f"metadata {key!r} must map a string to a string of ≤ 512 chars")
    return json.dumps(dict(metadata), ensure_ascii=False, sort_keys=True)


def check_name(name: str) -> str:
    """A vector store name, stripped (1 to 256 characters), or a UsageError."""
    if not isinstance(name, str) or not name.strip() or len(name) > 256:
        raise UsageError("a vector store name must be 1 to 256 characters")
    return name.strip()


_MAX_ATTRIBUTES = 16
_MAX_ATTRIBUTE_CHARS = 512


def new_id(prefix: str) -> str:
    """A fresh random id such as ``file_3f9a…`` or ``vs_b41c…`` (what ``secrets.token_hex(12)``
    gives, without importing ``secrets``)."""
    return f"{prefix}_{os.urandom(12).hex()}"


def validate_attributes(raw: Mapping[str, object] | None) -> Attributes:
    """Check membership attributes (≤ 16 keys; string, number or boolean values)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise UsageError("attributes must be an object of key: value pairs")
    if len(raw) > _MAX_ATTRIBUTES:
        raise UsageError(f"at most {_MAX_ATTRIBUTES} attributes are allowed, got {len(raw)}")
    result: Attributes = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not key or len(key) > 64:
            raise UsageError(f"attribute key {key!r} must be a string of 1 to 64 characters")
        if not isinstance(value, str | int | float | bool):
            raise UsageError(
                f"attribute {key!r} must be a string, number or boolean, got {type(value).__name__}"
            )
        if isinstance(value, str) and len(value) > _MAX_ATTRIBUTE_CHARS:
            raise UsageError(f"attribute {key!r} is longer than {_MAX_ATTRIBUTE_CHARS} chars")
        result[key] = value
    return result


def attributes_json(attributes: Attributes) -> str:
    """Attributes as stored in the membership table."""
    return json.dumps(attributes, ensure_ascii=False, sort_keys=True)
