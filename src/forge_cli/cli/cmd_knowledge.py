"""``forge vs ...`` and ``forge files ...``: the same commands for the local store and servers.

Each command resolves the settings (``--api``/``--base-url``/``--profile`` and the usual
precedence), builds the knowledge client (the local store, or ``/v1/files`` and
``/v1/vector_stores`` over HTTP) and prints what it got. A vector store may be named by id or by
its exact name. Untrusted text (names, snippets, server messages) is sanitised before it is
printed; ``--json`` prints one JSON document instead of lines.

Uploads (``vs create NAME PATH...``, ``vs add``, ``files upload``) show a progress bar on stderr
when it is a terminal, then one result line per file (``ok``, ``duplicate``, ``unchanged``,
``replaced`` or ``rejected: reason``). A rejected file never stops the batch; the command then
exits 1 (0 when every file is in the store). ``vs sync`` prints a line per change and a summary.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from forge_cli.cli.cmd_reembed import reembed
from forge_cli.cli.knowledge import (
    build_knowledge_client,
    check_upload_paths,
    fail_if_rejected,
    ingest_summary,
    upload_into_new_store,
    upload_with_progress,
)
from forge_cli.cli.options import settings_from_options
from forge_cli.errors import KnowledgeError, NotFoundError
from forge_cli.repl.knowledge import result_line
from forge_cli.wording import plural

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from forge_cli.knowledge.client import KnowledgeClient
    from forge_cli.knowledge.models import IngestResult, VectorStore
    from forge_cli.knowledge.sync import SyncReport

__all__ = ["files", "vs"]

F = TypeVar("F", bound=Callable[..., object])
Work = Callable[["KnowledgeClient"], Awaitable[None]]


def _backend_options(func: F) -> F:
    """``--profile``, ``--api``, ``--base-url``, ``--api-key-env`` (as for chat and ask)."""
    decorators = [
        click.option("--profile", metavar="NAME", help="Config profile to use."),
        click.option(
            "--api",
            type=click.Choice(("local", "responses", "knowledge-forge")),
            help="Local store, or a Responses server's /v1/files and /v1/vector_stores.",
        ),
        click.option("--base-url", metavar="URL", help="Server URL (with /v1)."),
        click.option("--api-key-env", metavar="NAME", help="Env var that holds the API key."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


_json = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")


def _run(options: Mapping[str, object], work: Work) -> None:
    """Run ``work(client)`` with the knowledge client of these options, then close it.

    The local store's calls are plain SQLite work that never waits on anything, so its commands
    run without an event loop (importing asyncio would cost ``forge vs search`` tens of ms).
    """
    settings = settings_from_options(dict(options))

    async def main() -> None:
        client = build_knowledge_client(settings)
        try:
            await work(client)
        finally:
            await client.aclose()

    if settings.api == "local":
        _run_inline(main())
    else:
        import asyncio

        asyncio.run(main())


def _run_inline(coroutine: Coroutine[object, None, None]) -> None:
    """Run a coroutine that never suspends (the local knowledge client's) to its end."""
    try:
        coroutine.send(None)
    except StopIteration:
        return
    coroutine.close()
    raise RuntimeError("a local knowledge command waited for I/O without an event loop")


# -- output helpers -----------------------------------------------------------------------------


def _clean(text: object) -> str:
    from forge_cli.sanitize import sanitize_inline

    return sanitize_inline(str(text))


def _echo_json(value: object) -> None:
    from forge_cli.sanitize import json_dumps_safe

    click.echo(json_dumps_safe(value, indent=2))


def _dump(record: DataclassInstance) -> dict[str, object]:
    """A knowledge record as JSON-ready data."""
    from forge_cli.knowledge.models import record_dict

    return record_dict(record)


def _dump_result(result: IngestResult) -> dict[str, str | None]:
    """One upload result in ``--json`` output: ``filename``, ``status``, ``file_id``, ``reason``."""
    file_id = result.file.id if result.file is not None else None
    return {
        "filename": result.filename,
        "status": result.status,
        "file_id": file_id,
        "reason": result.reason,
    }


def _when(timestamp: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp)) if timestamp else "-"


