"""Renderers for search calls: file search, web search, list documents."""

from __future__ import annotations

from urllib.parse import urlsplit

from rich.console import RenderableType

from forge_cli.protocol.items import FileSearchCall, ListDocumentsCall, WebSearchCall
from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import (
    Detail,
    clip,
    progress_bar,
    queries_detail,
    sub_lines,
    tool_line,
)

__all__ = ["render_file_search", "render_list_documents", "render_web_search"]

TOP = 3


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def render_file_search(item: FileSearchCall, key: str, ctx: RenderContext) -> list[RenderableType]:
    """Status, queries, result count, and the top files once completed."""
    results = item.results or []
    count = _plural(len(results), "result") if item.results is not None else None
    head = tool_line(
        ctx, key, item.status, "File search", [queries_detail(item.queries, ctx), count]
    )
    if not item.is_done or not results:
        return [head]
    lines: list[Detail] = []
    seen: set[tuple[str | None, int | None]] = set()
    for result in results:
        ident = (result.filename or result.file_id, result.page)
        if ident in seen:
            continue
        seen.add(ident)
        name = clip(result.filename or result.file_id or "?", 60, ctx.glyphs.ellipsis)
        page = f", p. {result.page}" if result.page is not None else ""
        score = f" ({result.score:.2f})" if result.score is not None else ""
        lines.append(f"{name}{page}{score}")
        if len(lines) == TOP:
            break
    return [head, *sub_lines(ctx, lines)]


def _domain(url: str) -> str:
    host = urlsplit(url).hostname or url
    return host.removeprefix("www.")


def render_web_search(item: WebSearchCall, key: str, ctx: RenderContext) -> list[RenderableType]:
    """Queries (or the page opened), then sources as title and domain."""
    details: list[Detail | None] = [queries_detail(item.all_queries(), ctx)]
    action = item.action
    if action is not None and action.type != "search" and action.url:
        verb = "find " + clip(action.pattern, 30) + " in" if action.pattern else "open"
        details.append(f"{verb} {clip(_domain(action.url), 40)}")
    sources = item.all_sources()
    if sources:
        details.append(_plural(len(sources), "source"))
    head = tool_line(ctx, key, item.status, "Web search", details)
    if not sources:
        return [head]
    lines: list[Detail] = []
    for source in sources[:TOP]:
        title = clip(source.label, 60, ctx.glyphs.ellipsis)
        where = _domain(source.url) if source.url else source.type  # an "api" feed has no URL
        lines.append(f"{title}{ctx.glyphs.sep}{clip(where, 40)}")
    if len(sources) > TOP:
        lines.append(f"+{len(sources) - TOP} more")
    return [head, *sub_lines(ctx, lines)]


def render_list_documents(
    item: ListDocumentsCall, key: str, ctx: RenderContext
) -> list[RenderableType]:
    """Queries and document count (a progress bar while it runs, when the server sends one)."""
    count = item.count if item.count is not None else None
    if item.documents is not None:
        count = len(item.documents)
    details: list[Detail | None] = [queries_detail(item.queries, ctx)]
    if item.is_done and count is not None:
        details.append(_plural(count, "document"))
    elif item.progress is not None:
        details.append(progress_bar(item.progress, ctx, width=10))
    head = tool_line(ctx, key, item.status, "List documents", details)
    trace = item.trace_lines(last=1) if not item.is_done else []
    return [head, *sub_lines(ctx, trace)]
