"""``forge vs ...`` and ``forge files ...`` over the backend's knowledge client."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import Any

import click

from forge_cli.cli.knowledge import build_knowledge_client
from forge_cli.config import ConfigFile, resolve_settings

__all__ = ["files", "vs"]


def _run(profile: str | None, work: Callable[[Any], Awaitable[None]]) -> None:
    settings = resolve_settings({}, env=os.environ, config=ConfigFile.load(), profile=profile)

    async def main() -> None:
        client = build_knowledge_client(settings)
        try:
            await work(client)
        finally:
            await client.aclose()

    asyncio.run(main())


_profile = click.option("--profile", metavar="NAME", help="Config profile to use.")


@click.group()
def vs() -> None:
    """Vector stores: named, searchable collections of files."""


@vs.command("list")
@_profile
def vs_list(profile: str | None) -> None:
    """List vector stores."""

    async def work(client: Any) -> None:
        for store in await client.list_vector_stores():
            click.echo(f"{store.id}  {store.name}  ({store.file_counts.total} files)")

    _run(profile, work)


@vs.command("create")
@_profile
@click.argument("name")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
def vs_create(profile: str | None, name: str, paths: tuple[str, ...]) -> None:
    """Create a vector store NAME, optionally uploading PATHS into it."""

    async def work(client: Any) -> None:
        store = await client.create_vector_store(name)
        click.echo(store.id)
        if paths:
            report = await client.upload_files(list(paths), vector_store_id=store.id)
            for result in report.results:
                reason = f": {result.reason}" if result.reason else ""
                click.echo(f"{result.status}  {result.filename}{reason}", err=True)

    _run(profile, work)


@vs.command("delete")
@_profile
@click.argument("vector_store_id")
def vs_delete(profile: str | None, vector_store_id: str) -> None:
    """Delete a vector store."""

    async def work(client: Any) -> None:
        await client.delete_vector_store(vector_store_id)
        click.echo(f"Deleted {vector_store_id}", err=True)

    _run(profile, work)


@vs.command("search")
@_profile
@click.argument("vector_store_id")
@click.argument("query")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(min=1))
def vs_search(profile: str | None, vector_store_id: str, query: str, limit: int) -> None:
    """Search a vector store."""

    async def work(client: Any) -> None:
        for hit in await client.search(vector_store_id, query, max_num_results=limit):
            page = f" p.{hit.page}" if hit.page is not None else ""
            click.echo(f"{hit.score:.2f}  {hit.filename}{page}  {' '.join(hit.snippet.split())}")

    _run(profile, work)


@click.group()
def files() -> None:
    """Uploaded files."""


@files.command("upload")
@_profile
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--vs", "vector_store_id", metavar="ID", help="Also add the files to this store.")
def files_upload(profile: str | None, paths: tuple[str, ...], vector_store_id: str | None) -> None:
    """Upload files (directories are walked)."""

    async def work(client: Any) -> None:
        report = await client.upload_files(list(paths), vector_store_id=vector_store_id)
        for result in report.results:
            ident = result.file.id if result.file is not None else "-"
            reason = f": {result.reason}" if result.reason else ""
            click.echo(f"{result.status}  {ident}  {result.filename}{reason}")

    _run(profile, work)


@files.command("list")
@_profile
def files_list(profile: str | None) -> None:
    """List uploaded files."""

    async def work(client: Any) -> None:
        for record in await client.list_files():
            click.echo(f"{record.id}  {record.filename}  {record.bytes} bytes")

    _run(profile, work)


@files.command("delete")
@_profile
@click.argument("file_id")
def files_delete(profile: str | None, file_id: str) -> None:
    """Delete an uploaded file."""

    async def work(client: Any) -> None:
        await client.delete_file(file_id)
        click.echo(f"Deleted {file_id}", err=True)

    _run(profile, work)
