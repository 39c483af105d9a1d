"""Adding files: one at a time, or many at once in large write transactions.

Part of :class:`~forge_cli.knowledge.store.KnowledgeStore`. The expensive work (reading, hashing,
extraction, chunking, embedding) happens before any write. A batch then writes up to
:data:`BATCH_BYTES` of files in one transaction: committing once per file would make FTS5 flush
and merge a new index segment per file, which costs more than indexing the text itself. Each file
of a batch has its own savepoint, so one failing file is reported and the others are kept; the
batch's chunks enter the full-text index in one statement at the end (see ``index_chunks``).
Ingestion (chunking, text extraction, ``html.parser``) is imported when a file goes in, not with
the store: a search never needs it.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from forge_cli.errors import ForgeError
from forge_cli.knowledge.base import StoreBase
from forge_cli.knowledge.db import Database, StoreUnwritable, translate_sqlite_errors
from forge_cli.knowledge.models import (
    Attributes,
    BatchReport,
    IngestResult,
    IngestStatus,
    ProgressCallback,
)
from forge_cli.knowledge.records import fetch_file, require_store, validate_attributes
from forge_cli.knowledge.sources import (
    SourceFile,
    SourceStat,
    fetch_sources,
    set_source,
    stat_source,
)
from forge_cli.knowledge.vector_stores import attach, is_member

if TYPE_CHECKING:
    from forge_cli.knowledge.ingest import PreparedFile, WalkedFile

__all__ = ["BATCH_BYTES", "BATCH_FILES", "IngestOps"]

BATCH_BYTES = 8 * 1024 * 1024
"""A batch is written once it holds this many bytes of files (the write lock is held ~1 s)."""
BATCH_FILES = 500
"""… or this many files."""


@dataclass(frozen=True, slots=True)
class _Source:
    """One file of a batch: how to name it in the report and how to prepare it."""

    name: str
    path: str | None
    load: Callable[[], PreparedFile]
    skipped: str | None = None
    """Why the directory walk refused this file (it is reported, never read)."""
    walked: WalkedFile | None = None
    """How the directory walk reaches the file without following a symlink (``read_path``)."""


def insert_prepared(
    conn: sqlite3.Connection, prepared: PreparedFile, *, index: bool = True
) -> tuple[str, bool]:
    """:func:`forge_cli.knowledge.ingest.insert_prepared` (its module is imported on first use)."""
    from forge_cli.knowledge import ingest

    return ingest.insert_prepared(conn, prepared, index=index)


def _store(
    conn: sqlite3.Connection,
    prepared: PreparedFile,
    vector_store_id: str | None,
    attributes: Attributes,
    path: str | None,
    *,
    index: bool = True,
    stat: SourceStat | None = None,
) -> IngestResult:
    """Write one prepared file (and its membership) inside the caller's transaction.

    With ``stat`` the file is recorded as what that path of the vector store holds now; the
    version the path held before leaves in the same transaction (status ``replaced``).
    """
    file_id, duplicate = insert_prepared(conn, prepared, index=index)
    member = False
    replaced = None
    if vector_store_id is not None:
        member = duplicate and is_member(conn, vector_store_id, file_id)
        attach(conn, vector_store_id, file_id, attributes)
        if stat is not None:
            replaced = set_source(conn, vector_store_id, file_id, stat)
    record = fetch_file(conn, file_id)
    reason = None
    if replaced is not None:
        reason = f"replaces {replaced}"
    elif duplicate:
        reason = _duplicate_reason(
            prepared.filename, record.filename, file_id, vector_store_id, member
        )
    status: IngestStatus = "duplicate" if duplicate else "ok"
    return IngestResult(
        filename=prepared.filename,
        status="replaced" if replaced is not None else status,
        file=record,
        reason=reason,
        path=path,
        joined_store=duplicate and vector_store_id is not None and not member,
    )


def _duplicate_reason(
    name: str, first: str, file_id: str, vector_store_id: str | None, member: bool
) -> str:
    """Why a file was not stored again: the same content is stored as ``first`` (``file_id``).

    A file added again under its own name is "already" there, not "same content as" itself.
    """
    same = "" if first == name else f"same content as {first}"
    if vector_store_id is None:
        return f"{same or 'already uploaded'} ({file_id})"
    if member:
        return f"{same + ', ' if same else ''}already in this vector store ({file_id})"
    return f"{same or 'uploaded before'} ({file_id}); now in this vector store too"


@dataclass(frozen=True, slots=True)
class _Write:
    """What to write for one file: a prepared file, or (``prepared`` None) the fact that a path
    still holds ``file_id``; ``stat`` is the path's size and mtime before it was read."""

    prepared: PreparedFile | None
    stat: SourceStat | None = None
    file_id: str | None = None


def _rejected(name: str, path: str | None, reason: str) -> IngestResult:
    return IngestResult(filename=name, status="rejected", reason=reason, path=path)


