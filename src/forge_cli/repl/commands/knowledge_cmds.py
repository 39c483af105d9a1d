"""Slash commands over the backend's knowledge: upload, list documents, search."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from forge_cli.errors import UsageError
from forge_cli.repl.commands.registry import CommandResult, command
from forge_cli.repl.knowledge import KnowledgePort, ProgressLine, result_line
from forge_cli.wording import shorten

if TYPE_CHECKING:
    from forge_cli.repl.session import ChatSession


def _knowledge(session: ChatSession) -> KnowledgePort:
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
async def upload_cmd(session: ChatSession, args: list[str]) -> CommandResult:
    paths, vs = _upload_args(args)
    knowledge = _knowledge(session)
    active = session.settings.vector_stores
    # A file in no vector store cannot be searched: without --vs and with no active store, the
    # files go to the "uploads" store, which becomes active for this chat.
    target = vs or (active[0] if active else await knowledge.ensure_vector_store(UPLOADS_STORE))
    with ProgressLine(session.out) as progress:
        results = await knowledge.upload(paths, target, progress)
    if not results:
        return CommandResult(message="No supported files found.")
    stored = sum(1 for r in results if r.ok)
    lines = [result_line(r) for r in results]
    lines.append(f"Uploaded {stored} of {len(results)} file(s) into {target}.")
    if vs is None and target not in active:
        session.settings.vector_stores = [*active, target]
        lines.append(f"{target} ({UPLOADS_STORE}) is now an active vector store.")
    return CommandResult(message="\n".join(lines))


@command("docs", "List the documents of the active vector stores")
async def docs_cmd(session: ChatSession, args: list[str]) -> CommandResult:
    docs = await _knowledge(session).list_documents(list(session.settings.vector_stores))
    if not docs:
        return CommandResult(message="No documents.")
    return CommandResult(message="\n".join(f"  {d.id}  {d.filename}" for d in docs))


@command("search", "Search the active vector stores", usage="/search QUERY")
async def search_cmd(session: ChatSession, args: list[str]) -> CommandResult:
    if not args:
        raise UsageError("usage: /search QUERY")
    hits = await _knowledge(session).search(list(session.settings.vector_stores), " ".join(args))
    if not hits:
        return CommandResult(message="No results.")
    lines = []
    for number, hit in enumerate(hits[:10], 1):
        score = f" ({hit.score:.2f})" if hit.score is not None else ""
        snippet = shorten(" ".join(hit.text.split()), 160)
        lines.append(f"[{number}] {hit.filename or hit.file_id}{score}: {snippet}")
    return CommandResult(message="\n".join(lines))
