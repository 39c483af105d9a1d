"""The ingest pipeline: check a file, extract and chunk its text, then store it in one transaction.

The expensive part (:func:`prepare_file`: hashing, extraction, chunking, embedding) runs before
the write transaction, so two processes ingesting at once hold the write lock only briefly.
Oversized files are rejected from their size alone, before any byte is read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from forge_cli.errors import UsageError
from forge_cli.knowledge.base import DEFAULT_MAX_FILE_BYTES
from forge_cli.knowledge.chunking import ChunkSpec, chunk_text, document_context
from forge_cli.knowledge.embed.dense import bump_generation, ensure_model
from forge_cli.knowledge.embed.embedder import Embedder, embed_chunks, embedder_name
from forge_cli.knowledge.extract import (
    SUPPORTED_EXTENSIONS,
    ExtractedText,
    FileRejected,
    extract_text,
    file_kind,
)
from forge_cli.knowledge.records import new_id, validate_attributes
from forge_cli.limits import describe_bytes

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "EMBED_BATCH",
    "SWAPPED",
    "PreparedFile",
    "WalkedFile",
    "expand_paths",
    "index_chunks",
    "insert_prepared",
    "new_id",
    "next_chunk_id",
    "prepare_file",
    "read_path",
    "sha256_hex",
    "stop_on_interrupt",
    "validate_attributes",
    "walk_files",
    "walk_paths",
]


EMBED_BATCH = 256
"""Chunks embedded per call (about 256 KB of text): bounds the memory an ingest's embedding
needs, which grew with the file (3.6 GB for a 50 MB file of many distinct words)."""


@dataclass(frozen=True, slots=True)
class PreparedFile:
    """A checked, extracted and chunked file, ready to be written."""

    filename: str
    data: bytes
    sha256: str
    extracted: ExtractedText
    chunks: list[ChunkSpec]
    vectors: list[bytes] | None
    """One packed unit vector per chunk (``embedding.pack``), made by ``model``."""
    model: str | None = None
    dim: int = 0
    context: str = ""
    """The document's lead (``chunking.document_context``), indexed with every chunk."""


