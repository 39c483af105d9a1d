"""``forge vs sync``: make a vector store hold exactly the supported files under some folders.

Written once over the :class:`~forge_cli.knowledge.client.KnowledgeClient` seam, so the local
store and a server (``forge serve``, any OpenAI-style vector-store API) sync alike. A file is
known by its source path (``sources.py``): a new path is added, a path whose content changed is
replaced, a path gone from disk is removed, and a path whose size and mtime are those it had when
it was read is not read again (else its content hash decides). The adding and replacing is the
client's ``upload_files`` (one transaction per replaced file in the local store); removal comes
after it, and only when the upload was not interrupted, so Ctrl+C never loses a file.

Two syncs of one store at once: the second is refused by an advisory lock (:func:`sync_lock`);
the store's own transactions keep every write whole either way.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from forge_cli.errors import KnowledgeError
from forge_cli.knowledge.client import KnowledgeClient, PathLike
from forge_cli.knowledge.models import ProgressCallback
from forge_cli.knowledge.sources import SourceFile, source_key, stat_source

__all__ = ["SyncPlan", "SyncReport", "dry_run_report", "plan_sync", "run_sync", "sync_lock"]


@dataclass(slots=True)
class SyncPlan:
    """What a sync does: paths to add, to re-read (``change``), to remove, and the rest."""

    add: list[str] = field(default_factory=list)
    change: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    remove_ids: list[str] = field(default_factory=list)
    """Members that no path holds (added before files had an identity): they go too."""
    unchanged: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    known: set[str] = field(default_factory=set)


@dataclass(slots=True)
class SyncReport:
    """What a sync did (or, for ``--dry-run``, would do)."""

    vector_store_id: str | None
    """``None`` in a dry run for a store that does not exist yet."""
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    interrupted: bool = False
    not_started: int = 0

    def as_json(self) -> dict[str, object]:
        """The ``--json`` document."""
        return {
            "vector_store_id": self.vector_store_id,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "failed": [{"path": path, "error": error} for path, error in self.failed],
        }

    @property
    def nothing_to_do(self) -> bool:
        """True when the store already held exactly the files."""
        return not (self.added or self.changed or self.removed or self.failed)

    def summary(self, *, dry_run: bool = False) -> str:
        """``added 2, changed 1, removed 0, unchanged 40, failed 0`` (``nothing to do ...``)."""
        if self.nothing_to_do and not self.interrupted:
            return f"nothing to do ({self.unchanged} unchanged)"
        verbs = ("add", "change", "remove") if dry_run else ("added", "changed", "removed")
        counts = (len(self.added), len(self.changed), len(self.removed))
        line = ", ".join(f"{verb} {n}" for verb, n in zip(verbs, counts, strict=True))
        line += f", unchanged {self.unchanged}, failed {len(self.failed)}"
        return ("would " + line) if dry_run else line


@contextmanager
def sync_lock(path: Path, store: str) -> Iterator[None]:
    """Hold the advisory lock of one store's sync, or refuse at once with one line.

    An ``flock``: the system drops it when the process dies, so a killed sync never leaves the
    store locked. (Not on Windows, where the store's own write lock is the only guard.)
    """
    if sys.platform == "win32":
        yield
        return
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise KnowledgeError(
                f"another forge vs sync of {store} is running",
                hint="wait for it to finish, then sync again",
            ) from exc
        yield
    finally:
        os.close(fd)


def _walk(paths: Sequence[PathLike]) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """Supported files under ``paths`` (as identities), the refused ones with why, and the
    directories that could not be read (their known files must not count as deleted)."""
    from forge_cli.knowledge.ingest import walk_paths

    files: list[str] = []
    failed: list[tuple[str, str]] = []
    unreadable: list[str] = []
    for path, skipped in walk_paths(paths):
        key = source_key(path)
        if skipped is None:
            files.append(key)
        elif skipped.startswith("cannot read the directory"):
            unreadable.append(key + os.sep)
            failed.append((key, skipped))
        else:
            failed.append((key, skipped))
    return list(dict.fromkeys(files)), failed, unreadable


def _content_changed(path: str, held: SourceFile) -> bool:
    """For a dry run: whether a path whose size or mtime moved holds other content now."""
    from forge_cli.knowledge.ingest import sha256_hex

    try:
        return held.sha256 is None or sha256_hex(Path(path).read_bytes()) != held.sha256
    except OSError:
        return True  # the sync proper will say why it cannot read it


async def plan_sync(
    client: KnowledgeClient,
    store_id: str | None,
    paths: Sequence[PathLike],
    *,
    delete: bool = True,
    read_changed: bool = False,
) -> SyncPlan:
    """Compare the folders with the store. A path with another size or mtime goes to
    ``change``; with ``read_changed`` (a dry run) its content hash decides first. A store that
    does not exist yet (``store_id`` None) holds nothing."""
    files, failed, unreadable = _walk(paths)
    sources = await client.list_sources(store_id) if store_id is not None else []
    known = {s.path: s for s in sources}
    plan = SyncPlan(failed=failed, known=set(known))
    for path in files:
        held = known.get(path)
        if held is None:
            plan.add.append(path)
            continue
        try:
            same = held.same_stat(stat_source(path))
        except OSError:
            same = False  # the upload says why it cannot be read
        if same or (read_changed and not _content_changed(path, held)):
            plan.unchanged += 1
        else:
            plan.change.append(path)
    if delete and store_id is not None:
        seen = set(files) | {path for path, _ in failed}
        plan.remove = [
            p for p in known if p not in seen and not any(p.startswith(d) for d in unreadable)
        ]
        members = await client.list_vector_store_files(store_id)
        plan.remove_ids = [m.file_id for m in members if m.source_path is None]
    return plan


def dry_run_report(store_id: str | None, plan: SyncPlan) -> SyncReport:
    """The report of a dry run: the plan, nothing done."""
    removed = [*plan.remove, *plan.remove_ids]
    return SyncReport(store_id, plan.add, plan.change, removed, plan.unchanged, list(plan.failed))


async def run_sync(
    client: KnowledgeClient,
    store_id: str,
    paths: Sequence[PathLike],
    *,
    delete: bool = True,
    progress: ProgressCallback | None = None,
) -> SyncReport:
    """Sync the store with the folders (see the module docstring); returns what was done."""
    plan = await plan_sync(client, store_id, paths, delete=delete)
    report = SyncReport(store_id, unchanged=plan.unchanged, failed=list(plan.failed))
    todo = [*plan.add, *plan.change]
    if todo:
        batch = await client.upload_files(
            todo, vector_store_id=store_id, progress=progress, by_path=True
        )
        for result in batch.results:
            path = result.path or result.filename
            if not result.ok:
                report.failed.append((path, result.reason or "rejected"))
            elif result.status == "unchanged":
                report.unchanged += 1
            elif path in plan.known:
                report.changed.append(path)
            else:
                report.added.append(path)
        if batch.interrupted:
            report.interrupted, report.not_started = True, batch.not_started
            return report  # nothing is removed after a Ctrl+C: a rerun finishes the job
    pathless = []
    if delete and plan.remove_ids:
        # Members no path holds, listed again: the upload may have given some of them a path.
        members = await client.list_vector_store_files(store_id)
        pathless = [
            m for m in members if m.source_path is None and m.file_id in set(plan.remove_ids)
        ]
    if plan.remove or pathless:
        await client.remove_sources(store_id, plan.remove, [m.file_id for m in pathless])
        report.removed.extend(plan.remove)
        report.removed.extend(f"{m.filename} ({m.file_id})" for m in pathless)
    return report
