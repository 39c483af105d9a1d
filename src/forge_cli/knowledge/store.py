"""The knowledge store: vector stores, files and their membership, in one SQLite file.

:class:`KnowledgeStore` is the public, synchronous facade. Each write is one transaction, so bad
input leaves the store unchanged, and every failure is one of our errors (``NotFoundError`` for an
unknown id, ``UsageError`` for bad input, ``KnowledgeError`` otherwise).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType

from forge_cli.errors import ForgeError, NotFoundError, UsageError
from forge_cli.knowledge import documents
from forge_cli.knowledge.db import Database
from forge_cli.knowledge.embedding import Embedder
from forge_cli.knowledge.extract import FileRejected
from forge_cli.knowledge.ingest import (
    DEFAULT_MAX_FILE_BYTES,
    PreparedFile,
    attributes_json,
    expand_paths,
    insert_prepared,
    new_id,
    prepare_file,
    read_path,
    validate_attributes,
)
from forge_cli.knowledge.models import (
    BatchReport,
    DocumentHit,
    FileCounts,
    FileRecord,
    FileText,
    IngestResult,
    Page,
    ProgressCallback,
    SearchHit,
    VectorStore,
    VectorStoreFile,
)
from forge_cli.knowledge.search import parse_attributes, resolve_scope, search_chunks

__all__ = ["KnowledgeStore"]

_FILE_COLUMNS = (
    "f.id, f.filename, f.bytes, f.sha256, f.mime_type, f.created_at, f.metadata, f.paged, "
    "(SELECT count(*) FROM pages p WHERE p.file_id = f.id), "
    "(SELECT count(*) FROM chunks c WHERE c.file_id = f.id)"
)
_VS_COLUMNS = (
    "v.id, v.name, v.description, v.metadata, v.created_at, "
    "(SELECT count(*) FROM membership m WHERE m.vector_store_id = v.id), "
    "(SELECT coalesce(sum(f.bytes), 0) FROM membership m JOIN files f ON f.id = m.file_id "
    "WHERE m.vector_store_id = v.id)"
)
_MEMBER_COLUMNS = "m.vector_store_id, m.file_id, f.filename, m.attributes, m.created_at, f.bytes"


def _file(row: Sequence[object]) -> FileRecord:
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


def _vector_store(row: Sequence[object]) -> VectorStore:
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


def _member(row: Sequence[object]) -> VectorStoreFile:
    return VectorStoreFile(
        vector_store_id=str(row[0]),
        file_id=str(row[1]),
        filename=str(row[2]),
        attributes=parse_attributes(row[3]),
        created_at=int(str(row[4])),
        bytes=int(str(row[5])),
    )


def _check_metadata(metadata: Mapping[str, str] | None) -> str:
    if metadata is None:
        return "{}"
    if not isinstance(metadata, Mapping) or len(metadata) > 16:
        raise UsageError("metadata must be an object of at most 16 string key: value pairs")
    for key, value in metadata.items():
        if not isinstance(key, str) or not isinstance(value, str) or len(value) > 512:
            raise UsageError(f"metadata {key!r} must map a string to a string of ≤ 512 chars")
    return json.dumps(dict(metadata), ensure_ascii=False, sort_keys=True)


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > 256:
        raise UsageError("a vector store name must be 1 to 256 characters")
    return name.strip()


class KnowledgeStore:
    """A local knowledge base: create vector stores, ingest files, search them.

    ``path`` is the SQLite file (the caller chooses it; see ``default_store_path()``).
    With an ``embedder``, chunk vectors are stored at ingest and searches fuse them with BM25.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        embedder: Embedder | None = None,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        if max_file_bytes < 1:
            raise UsageError("max_file_bytes must be positive")
        self._db = Database(os.fspath(path))
        self.embedder = embedder
        self.max_file_bytes = max_file_bytes

    @property
    def path(self) -> str:
        """The SQLite file of this store."""
        return self._db.path

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def __enter__(self) -> KnowledgeStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- vector stores -------------------------------------------------------------------

    def create_vector_store(
        self,
        name: str,
        *,
        description: str | None = None,
        metadata: Mapping[str, str] | None = None,
        file_ids: Iterable[str] = (),
    ) -> VectorStore:
        """Create a vector store (optionally with existing files attached)."""
        name = _check_name(name)
        meta = _check_metadata(metadata)
        vs_id = new_id("vs")
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO vector_stores (id, name, description, metadata, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (vs_id, name, description, meta, int(time.time())),
            )
            for file_id in file_ids:
                self._attach(conn, vs_id, file_id, None)
        return self.get_vector_store(vs_id)

    def list_vector_stores(self) -> list[VectorStore]:
        """Every vector store, oldest first."""
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT {_VS_COLUMNS} FROM vector_stores v ORDER BY v.created_at, v.rowid"
            ).fetchall()
        return [_vector_store(r) for r in rows]

    def get_vector_store(self, vector_store_id: str) -> VectorStore:
        """One vector store by id."""
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {_VS_COLUMNS} FROM vector_stores v WHERE v.id = ?", (vector_store_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no vector store with id {vector_store_id!r}")
        return _vector_store(row)

    def find_vector_store(self, name: str) -> VectorStore | None:
        """The oldest vector store with this exact name, if any."""
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {_VS_COLUMNS} FROM vector_stores v WHERE v.name = ? "
                "ORDER BY v.created_at, v.rowid LIMIT 1",
                (name,),
            ).fetchone()
        return None if row is None else _vector_store(row)

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
            updates["name"] = _check_name(name)
        if description is not None:
            updates["description"] = description
        if metadata is not None:
            updates["metadata"] = _check_metadata(metadata)
        with self._db.write() as conn:
            self._require_store(conn, vector_store_id)
            for column, value in updates.items():
                conn.execute(
                    f"UPDATE vector_stores SET {column} = ? WHERE id = ?", (value, vector_store_id)
                )
        return self.get_vector_store(vector_store_id)

    def delete_vector_store(self, vector_store_id: str) -> None:
        """Delete a vector store; its files stay in the store (as in the OpenAI API)."""
        with self._db.write() as conn:
            self._require_store(conn, vector_store_id)
            conn.execute("DELETE FROM vector_stores WHERE id = ?", (vector_store_id,))

    # -- files ---------------------------------------------------------------------------

    def add_file(
        self,
        content: bytes,
        filename: str,
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> IngestResult:
        """Ingest one file from memory; raises ``FileRejected`` (a UsageError) with the reason.

        Content already in the store (same sha256) is not stored again: the result has status
        ``"duplicate"`` and the existing file, attached to ``vector_store_id`` if given.
        """
        attrs = validate_attributes(attributes)
        if vector_store_id is not None:
            self.get_vector_store(vector_store_id)
        prepared = prepare_file(
            filename, content, max_bytes=self.max_file_bytes, embedder=self.embedder
        )
        return self._store_prepared(prepared, vector_store_id, attrs, None)

    def add_path(
        self,
        path: str | os.PathLike[str],
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> IngestResult:
        """Ingest one file from disk (its size is checked before anything is read)."""
        attrs = validate_attributes(attributes)
        if vector_store_id is not None:
            self.get_vector_store(vector_store_id)
        file_path = Path(path)
        data = read_path(file_path, self.max_file_bytes)
        prepared = prepare_file(
            file_path.name, data, max_bytes=self.max_file_bytes, embedder=self.embedder
        )
        return self._store_prepared(prepared, vector_store_id, attrs, str(file_path))

    def ingest_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
        progress: ProgressCallback | None = None,
    ) -> BatchReport:
        """Ingest many files (directories are walked); one result per file, errors included.

        A bad file never stops the batch. ``progress(done, total, filename)`` is called after
        each file so a caller can draw a progress bar.
        """
        validate_attributes(attributes)
        if vector_store_id is not None:
            self.get_vector_store(vector_store_id)
        files = expand_paths(paths)
        results: list[IngestResult] = []
        for done, file_path in enumerate(files, start=1):
            try:
                results.append(
                    self.add_path(file_path, vector_store_id=vector_store_id, attributes=attributes)
                )
            except FileRejected as exc:
                results.append(_rejected(file_path, exc.reason))
            except ForgeError as exc:
                results.append(_rejected(file_path, exc.one_line()))
            if progress is not None:
                progress(done, len(files), file_path.name)
        return BatchReport(results=results)

    def _store_prepared(
        self,
        prepared: PreparedFile,
        vector_store_id: str | None,
        attributes: dict[str, str | int | float | bool],
        path: str | None,
    ) -> IngestResult:
        with self._db.write() as conn:
            file_id, duplicate = insert_prepared(conn, prepared)
            if vector_store_id is not None:
                self._attach(conn, vector_store_id, file_id, attributes)
        record = self.get_file(file_id)
        return IngestResult(
            filename=prepared.filename,
            status="duplicate" if duplicate else "ok",
            file=record,
            reason=f"same content as {record.filename} ({file_id})" if duplicate else None,
            path=path,
        )

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
            self._attach(conn, vector_store_id, file_id, attrs)
        return self.get_vector_store_file(vector_store_id, file_id)

    def _attach(
        self,
        conn: sqlite3.Connection,
        vector_store_id: str,
        file_id: str,
        attributes: dict[str, str | int | float | bool] | None,
    ) -> None:
        self._require_store(conn, vector_store_id)
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

    def detach_file(self, vector_store_id: str, file_id: str) -> None:
        """Remove a file from a vector store (the file itself stays)."""
        with self._db.write() as conn:
            self._require_store(conn, vector_store_id)
            cursor = conn.execute(
                "DELETE FROM membership WHERE vector_store_id = ? AND file_id = ?",
                (vector_store_id, file_id),
            )
            if cursor.rowcount == 0:
                raise NotFoundError(f"file {file_id!r} is not in vector store {vector_store_id!r}")

    def get_vector_store_file(self, vector_store_id: str, file_id: str) -> VectorStoreFile:
        """A file's membership in a vector store."""
        with self._db.read() as conn:
            self._require_store(conn, vector_store_id)
            row = conn.execute(
                f"SELECT {_MEMBER_COLUMNS} FROM membership m JOIN files f ON f.id = m.file_id "
                "WHERE m.vector_store_id = ? AND m.file_id = ?",
                (vector_store_id, file_id),
            ).fetchone()
        if row is None:
            raise NotFoundError(f"file {file_id!r} is not in vector store {vector_store_id!r}")
        return _member(row)

    def list_vector_store_files(self, vector_store_id: str) -> list[VectorStoreFile]:
        """The files of a vector store, in the order they were added."""
        with self._db.read() as conn:
            self._require_store(conn, vector_store_id)
            rows = conn.execute(
                f"SELECT {_MEMBER_COLUMNS} FROM membership m JOIN files f ON f.id = m.file_id "
                "WHERE m.vector_store_id = ? ORDER BY m.created_at, m.rowid",
                (vector_store_id,),
            ).fetchall()
        return [_member(r) for r in rows]

    def list_files(self) -> list[FileRecord]:
        """Every stored file, oldest first."""
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT {_FILE_COLUMNS} FROM files f ORDER BY f.created_at, f.rowid"
            ).fetchall()
        return [_file(r) for r in rows]

    def get_file(self, file_id: str) -> FileRecord:
        """One stored file by id."""
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {_FILE_COLUMNS} FROM files f WHERE f.id = ?", (file_id,)
            ).fetchone()
        if row is None:
            raise NotFoundError(f"no file with id {file_id!r}")
        return _file(row)

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

    # -- retrieval -----------------------------------------------------------------------

    def search(
        self,
        vector_store_ids: Sequence[str],
        query: str,
        *,
        max_num_results: int = 10,
        score_threshold: float | None = None,
        filters: Mapping[str, object] | None = None,
    ) -> list[SearchHit]:
        """The chunks of the given vector stores that best answer ``query``, best first."""
        with self._db.read() as conn:
            scope = resolve_scope(conn, vector_store_ids, filters)
            return search_chunks(
                conn,
                scope,
                query,
                max_num_results=max_num_results,
                score_threshold=score_threshold,
                embedder=self.embedder,
            )

    def list_documents(
        self,
        vector_store_ids: Sequence[str],
        query: str | None = None,
        *,
        max_num_results: int = 10,
        score_threshold: float | None = None,
        deduplicate: bool = True,
        filters: Mapping[str, object] | None = None,
    ) -> list[DocumentHit]:
        """Documents of the given vector stores, ranked by ``query`` when one is given."""
        with self._db.read() as conn:
            scope = resolve_scope(conn, vector_store_ids, filters)
            return documents.list_documents(
                conn,
                scope,
                query,
                max_num_results=max_num_results,
                score_threshold=score_threshold,
                deduplicate=deduplicate,
                embedder=self.embedder,
            )

    def read_file(self, file_id: str) -> FileText:
        """A document's whole extracted text, with its pages."""
        with self._db.read() as conn:
            return documents.read_file(conn, file_id)

    def read_pages(self, file_id: str, start_page: int, end_page: int | None = None) -> list[Page]:
        """Pages ``start_page..end_page`` (1-based, inclusive) of a document."""
        with self._db.read() as conn:
            return documents.read_pages(conn, file_id, start_page, end_page)

    @staticmethod
    def _require_store(conn: sqlite3.Connection, vector_store_id: str) -> None:
        row = conn.execute("SELECT 1 FROM vector_stores WHERE id = ?", (vector_store_id,))
        if row.fetchone() is None:
            raise NotFoundError(f"no vector store with id {vector_store_id!r}")


def _rejected(path: Path, reason: str) -> IngestResult:
    return IngestResult(filename=path.name, status="rejected", reason=reason, path=str(path))