def _check_size(filename: str, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise FileRejected(
            filename,
            f"too large ({describe_bytes(size)}; the limit is {describe_bytes(max_bytes)})",
        )


_OPEN_FILE = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
"""How a file is opened for ingest: ``O_NONBLOCK`` so a FIFO put in a file's place cannot
hang the open (it is then refused as not a regular file; a regular file ignores the flag)."""
_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def _open_in_tree(tree: Path, parts: tuple[str, ...]) -> int:
    """A descriptor for ``tree/parts…`` opened one component at a time, following no symlink.

    Each directory is opened relative to the one before it (``dir_fd``) with ``O_NOFOLLOW``,
    and so is the file: a component swapped for a symlink after the walk checked it is refused
    by the kernel (ELOOP or ENOTDIR) instead of being followed out of the tree. The check and
    the read are one: what is read is what the descriptor names.
    """
    fd = os.open(tree, _OPEN_DIR)
    try:
        for part in parts[:-1]:
            inner = os.open(part, _OPEN_DIR | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(parts[-1], _OPEN_FILE | os.O_NOFOLLOW, dir_fd=fd)
    finally:
        os.close(fd)


SWAPPED = "skipped: it was replaced by a symlink during the ingest (not followed)"
"""The reason for a walked file that a symlink replaced between the walk and the read."""


def read_path(path: Path, max_bytes: int, *, inside: WalkedFile | None = None) -> bytes:
    """Read a file for ingest, rejecting it by type or size before reading any content.

    The file is opened once and everything is checked on that descriptor (``fstat``), so it
    cannot change between the check and the read. A file a directory walk found (``inside``)
    is opened component by component below its tree without following any symlink
    (:func:`_open_in_tree`); a file named explicitly is taken as given.
    """
    name = path.name
    try:
        if inside is not None and inside.parts:
            fd = _open_in_tree(inside.tree, inside.parts)
        else:
            fd = os.open(path, _OPEN_FILE)
    except FileNotFoundError as exc:
        raise FileRejected(str(path), "no such file") from exc
    except OSError as exc:
        if inside is not None and exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise FileRejected(str(path), SWAPPED) from exc
        raise FileRejected(str(path), f"cannot read ({exc.strerror or exc})") from exc
    with open(fd, "rb") as handle:  # closes fd
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise FileRejected(str(path), "not a regular file")
        if file_kind(name) is None:
            raise FileRejected(name, f"unsupported file type {path.suffix or '(none)'}")
        _check_size(name, info.st_size, max_bytes)
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise FileRejected(name, f"cannot read ({exc.strerror or exc})") from exc
    _check_size(name, len(data), max_bytes)  # the file grew while we looked at it
    return data


def sha256_hex(data: bytes) -> str:
    """The content hash a stored file is known by."""
    return hashlib.sha256(data).hexdigest()


def prepare_file(
    filename: str, data: bytes, *, max_bytes: int, embedder: Embedder | None = None
) -> PreparedFile:
    """Check, extract, chunk and (optionally) embed a file; raise :class:`FileRejected`."""
    filename = filename.strip()
    if not filename:
        raise UsageError("a file name is required")
    _check_size(filename, len(data), max_bytes)
    extracted = extract_text(filename, data)
    chunks = chunk_text(extracted.text, extracted.pages)
    if not chunks:
        raise FileRejected(filename, "no text content (empty or whitespace only)")
    vectors: list[bytes] | None = None
    model, dim = None, 0
    context = document_context(extracted.text)
    if embedder is not None:
        vectors = []
        # A batch at a time: the embedder's working memory (every word of every text it is
        # given) stays that of one batch, whatever the size of the file.
        for start in range(0, len(chunks), EMBED_BATCH):
            batch = chunks[start : start + EMBED_BATCH]
            dim, packed = embed_chunks(
                embedder, [(c.heading, c.text) for c in batch], [context] * len(batch)
            )
            vectors.extend(packed)
        model = embedder_name(embedder)
    return PreparedFile(
        filename=filename,
        data=data,
        sha256=sha256_hex(data),
        extracted=extracted,
        chunks=chunks,
        vectors=vectors,
        model=model,
        dim=dim,
        context=context,
    )


def insert_prepared(
    conn: sqlite3.Connection, prepared: PreparedFile, *, index: bool = True
) -> tuple[str, bool]:
    """Write a prepared file inside the caller's transaction; returns (file_id, is_duplicate).

    With ``index=False`` the chunks are not yet in the full-text index: the caller indexes a
    whole batch at once with :func:`index_chunks` before committing.
    """
    row = conn.execute("SELECT id FROM files WHERE sha256 = ?", (prepared.sha256,)).fetchone()
    if row is not None:
        return str(row[0]), True
    file_id = new_id("file")
    ext = prepared.extracted
    conn.execute(
        "INSERT INTO files (id, filename, bytes, sha256, mime_type, created_at, paged) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            file_id,
            prepared.filename,
            len(prepared.data),
            prepared.sha256,
            ext.mime_type,
            int(time.time()),
            int(ext.pages is not None),
        ),
    )
    conn.execute("INSERT INTO file_contents VALUES (?, ?)", (file_id, prepared.data))
    conn.execute("INSERT INTO file_texts VALUES (?, ?)", (file_id, ext.text))
    pages = ext.pages if ext.pages is not None else [(0, len(ext.text))]
    conn.executemany(
        "INSERT INTO pages VALUES (?, ?, ?, ?)",
        [(file_id, n, s, e) for n, (s, e) in enumerate(pages, start=1)],
    )
    first = next_chunk_id(conn)
    conn.executemany(
        "INSERT INTO chunks (id, file_id, ordinal, heading, text, page, char_start, char_end, "
        "context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                first + c.ordinal,
                file_id,
                c.ordinal,
                c.heading,
                c.text,
                c.page,
                c.char_start,
                c.char_end,
                prepared.context,
            )
            for c in prepared.chunks
        ],
    )
    if prepared.vectors is not None and prepared.model is not None:
        model = ensure_model(conn, prepared.model, prepared.dim)
        conn.executemany(
            "INSERT INTO embeddings (chunk_id, dim, vector, model_id) VALUES (?, ?, ?, ?)",
            [(first + i, prepared.dim, v, model) for i, v in enumerate(prepared.vectors)],
        )
        bump_generation(conn, model)
    if index:
        index_chunks(conn, first)
    return file_id, False


def next_chunk_id(conn: sqlite3.Connection) -> int:
    """The id the next inserted chunk gets (ids only grow within a write transaction)."""
    return int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM chunks").fetchone()[0])


def index_chunks(conn: sqlite3.Connection, first_id: int) -> None:
    """Add the chunks with id ≥ ``first_id`` to the FTS5 index, in one statement.

    One statement means FTS5 writes one new index segment for all of them; a row trigger or a
    statement per chunk would flush many small segments that it must then merge.
    """
    conn.execute(
        "INSERT INTO chunks_fts (rowid, heading, text, context) "
        "SELECT id, heading, text, context FROM chunks WHERE id >= ?",
        (first_id,),
    )


@dataclass(frozen=True, slots=True)
class WalkedFile:
    """A file a directory walk found: where it is, and how to reach it without leaving the tree."""

    path: Path
    """The file as the walk found it (what the report names)."""
    tree: Path
    """The directory given, resolved."""
    parts: tuple[str, ...] = ()
    """The file's path below ``tree``; for an in-tree symlink, its target's path (empty when
    the walk refused the file)."""
    skipped: str | None = None
    """Why the walk refused the file (it is reported, never read)."""


