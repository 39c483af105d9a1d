"""Slash commands over the backend's knowledge: upload, list documents, search."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from forge_cli.errors import UsageError
from forge_cli.repl.commands.registry import CommandResult, command
from forge_cli.repl.knowledge import RESULT_INDENT, ProgressLine, result_line
from forge_cli.repl.layout import Columns, Para, numbered
from forge_cli.wording import shorten

if TYPE_CHECKING:
    from forge_cli.knowledge.client import KnowledgeClient
    from forge_cli.knowledge.models import FileRecord, IngestResult, VectorStoreFile
    from forge_cli.repl.commands.context import CommandSession


def _knowledge(session: CommandSession) -> KnowledgeClient:
    if session.knowledge is None:
        raise UsageError("this backend offers no document store")
    return session.knowledge


_UPLOAD_USAGE = "usage: /upload PATH... [--vs ID]"
UPLOADS_STORE = "uploads"
"""Where ``/upload`` puts files when no store is named or active (so they can be searched)."""


def _upload_args(args: list[str]) -> tuple[list[Path], str | None]:
    """The paths and the ``--vs`` store of ``/upload`` (each path must exist)."""
    vs: str | None = None
    if "--vs" in args:
        at = args.index("--vs")
        if at + 1 >= len(args):
            raise UsageError(_UPLOAD_USAGE)
        vs = args[at + 1]
        args = args[:at] + args[at + 2 :]
    if not args:
        raise UsageError(_UPLOAD_USAGE)
    paths = [Path(arg).expanduser() for arg in args]
    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or directory: {path}")
    return paths, vs


@command(
    "upload",
    "Upload files (directories are walked) into a vector store, made active",
    usage="/upload PATH... [--vs ID]",
)
async def upload_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    from forge_cli.knowledge.client import ensure_vector_store, resolve_vector_store

    paths, vs = _upload_args(args)
    knowledge = _knowledge(session)
    active = session.settings.vector_stores
    # A file in no vector store cannot be searched: without --vs and with no active store, the
    # files go to the "uploads" store, which becomes active for this chat.
    if vs is None and not active:
        target = (await ensure_vector_store(knowledge, UPLOADS_STORE)).id
    else:
        target = vs or active[0]
    store_id = (await resolve_vector_store(knowledge, target)).id
    with ProgressLine(session.out) as progress:
        report = await knowledge.upload_files(paths, vector_store_id=store_id, progress=progress)
    results = report.results
    if report.interrupted:  # Ctrl+C: what was committed is kept; say so and stop here
        kept = sum(1 for r in results if r.ok)
        lines = [_result(r) for r in results]
        lines.append(
            Para(
                f"Interrupted: {kept} file(s) added to {store_id} and kept, "
                f"{len(results) - kept} rejected, {report.not_started} not started."
            )
        )
        return CommandResult(message=lines)
    if not results:
        return CommandResult(message="No supported files found.")
    stored = sum(1 for r in results if r.ok)
    lines = [_result(r) for r in results]
    lines.append(Para(f"Uploaded {stored} of {len(results)} file(s) into {target}."))
    if vs is None and target not in active:
        session.settings.vector_stores = [*active, target]
        lines.append(Para(f"{target} ({UPLOADS_STORE}) is now an active vector store."))
    if session.settings.vector_stores and "file-search" not in session.settings.tools:
        session.settings.tools = [*session.settings.tools, "file-search"]  # as /vs use does
        lines.append(Para("File search is on."))
    return CommandResult(message=lines)


def _result(result: IngestResult) -> Para:
    """A file's outcome; a long one wraps under the file id, past the status column."""
    return Para(result_line(result), hang=RESULT_INDENT)


@command("docs", "List the documents of the active vector stores")
async def docs_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    from forge_cli.knowledge.client import list_documents

    docs = await list_documents(_knowledge(session), session.settings.vector_stores)
    if not docs:
        return CommandResult(message="No documents.")
    rows = [(_doc_id(d), d.filename) for d in docs]
    return CommandResult(message=[Columns(rows, max_left=40)])


def _doc_id(doc: FileRecord | VectorStoreFile) -> str:
    from forge_cli.knowledge.models import FileRecord

    return doc.id if isinstance(doc, FileRecord) else doc.file_id


@command("search", "Search the active vector stores", usage="/search QUERY")
async def search_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    if not args:
        raise UsageError("usage: /search QUERY")
    from forge_cli.knowledge.client import search_stores

    query = " ".join(args)
    hits = await search_stores(_knowledge(session), session.settings.vector_stores, query)
    if not hits:
        return CommandResult(message="No results.")
    lines: list[Para] = []
    for number, hit in enumerate(hits, 1):
        snippet = shorten(" ".join(hit.text.split()), 160)
        title = numbered(number, f"{hit.filename or hit.file_id} ({hit.score:.2f})")
        lines += [title, Para(" " * title.hang + snippet, hang=title.hang)]  # under the title
    return CommandResult(message=lines)
