"""Building blocks shared by the tool-call renderers: the status line, sub-lines, a progress bar.

Every string from the server goes through :func:`~forge_cli.sanitize.sanitize_inline`
here and becomes a :class:`rich.text.Text` (never a markup string), so neither escape sequences
nor rich markup in file names, queries or results can act on the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.text import Text

from forge_cli.redact import redact
from forge_cli.render.context import RenderContext
from forge_cli.render.glyphs import status_look
from forge_cli.render.timing import format_elapsed
from forge_cli.sanitize import sanitize_inline
from forge_cli.wording import shorten

__all__ = [
    "Detail",
    "ToolLine",
    "clip",
    "plural",
    "progress_bar",
    "queries_detail",
    "safe",
    "sub_lines",
    "tool_block",
    "tool_line",
]


def plural(count: int, word: str) -> str:
    """``1 line`` / ``2 lines``: a count and its noun, singular for exactly one."""
    return f"{count} {word}{'' if count == 1 else 's'}"


Detail = str | Text


def safe(value: object) -> str:
    """Untrusted value → one safe line of text."""
    return sanitize_inline(redact("" if value is None else str(value)))


def clip(value: object, limit: int, ellipsis: str = "…") -> str:
    """A safe one-line string of at most ``limit`` characters."""
    return shorten(safe(value), limit, ellipsis)


def queries_detail(queries: Sequence[str], ctx: RenderContext, limit: int = 3) -> Detail | None:
    """``"q1", "q2" +3 more`` (each query cut to 40 characters)."""
    if not queries:
        return None
    shown = ", ".join(f'"{clip(q, 40, ctx.glyphs.ellipsis)}"' for q in queries[:limit])
    extra = len(queries) - limit
    return shown + (f" +{extra} more" if extra > 0 else "")


class ToolLine:
    """A status line that never wraps: the body is cut with an ellipsis so the tail (the
    elapsed time) always stays visible."""

    __slots__ = ("body", "tail")

    def __init__(self, body: Text, tail: Text) -> None:
        self.body = body
        self.tail = tail

    @property
    def plain(self) -> str:
        """The line as plain text (uncut)."""
        return self.body.plain + self.tail.plain

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = max(1, options.max_width - self.tail.cell_len)
        body = self.body.copy()
        if body.cell_len > room:
            body.truncate(room, overflow="ellipsis")
        line = Text.assemble(body, self.tail, no_wrap=True, overflow="crop")
        yield line


def tool_line(
    ctx: RenderContext,
    key: str,
    status: str | None,
    label: str,
    details: Iterable[Detail | None] = (),
    *,
    failed: bool = False,
) -> ToolLine:
    """``✓ File search · completed · "query" · 5 results · 1.2s`` as one unwrapped line."""
    look = status_look("failed" if failed else status, ctx.glyphs)
    sep = ctx.glyphs.sep
    line = Text()
    line.append(look.icon, style=look.style)
    line.append(" ")
    line.append(label, style="bold")
    line.append(sep, style="dim")
    line.append(safe(look.word), style=look.style)
    for detail in details:
        if detail is None or detail == "":
            continue
        line.append(sep, style="dim")
        line.append(detail if isinstance(detail, Text) else Text(safe(detail)))
    tail = Text(sep, style="dim")
    tail.append(format_elapsed(ctx.clock.elapsed(key)), style="dim")
    return ToolLine(line, tail)


def sub_lines(ctx: RenderContext, lines: Sequence[Detail], style: str = "dim") -> list[ToolLine]:
    """Lines under a tool line, drawn as a small tree (cut, never wrapped)."""
    out: list[ToolLine] = []
    for i, value in enumerate(lines):
        branch = ctx.glyphs.last_branch if i == len(lines) - 1 else ctx.glyphs.branch
        text = Text("  " + branch, style="dim")
        text.append(value if isinstance(value, Text) else Text(safe(value), style=style))
        out.append(ToolLine(text, Text("")))
    return out


def progress_bar(progress: float, ctx: RenderContext, width: int = 20) -> Text:
    """``██████░░░░ 60%``: readable without colour too."""
    value = min(1.0, max(0.0, progress))
    full = round(value * width)
    bar = Text(no_wrap=True)
    bar.append(ctx.glyphs.bar_full * full, style="cyan")
    bar.append(ctx.glyphs.bar_empty * (width - full), style="dim")
    bar.append(f" {round(value * 100):3d}%")
    return bar


def tool_block(head: RenderableType, subs: Sequence[ToolLine] = ()) -> list[RenderableType]:
    """A tool line and its sub-lines as renderables."""
    return [head, *subs]
