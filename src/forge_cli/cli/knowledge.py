"""The knowledge client of a run (local store or HTTP server) and the batch-upload steps
``forge vs``/``forge files`` share (progress bar, per-file results).

The client is the one seam :class:`~forge_cli.knowledge.KnowledgeClient`; the chat session, the
knowledge commands and ``forge doctor`` all use it as built here. Building the local client
imports no HTTP stack and opens the store only on first use.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from forge_cli.cli.endpoints import DEFAULT_BASE_URLS, api_key_env
from forge_cli.cli.local_store import open_local_store
from forge_cli.config import Settings
from forge_cli.errors import ForgeError, Interrupted, KnowledgeError, NotFoundError, UsageError
from forge_cli.knowledge.client import KnowledgeClient, LocalKnowledgeClient
from forge_cli.knowledge.models import IngestResult
from forge_cli.repl.knowledge import ProgressLine, result_line
from forge_cli.wording import plural

if TYPE_CHECKING:
    from forge_cli.knowledge.sync import SyncReport

__all__ = [
    "build_knowledge_client",
    "check_upload_paths",
    "fail_if_rejected",
    "ingest_summary",
    "raise_interrupted",
    "resolve_store_refs",
    "sync_store",
    "upload_into_new_store",
    "upload_with_progress",
]


def build_knowledge_client(settings: Settings) -> KnowledgeClient:
    """The :class:`KnowledgeClient` for the backend the settings name.

    The local store is opened on first use, the way the local engine opens it (with the
    configured embeddings endpoint, if any).
    """
    if settings.api == "local":
        return LocalKnowledgeClient(lambda: open_local_store(settings))
    if settings.api == "chat":
        raise UsageError(
            "the chat API has no document store",
            hint="use --api local, responses or knowledge-forge",
        )
    from forge_cli.backends.knowledge_http import HttpKnowledgeClient

    return HttpKnowledgeClient(
        settings.base_url or DEFAULT_BASE_URLS[settings.api],
        api_key_env=api_key_env(settings),
        api_key=settings.api_key,
        timeout=settings.timeout,
        limits=settings.limits(),
    )


async def resolve_store_refs(settings: Settings) -> Settings:
    """``settings`` with vector store names resolved to ids on a Responses server, and in the
    local store for a Chat Completions server (the client runs file search over it; the built-in
    engine resolves names itself; Knowledge Forge is sent what the older CLI sent): ids are
    sent, and an unknown or ambiguous name is refused here, before the question is asked."""
    refs = settings.vector_stores
    if settings.api not in ("responses", "chat") or all(ref.startswith("vs_") for ref in refs):
        return settings
    from dataclasses import replace

    from forge_cli.knowledge.client import resolve_vector_store

    client: KnowledgeClient = (
        LocalKnowledgeClient(lambda: open_local_store(settings))
        if settings.api == "chat"
        else build_knowledge_client(settings)
    )
    try:
        ids = [(await resolve_vector_store(client, ref)).id for ref in refs]
    finally:
        await client.aclose()
    return replace(settings, vector_stores=tuple(ids))


def check_upload_paths(paths: Sequence[str]) -> None:
    """Refuse a batch with nothing to upload (e.g. a directory without supported files)."""
    from forge_cli.knowledge.ingest import expand_paths

    if paths and not expand_paths(paths):
        raise UsageError(
            "no supported files in " + ", ".join(paths),
            hint="supported: text, Markdown, HTML, PDF, source code, JSON, CSV",
        )


async def upload_with_progress(
    client: KnowledgeClient, paths: Sequence[str], store_id: str | None, *, by_path: bool = False
) -> list[IngestResult]:
    """Upload with a progress bar on a terminal's stderr; one result per file (``by_path``: see
    ``KnowledgeClient.upload_files``)."""
    with ProgressLine(sys.stderr) as progress:
        report = await client.upload_files(
            list(paths), vector_store_id=store_id, progress=progress, by_path=by_path
        )
    results = list(report.results)
    if report.interrupted:  # Ctrl+C: say what was kept, then stop (exit 130)
        raise_interrupted(results, report.not_started, store_id)
    return results


async def upload_into_new_store(
    client: KnowledgeClient, paths: Sequence[str], store_id: str
) -> list[IngestResult]:
    """:func:`upload_with_progress` into a store just created: if the store itself fails (disk
    full, read-only) and nothing went in, the empty store is deleted, not left behind."""
    try:
        return await upload_with_progress(client, paths, store_id, by_path=True)
    except Interrupted:
        raise
    except ForgeError:
        with contextlib.suppress(ForgeError):
            store = await client.get_vector_store(store_id)
            if not store.file_counts.total:
                await client.delete_vector_store(store_id)
        raise


async def sync_store(
    client: KnowledgeClient,
    ref: str,
    paths: Sequence[str],
    *,
    dry_run: bool = False,
    delete: bool = True,
) -> SyncReport:
    """``forge vs sync``: the store ``ref`` (created when there is none, unless ``dry_run``)
    synced with ``paths`` under its sync lock, with a progress bar on a terminal's stderr."""
    from forge_cli.knowledge.client import resolve_vector_store
    from forge_cli.knowledge.sync import dry_run_report, plan_sync, run_sync, sync_lock

    store_id: str | None
    try:
        store_id = (await resolve_vector_store(client, ref)).id
    except NotFoundError:
        if ref.startswith("vs_"):  # an id that is not there: not a name to create a store under
            raise
        store_id = None
    if dry_run:  # reads only: no lock, and a store that does not exist is not created
        plan = await plan_sync(client, store_id, paths, delete=delete, read_changed=True)
        return dry_run_report(store_id, plan)
    if store_id is None:
        store_id = (await client.create_vector_store(ref)).id
    with sync_lock(_sync_lock_path(client, store_id), ref), ProgressLine(sys.stderr) as progress:
        return await run_sync(client, store_id, paths, delete=delete, progress=progress)


