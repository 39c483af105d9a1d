"""Slash commands over the backend's knowledge: upload, list documents, search."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from forge_cli.errors import UsageError
from forge_cli.repl.commands.registry import CommandResult, command
from forge_cli.repl.knowledge import KnowledgePort

if TYPE_CHECKING:
    from forge_cli.repl.session import ChatSession


def _knowledge(session: ChatSession) -> KnowledgePort:
    if session.knowledge is None:
        raise UsageError("this backend offers no document store")
    return session.knowledge


@command("upload", "Upload a file, optionally into a vector store", usage="/upload PATH [--vs ID]")
async def upload_cmd(session: ChatSession, args: list[str]) -> CommandResult:
    vs: str | None = None
    if "--vs" in args:
        at = args.index("--vs")
        if at + 1 >= len(args):
            raise UsageError("usage: /upload PATH [--vs ID]")
        vs = args[at + 1]
        args = args[:at] + args[at + 2 :]
    if len(args) != 1:
        raise UsageError("usage: /upload PATH [--vs ID]")
    path = Path(args[0]).expanduser()
    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    target = vs or (session.settings.vector_stores[0] if session.settings.vector_stores else None)
    doc = await _knowledge(session).upload(path, target)
    where = f" into {target}" if target else ""
    return CommandResult(message=f"Uploaded {doc.filename or path.name} as {doc.id}{where}.")


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
        snippet = " ".join(hit.text.split())[:160]
        lines.append(f"[{number}] {hit.filename or hit.file_id}{score}: {snippet}")
    return CommandResult(message="\n".join(lines))
