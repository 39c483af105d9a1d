"""Renderers for the Knowledge Forge readers: file reader and page reader.

Both show the document (file name when known, else a short id), a real progress bar driven by
``progress`` and the last few trace lines while running (never the whole trace).
"""

from __future__ import annotations

from rich.console import RenderableType

from forge_cli.protocol.items import FileReaderCall, PageReaderCall
from forge_cli.protocol.traceable import TraceableToolCall
from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import Detail, clip, progress_bar, sub_lines, tool_line

__all__ = ["TRACE_LINES", "render_file_reader", "render_page_reader"]

TRACE_LINES = 3


def _document(name: str | None, ids: list[str], ctx: RenderContext) -> str:
    if name:
        return clip(name, 50, ctx.glyphs.ellipsis)
    if not ids:
        return "document"
    shown = ", ".join(clip(doc, 12, ctx.glyphs.ellipsis) for doc in ids[:2])
    return shown + (f" +{len(ids) - 2}" if len(ids) > 2 else "")


def _progress_and_trace(
    item: TraceableToolCall, done: bool, ctx: RenderContext
) -> tuple[Detail | None, list[Detail]]:
    bar = progress_bar(item.progress, ctx) if item.progress is not None and not done else None
    trace: list[Detail] = list(item.trace_lines(last=TRACE_LINES)) if not done else []
    return bar, trace


def _pages(start: int | None, end: int | None) -> str | None:
    if start is None:
        return None
    if end is None or end == start:
        return f"p. {start}"
    return f"pp. {start}-{end}"


def render_file_reader(item: FileReaderCall, key: str, ctx: RenderContext) -> list[RenderableType]:
    """``Read file · reading · q3-report.pdf · "revenue" · ████░░ 40%``."""
    bar, trace = _progress_and_trace(item, item.is_done, ctx)
    query = f'"{clip(item.query, 40, ctx.glyphs.ellipsis)}"' if item.query else None
    details = [_document(item.file_name, item.doc_ids, ctx), query, bar]
    head = tool_line(ctx, key, item.status, "Read file", details)
    return [head, *sub_lines(ctx, trace)]


def render_page_reader(item: PageReaderCall, key: str, ctx: RenderContext) -> list[RenderableType]:
    """``Read pages · completed · q3-report.pdf · pp. 2-3``."""
    bar, trace = _progress_and_trace(item, item.is_done, ctx)
    ids = [item.document_id] if item.document_id else []
    details = [_document(item.file_name, ids, ctx), _pages(item.start_page, item.end_page), bar]
    head = tool_line(ctx, key, item.status, "Read pages", details)
    return [head, *sub_lines(ctx, trace)]
