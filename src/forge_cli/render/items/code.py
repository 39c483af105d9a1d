"""Renderer for code interpreter calls: the first lines of the code, a logs excerpt, status."""

from __future__ import annotations

from rich.console import RenderableType

from forge_cli.protocol.items import CodeInterpreterCall
from forge_cli.render.context import RenderContext
from forge_cli.render.items.common import Detail, clip, plural, progress_bar, sub_lines, tool_line

__all__ = ["render_code_interpreter"]

CODE_LINES = 3
LOG_LINES = 3


def render_code_interpreter(
    item: CodeInterpreterCall, key: str, ctx: RenderContext
) -> list[RenderableType]:
    """``Code · interpreting · 4 lines`` plus code and log excerpts."""
    code_lines = [line for line in (item.code or "").splitlines() if line.strip()]
    details: list[Detail | None] = [plural(len(code_lines), "line") if code_lines else None]
    if item.progress is not None and not item.is_done:
        details.append(progress_bar(item.progress, ctx, width=10))
    failed = item.status == "failed"
    head = tool_line(ctx, key, item.status, "Code", details, failed=failed)
    lines: list[Detail] = [clip(line, 80, ctx.glyphs.ellipsis) for line in code_lines[:CODE_LINES]]
    if len(code_lines) > CODE_LINES:
        lines.append(f"{ctx.glyphs.ellipsis} {plural(len(code_lines) - CODE_LINES, 'more line')}")
    logs = [line for line in item.logs().splitlines() if line.strip()]
    for line in logs[-LOG_LINES:]:
        lines.append(f"{ctx.glyphs.arrow} {clip(line, 80, ctx.glyphs.ellipsis)}")
    files = item.files()
    if files:
        shown = ", ".join(clip(name, 40, ctx.glyphs.ellipsis) for name in files[:LOG_LINES])
        more = f" +{len(files) - LOG_LINES} more" if len(files) > LOG_LINES else ""
        word = "file" if len(files) == 1 else "files"
        lines.append(f"{ctx.glyphs.arrow} {len(files)} {word}: {shown}{more}")
    return [head, *sub_lines(ctx, lines)]