def _fields(rows: Sequence[tuple[str, object]]) -> None:
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        click.echo(f"{name.ljust(width)}  {_clean(value)}")


async def _store(client: KnowledgeClient, ref: str) -> VectorStore:
    from forge_cli.knowledge.client import resolve_vector_store

    return await resolve_vector_store(client, ref)


def _report(
    results: Sequence[IngestResult],
    *,
    as_json: bool,
    err: bool = False,
    paths: Sequence[str] = (),
) -> None:
    """Print the per-file results and a summary; raise (exit 1) if a named file was rejected or
    nothing could be added (see :func:`fail_if_rejected`)."""
    if as_json:
        _echo_json([_dump_result(r) for r in results])
    else:
        for result in results:
            click.echo(result_line(result), err=err)
        if paths and results:
            click.echo(ingest_summary(results, paths), err=True)
    fail_if_rejected(results, paths)


# -- forge vs -------------------------------------------------------------------------------------


@click.group()
def vs() -> None:
    """Vector stores: named, searchable collections of files."""


@vs.command("list")
@_backend_options
@_json
def vs_list(as_json: bool, **options: object) -> None:
    """List vector stores."""

    async def work(client: KnowledgeClient) -> None:
        stores = await client.list_vector_stores()
        if as_json:
            _echo_json([_dump(s) for s in stores])
            return
        for store in stores:
            click.echo(
                _clean(f"{store.id}  {store.name}  ({plural(store.file_counts.total, 'file')})")
            )
        if not stores:
            click.echo("No vector stores.", err=True)

    _run(options, work)


@vs.command("create")
@_backend_options
@_json
@click.argument("name")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
def vs_create(name: str, paths: tuple[str, ...], as_json: bool, **options: object) -> None:
    """Create a vector store NAME, optionally uploading PATHS (directories are walked).

    Prints the new store's id on stdout, and a line per file on stderr.
    """
    check_upload_paths(paths)

    async def work(client: KnowledgeClient) -> None:
        from forge_cli.knowledge.client import create_named_vector_store

        store = await create_named_vector_store(client, name)
        results = await upload_into_new_store(client, paths, store.id) if paths else []
        if results and not any(r.ok for r in results):  # every file rejected: no empty store
            await client.delete_vector_store(store.id)
            if as_json:
                _echo_json({"vector_store": None, "files": [_dump_result(r) for r in results]})
            else:
                for result in results:
                    click.echo(result_line(result), err=True)
            raise KnowledgeError(
                f"none of {len(results)} file(s) could be added; no vector store was created"
            )
        if as_json:
            store = await client.get_vector_store(store.id)
            _echo_json({"vector_store": _dump(store), "files": [_dump_result(r) for r in results]})
            fail_if_rejected(results, paths)
            return
        click.echo(store.id)
        _report(results, as_json=False, err=True, paths=paths)

    _run(options, work)


@vs.command("show")
@_backend_options
@_json
@click.argument("ref", metavar="ID")
def vs_show(ref: str, as_json: bool, **options: object) -> None:
    """Show a vector store (by id or name) and its files."""

    async def work(client: KnowledgeClient) -> None:
        store = await _store(client, ref)
        members = await client.list_vector_store_files(store.id)
        if as_json:
            _echo_json({**_dump(store), "files": [_dump(m) for m in members]})
            return
        counts = store.file_counts
        _fields(
            [
                ("id", store.id),
                ("name", store.name),
                ("description", store.description or "-"),
                ("files", f"{counts.total} ({store.usage_bytes} bytes)"),
                ("created", _when(store.created_at)),
                ("metadata", ", ".join(f"{k}={v}" for k, v in store.metadata.items()) or "-"),
            ]
        )
        for member in members:
            where = f"  {member.source_path}" if member.source_path else ""
            click.echo(
                _clean(f"  {member.file_id}  {member.filename}  ({member.bytes} bytes){where}")
            )

    _run(options, work)