def _walked(entry: Path, tree: Path, parts: tuple[str, ...]) -> WalkedFile:
    """``entry`` (``parts`` below ``tree``), checked: a symlink is kept only when it resolves to
    a file inside the tree, and is then read at its target."""
    if not entry.is_symlink():
        return WalkedFile(entry, tree, parts)
    try:
        target = entry.resolve(strict=True)
    except (OSError, RuntimeError):
        reason = "skipped: a broken symlink (its target is missing, or it loops)"
        return WalkedFile(entry, tree, skipped=reason)
    if not target.is_relative_to(tree):
        reason = "skipped: a symlink that leads outside the directory"
        return WalkedFile(entry, tree, skipped=reason)
    return WalkedFile(entry, tree, target.relative_to(tree).parts)


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files to ingest: given files as they are; directories walked for supported files (never
    leaving the tree, see :func:`walk_paths`)."""
    return [path for path, skipped in walk_paths(paths) if skipped is None]


GENERATED_DIRS = frozenset({"__pycache__", "node_modules", "_static", "_build", "site-packages"})
"""Directories a walk does not enter: caches, dependencies and documentation tools' assets."""

GENERATED_NAMES = frozenset({"searchindex.js", "search_index.json", "package-lock.json"})
"""Files that tools generate from the documents (search indexes, lock files), not documents."""


def is_generated(name: str) -> bool:
    """Whether a file named ``name`` is generated rather than written (a walk skips it)."""
    lower = name.lower()
    return lower in GENERATED_NAMES or lower.endswith((".min.js", ".min.css", ".js.map"))


def count_skipped(paths: Iterable[str | os.PathLike[str]]) -> int:
    """How many files in the directories of ``paths`` a walk leaves out (unsupported types,
    hidden, generated): the number a summary reports, never a reason to fail."""
    skipped = 0
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            continue
        for root, dirs, files in os.walk(path):
            kept = [d for d in dirs if not d.startswith(".") and d not in GENERATED_DIRS]
            for gone in set(dirs) - set(kept):
                skipped += sum(len(f) for _, _, f in os.walk(Path(root) / gone))
            dirs[:] = kept
            for name in files:
                unsupported = Path(name).suffix.lower() not in SUPPORTED_EXTENSIONS
                if name.startswith(".") or is_generated(name) or unsupported:
                    skipped += 1
    return skipped


def walk_paths(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[Path, str | None]]:
    """Like :func:`expand_paths`, with the files the walk refused and why: ``(path, reason)``."""
    return [
        (item.path, item.skipped) if isinstance(item, WalkedFile) else (item, None)
        for item in walk_files(paths)
    ]


def walk_files(paths: Iterable[str | os.PathLike[str]]) -> list[WalkedFile | Path]:
    """The files to ingest: a :class:`WalkedFile` for each file a directory walk found (refused
    ones with their reason), a ``Path`` for each file named explicitly (taken as given).

    The walk never leaves the tree: symlinked directories are not entered, and a symlinked file
    whose target lies outside the directory given is refused (so a ``notes/passwd.md ->
    /etc/passwd`` planted in a tree is reported, never ingested). A directory that cannot be
    listed is reported too (``cannot read the directory (Permission denied)``). The files are
    read later by :func:`read_path`, which follows no symlink below the tree, so a file swapped
    for a symlink after the walk is refused too.
    """
    result: list[WalkedFile | Path] = []
    tree = Path()

    def unreadable(error: OSError) -> None:  # a directory that cannot be listed: say so
        reason = error.strerror or type(error).__name__
        result.append(
            WalkedFile(Path(error.filename), tree, skipped=f"cannot read the directory ({reason})")
        )

    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            result.append(path)
            continue
        tree = path.resolve()
        for root, dirs, files in os.walk(path, onerror=unreadable):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in GENERATED_DIRS)
            below = Path(root).relative_to(path).parts
            for name in sorted(files):
                if name.startswith(".") or is_generated(name):
                    continue
                if Path(name).suffix.lower() not in SUPPORTED_EXTENSIONS:
                    continue
                result.append(_walked(Path(root) / name, tree, (*below, name)))
    return result


@contextmanager
def stop_on_interrupt() -> Iterator[Callable[[], bool]]:
    """While the block runs, Ctrl+C (SIGINT) asks the ingest to stop after the current file
    instead of raising wherever it lands; yields the check. A second Ctrl+C stops at once.

    Outside the main thread (``forge serve``'s workers) signals cannot be caught: the check is
    then always false.
    """
    requested = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield requested.is_set
        return

    def on_sigint(_signum: int, _frame: object) -> None:
        if requested.is_set():
            raise KeyboardInterrupt
        requested.set()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield requested.is_set
    finally:
        signal.signal(signal.SIGINT, previous)