class _BatchWriter:
    """Collects prepared files, writes them in batches and reports progress in input order."""

    def __init__(
        self,
        db: Database,
        vector_store_id: str | None,
        attributes: Attributes,
        progress: ProgressCallback | None,
        total: int,
    ) -> None:
        self._db = db
        self._vector_store_id = vector_store_id
        self._attributes = attributes
        self._progress = progress
        self._total = total
        self.results: list[IngestResult | None] = []
        self._pending: list[tuple[int, _Source, _Write]] = []
        self._pending_bytes = 0
        self._reported = 0

    def reject(self, source: _Source, reason: str) -> None:
        self.results.append(_rejected(source.name, source.path, reason))
        self._report()

    def add(self, source: _Source, prepared: PreparedFile, stat: SourceStat | None = None) -> None:
        self._queue(source, _Write(prepared, stat))
        self._pending_bytes += len(prepared.data)

    def unchanged(self, source: _Source, file_id: str, stat: SourceStat | None) -> None:
        """A path whose content the store holds already (``stat``: its new size and mtime)."""
        self._queue(source, _Write(None, stat, file_id))

    def _queue(self, source: _Source, write: _Write) -> None:
        self._pending.append((len(self.results), source, write))
        self.results.append(None)
        if self._pending_bytes >= BATCH_BYTES or len(self._pending) >= BATCH_FILES:
            self.flush()

    def flush(self) -> None:
        """Write the pending files in one transaction (each under its own savepoint)."""
        from forge_cli.knowledge.ingest import index_chunks, next_chunk_id

        pending, self._pending, self._pending_bytes = self._pending, [], 0
        if pending:
            try:
                with self._db.write() as conn:
                    first = next_chunk_id(conn)
                    for slot, source, write in pending:
                        self.results[slot] = self._store_one(conn, source, write)
                    index_chunks(conn, first)
            except StoreUnwritable:
                raise  # disk full, read-only: no other file would go in either
            except ForgeError as exc:  # the transaction itself failed (e.g. store busy)
                for slot, source, _ in pending:
                    self.results[slot] = _rejected(source.name, source.path, exc.one_line())
        self._report()

    def _write(self, conn: sqlite3.Connection, source: _Source, write: _Write) -> IngestResult:
        if write.prepared is not None:
            return _store(
                conn,
                write.prepared,
                self._vector_store_id,
                self._attributes,
                source.path,
                index=False,
                stat=write.stat,
            )
        assert write.file_id is not None
        assert self._vector_store_id is not None
        if write.stat is not None:  # same content, new mtime: remember it so it is not read again
            set_source(conn, self._vector_store_id, write.file_id, write.stat)
        record = fetch_file(conn, write.file_id)
        return IngestResult(filename=source.name, status="unchanged", file=record, path=source.path)

    def _store_one(self, conn: sqlite3.Connection, source: _Source, write: _Write) -> IngestResult:
        conn.execute("SAVEPOINT ingest_file")
        try:
            with translate_sqlite_errors(self._db.path):
                result = self._write(conn, source, write)
        except StoreUnwritable:
            raise
        except ForgeError as exc:
            if not conn.in_transaction:  # SQLite ended the whole transaction: not this file's fault
                raise
            conn.execute("ROLLBACK TO ingest_file")
            conn.execute("RELEASE ingest_file")
            return _rejected(source.name, source.path, exc.one_line())
        conn.execute("RELEASE ingest_file")
        return result

    def _report(self) -> None:
        while self._reported < len(self.results):
            result = self.results[self._reported]
            if result is None:
                return
            self._reported += 1
            if self._progress is not None:
                self._progress(self._reported, self._total, result.filename)


def _never() -> bool:
    return False