@vs.command("delete")
@_backend_options
@click.argument("ref", metavar="ID")
def vs_delete(ref: str, **options: object) -> None:
    """Delete a vector store (by id or name); its files stay."""

    async def work(client: KnowledgeClient) -> None:
        store = await _store(client, ref)
        await client.delete_vector_store(store.id)
        click.echo(_clean(f"Deleted {store.id} ({store.name})"), err=True)

    _run(options, work)


@vs.command("add")
@_backend_options
@_json
@click.argument("ref", metavar="ID")
@click.argument("items", nargs=-1, required=True, metavar="PATH_OR_FILE_ID...")
def vs_add(ref: str, items: tuple[str, ...], as_json: bool, **options: object) -> None:
    """Add files to a vector store: upload PATHs, or attach already uploaded FILE_IDs.

    An argument that names an existing file or directory is uploaded; any other is a file id.
    """
    paths = [item for item in items if Path(item).exists()]
    file_ids = [item for item in items if not Path(item).exists()]
    check_upload_paths(paths)

    async def work(client: KnowledgeClient) -> None:
        store = await _store(client, ref)
        results = await upload_with_progress(client, paths, store.id, by_path=True) if paths else []
        from forge_cli.knowledge.client import attach_file

        for file_id in file_ids:
            results.append(await attach_file(client, store.id, file_id))
        _report(results, as_json=as_json, paths=[*paths, *file_ids])

    _run(options, work)


@vs.command("sync")
@_backend_options
@_json
@click.argument("ref", metavar="NAME")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--dry-run", is_flag=True, help="Print what would change; change nothing.")
@click.option("--no-delete", is_flag=True, help="Keep files that are gone from disk.")
def vs_sync(
    ref: str,
    paths: tuple[str, ...],
    dry_run: bool,
    no_delete: bool,
    as_json: bool,
    **options: object,
) -> None:
    """Make vector store NAME hold exactly the supported files under PATHs.

    New files are added, edited files replaced, files gone from disk removed (not with
    --no-delete); unchanged files are not read again. The store is created if there is none.
    Prints a line per change on stdout and a summary on stderr.
    """
    check_upload_paths(paths)

    async def work(client: KnowledgeClient) -> None:
        from forge_cli.cli.knowledge import sync_store

        report = await sync_store(client, ref, paths, dry_run=dry_run, delete=not no_delete)
        _sync_output(report, paths, as_json=as_json, dry_run=dry_run)

    _run(options, work)


def _sync_output(report: SyncReport, paths: Sequence[str], *, as_json: bool, dry_run: bool) -> None:
    """Print a sync's changes and summary; raise for Ctrl+C (130) or a failed file (1)."""
    from forge_cli.errors import Interrupted

    if as_json:
        _echo_json(report.as_json())
    else:
        verbs = ("add", "change", "remove") if dry_run else ("added", "changed", "removed")
        for verb, paths in zip(verbs, (report.added, report.changed, report.removed), strict=True):
            for path in paths:
                click.echo(_clean(f"{verb.ljust(8)} {path}"))
        for path, error in report.failed:
            click.echo(_clean(f"{'failed'.ljust(8)} {path}: {error}"))
        click.echo(_clean(report.summary(dry_run=dry_run)), err=True)
    if report.interrupted:
        raise Interrupted(
            f"interrupted: what was synced is kept, {report.not_started} file(s) not started, "
            "nothing removed; run the sync again to finish"
        )
    if _sync_failed(report, paths):
        raise KnowledgeError(f"{len(report.failed)} file(s) could not be synced")


def _sync_failed(report: SyncReport, paths: Sequence[str]) -> bool:
    """Exit 1 when a file named on the command line failed, or when files failed and none is
    in the store; files a folder walk found that cannot go in (binary, empty) are reported
    without failing a sync, as for ``vs add``, so a scheduled sync does not fail for ever."""
    from forge_cli.knowledge.sources import source_key

    if not report.failed:
        return False
    named = {source_key(p) for p in paths if not Path(p).is_dir()}
    synced = report.added or report.changed or report.unchanged
    return not synced or any(path in named for path, _ in report.failed)