def _sync_lock_path(client: KnowledgeClient, store_id: str) -> Path:
    """Beside the local store's file; for a server, in the data directory, per server URL."""
    if isinstance(client, LocalKnowledgeClient):
        db = Path(client.store.path)
        return db.with_name(f"{db.name}.sync-{store_id}.lock")
    import hashlib

    from forge_cli.knowledge.paths import default_store_path

    server = hashlib.sha256(client.name.encode()).hexdigest()[:16]
    return default_store_path().parent / "locks" / f"sync-{server}-{store_id}.lock"


def raise_interrupted(
    results: Sequence[IngestResult], not_started: int, store_id: str | None
) -> None:
    """Ctrl+C stopped a batch: list the files settled so far (they are kept) on stderr, then
    raise :class:`Interrupted` (exit 130) with a summary naming the store."""
    for result in results:
        print(result_line(result), file=sys.stderr)
    kept = sum(1 for r in results if r.ok)
    where = f" in {store_id}" if store_id else ""
    raise Interrupted(
        f"interrupted: {kept} file(s) added{where} and kept, "
        f"{len(results) - kept} rejected, {not_started} not started"
    )


def fail_if_rejected(results: Sequence[IngestResult], paths: Sequence[str] = ()) -> None:
    """Raise ``KnowledgeError`` (exit 1) when a file named on the command line was rejected, or
    when nothing at all could be added. Files a directory walk found that could not be read
    (undecodable, empty) are reported per file but do not fail an ingest that added others."""
    rejected = [r for r in results if not r.ok]
    if not rejected:
        return
    named = {Path(p).name for p in paths if not Path(p).is_dir()}  # files and file ids given
    walked_only = bool(paths) and all(r.filename not in named for r in rejected)
    if walked_only and len(rejected) < len(results):
        return
    raise KnowledgeError(f"{len(rejected)} of {len(results)} file(s) could not be added")


def ingest_summary(results: Sequence[IngestResult], paths: Sequence[str]) -> str:
    """``added 2268, 1 duplicate of a file already added, rejected 5, skipped 2850 (unsupported
    types, hidden or generated files)``.

    "added" counts the files the store gained, so it matches ``forge vs list``: a duplicate
    counts only when its content, uploaded before, joined this vector store. The other
    duplicates are counted apart: of a file this ingest added, or already in the store.
    """
    from forge_cli.knowledge.ingest import count_skipped

    added_ids = {r.file.id for r in results if r.status == "ok" and r.file is not None}
    added = sum(1 for r in results if r.status == "ok" or r.joined_store)
    again = [r for r in results if r.status == "duplicate" and not r.joined_store]
    of_added = sum(1 for r in again if r.file is not None and r.file.id in added_ids)
    line = f"added {added}"
    if of_added:
        kind = "a file" if of_added == 1 else "files"
        line += f", {plural(of_added, 'duplicate')} of {kind} already added"
    if len(again) > of_added:
        line += f", {len(again) - of_added} already in the store"
    for status in ("replaced", "unchanged"):  # a path the store held already
        same = sum(1 for r in results if r.status == status)
        if same:
            line += f", {status} {same}"
    line += f", rejected {sum(1 for r in results if not r.ok)}"
    skipped = count_skipped(paths)
    if skipped:
        line += f", skipped {skipped} (unsupported types, hidden or generated files)"
    return line