class IngestOps(StoreBase):
    """Adding files from memory or disk, singly or in batches."""

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
        self._check_target(vector_store_id)
        prepared = self._prepare(filename, content)
        with self._db.write() as conn:
            return _store(conn, prepared, vector_store_id, attrs, None)

    def add_path(
        self,
        path: str | os.PathLike[str],
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> IngestResult:
        """Ingest one file from disk (its size is checked before anything is read)."""
        attrs = validate_attributes(attributes)
        self._check_target(vector_store_id)
        prepared = self._prepare_path(Path(path))
        with self._db.write() as conn:
            return _store(conn, prepared, vector_store_id, attrs, str(path))

    def add_files(
        self,
        files: Iterable[tuple[str, bytes]],
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
        progress: ProgressCallback | None = None,
    ) -> BatchReport:
        """Ingest many in-memory ``(filename, content)`` files; one result per file, in order.

        The bulk counterpart of :meth:`add_file`: files are written in large transactions and a
        rejected file never stops the batch.
        """
        attrs = validate_attributes(attributes)
        self._check_target(vector_store_id)
        sources = [
            _Source(name, None, partial(self._prepare, name, content)) for name, content in files
        ]
        return self._ingest(sources, vector_store_id, attrs, progress)

    def ingest_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        *,
        vector_store_id: str | None = None,
        attributes: Mapping[str, object] | None = None,
        progress: ProgressCallback | None = None,
        by_path: bool = False,
    ) -> BatchReport:
        """Ingest many files (directories are walked); one result per file, errors included.

        A bad file never stops the batch. ``progress(done, total, filename)`` is called for each
        file, in order, once its fate is settled, so a caller can draw a progress bar. With
        ``by_path`` each file is known in the vector store by its path (``sources.py``): a path
        the store holds already is ``unchanged`` or, edited, ``replaced`` in one transaction.
        """
        from forge_cli.knowledge.ingest import WalkedFile, walk_files

        attrs = validate_attributes(attributes)
        self._check_target(vector_store_id)
        sources = [
            _Source(f.path.name, str(f.path), partial(self._prepare_path, f.path, f), f.skipped, f)
            if isinstance(f, WalkedFile)
            else _Source(f.name, str(f), partial(self._prepare_path, f))
            for f in walk_files(paths)
        ]
        return self._ingest(
            sources, vector_store_id, attrs, progress, interruptible=True, by_path=by_path
        )

    def _ingest(
        self,
        sources: Sequence[_Source],
        vector_store_id: str | None,
        attributes: Attributes,
        progress: ProgressCallback | None,
        *,
        interruptible: bool = False,
        by_path: bool = False,
    ) -> BatchReport:
        """Prepare and write ``sources``. ``interruptible`` (a user's files from disk): Ctrl+C
        stops after the current file, and what was prepared is committed."""
        from forge_cli.knowledge.extract import FileRejected
        from forge_cli.knowledge.ingest import stop_on_interrupt

        writer = _BatchWriter(self._db, vector_store_id, attributes, progress, len(sources))
        known: dict[str, SourceFile] | None = None
        if by_path and vector_store_id is not None:  # files from disk, known by their path
            with self._db.read() as conn:
                known = {s.path: s for s in fetch_sources(conn, vector_store_id)}
        not_started = 0
        with stop_on_interrupt() if interruptible else nullcontext(_never) as stop_requested:
            for index, source in enumerate(sources):
                if stop_requested():
                    not_started = len(sources) - index
                    break
                if source.skipped is not None:
                    writer.reject(source, source.skipped)
                    continue
                try:
                    if known is not None and source.path is not None:
                        self._load_source(writer, source, known)
                    else:
                        writer.add(source, source.load())
                except FileRejected as exc:
                    writer.reject(source, exc.reason)
                except ForgeError as exc:
                    writer.reject(source, exc.one_line())
                except Exception as exc:  # a bug preparing this file: it fails, the rest go on
                    writer.reject(source, f"internal error: {type(exc).__name__}: {exc}"[:300])
            writer.flush()  # what was prepared before a Ctrl+C is committed, not thrown away
            interrupted = stop_requested()
        return BatchReport(
            results=[r for r in writer.results if r is not None],
            interrupted=interrupted,
            not_started=not_started,
        )

    def _load_source(
        self, writer: _BatchWriter, source: _Source, known: Mapping[str, SourceFile]
    ) -> None:
        """Queue a file from disk that a path of the vector store may hold already: untouched
        (same size and mtime) it is not read; read, with the same content hash, it is not
        prepared again; else it is prepared and replaces what the path held."""
        from forge_cli.knowledge.ingest import read_path, sha256_hex

        assert source.path is not None
        try:
            # Before reading: a write during the read shows next time.
            stat = stat_source(source.path)
        except OSError:
            writer.add(source, source.load())  # load says why the file cannot be read
            return
        held = known.get(stat.path)
        if held is not None and held.same_stat(stat):
            writer.unchanged(source, held.file_id, None)
            return
        path = Path(source.path)
        data = read_path(path, self.max_file_bytes, inside=source.walked)
        if held is not None and held.sha256 == sha256_hex(data):
            writer.unchanged(source, held.file_id, stat)
            return
        writer.add(source, self._prepare(path.name, data), stat)

    def _prepare(self, filename: str, content: bytes) -> PreparedFile:
        from forge_cli.knowledge.ingest import prepare_file

        return prepare_file(
            filename, content, max_bytes=self.max_file_bytes, embedder=self.embedder
        )

    def _prepare_path(self, path: Path, walked: WalkedFile | None = None) -> PreparedFile:
        from forge_cli.knowledge.ingest import read_path

        return self._prepare(path.name, read_path(path, self.max_file_bytes, inside=walked))

    def _check_target(self, vector_store_id: str | None) -> None:
        """Fail fast, before any expensive work, when the target store does not exist."""
        if vector_store_id is not None:
            with self._db.read() as conn:
                require_store(conn, vector_store_id)