@vs.command("remove")
@_backend_options
@click.argument("ref", metavar="ID")
@click.argument("file_ids", nargs=-1, required=True, metavar="FILE_ID...")
def vs_remove(ref: str, file_ids: tuple[str, ...], **options: object) -> None:
    """Detach files from a vector store (the files themselves stay)."""

    async def work(client: KnowledgeClient) -> None:
        store = await _store(client, ref)
        missing = 0
        for file_id in file_ids:
            try:
                await client.remove_file(store.id, file_id)
            except NotFoundError:
                missing += 1
                click.echo(_clean(f"not found  {file_id}"))
            else:
                click.echo(_clean(f"removed    {file_id}"))
        if missing:
            raise NotFoundError(f"{missing} of {len(file_ids)} file(s) were not in {store.id}")

    _run(options, work)


@vs.command("search")
@_backend_options
@_json
@click.argument("ref", metavar="ID")
@click.argument("query")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100))
def vs_search(ref: str, query: str, limit: int, as_json: bool, **options: object) -> None:
    """Search a vector store (by id or name)."""

    async def work(client: KnowledgeClient) -> None:
        store = await _store(client, ref)
        hits = await client.search(store.id, query, max_num_results=limit)
        if as_json:
            _echo_json([_dump(h) for h in hits])
            return
        for hit in hits:
            page = f" p.{hit.page}" if hit.page is not None else ""
            snippet = " ".join(hit.snippet.split())
            click.echo(_clean(f"{hit.score:.2f}  {hit.filename}{page}  {snippet}"))
        if not hits:
            click.echo("No results.", err=True)

    _run(options, work)


# -- forge files ----------------------------------------------------------------------------------


@click.group()
def files() -> None:
    """Uploaded files."""


@files.command("upload")
@_backend_options
@_json
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--vs", "store_ref", metavar="ID", help="Also add the files to this store.")
def files_upload(
    paths: tuple[str, ...], store_ref: str | None, as_json: bool, **options: object
) -> None:
    """Upload files (directories are walked), optionally into a vector store."""
    check_upload_paths(paths)

    async def work(client: KnowledgeClient) -> None:
        store_id = (await _store(client, store_ref)).id if store_ref else None
        _report(await upload_with_progress(client, paths, store_id), as_json=as_json, paths=paths)

    _run(options, work)


@files.command("list")
@_backend_options
@_json
def files_list(as_json: bool, **options: object) -> None:
    """List uploaded files."""

    async def work(client: KnowledgeClient) -> None:
        records = await client.list_files()
        if as_json:
            _echo_json([_dump(r) for r in records])
            return
        for record in records:
            click.echo(_clean(f"{record.id}  {record.filename}  {record.bytes} bytes"))
        if not records:
            click.echo("No files.", err=True)

    _run(options, work)


@files.command("show")
@_backend_options
@_json
@click.argument("file_id")
def files_show(file_id: str, as_json: bool, **options: object) -> None:
    """Show an uploaded file."""

    async def work(client: KnowledgeClient) -> None:
        record = await client.get_file(file_id)
        if as_json:
            _echo_json(_dump(record))
            return
        _fields(
            [
                ("id", record.id),
                ("filename", record.filename),
                ("bytes", record.bytes),
                ("type", record.mime_type),
                ("sha256", record.sha256 or "-"),
                ("pages", record.page_count if record.page_count is not None else "-"),
                ("chunks", record.chunk_count),
                ("created", _when(record.created_at)),
            ]
        )

    _run(options, work)


@files.command("delete")
@_backend_options
@click.argument("file_id")
def files_delete(file_id: str, **options: object) -> None:
    """Delete an uploaded file (and remove it from every vector store)."""

    async def work(client: KnowledgeClient) -> None:
        await client.delete_file(file_id)
        click.echo(_clean(f"Deleted {file_id}"), err=True)

    _run(options, work)


vs.add_command(reembed)
