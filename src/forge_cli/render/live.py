"""The live region's renderable: what is still changing, cropped to the terminal height.

Only the unfinished Markdown block and the active tool-call lines live here; everything finished
has already been printed to the scrollback. The region keeps its *last* lines when it is taller
than the terminal (the newest text is at the bottom), so it never scrolls the screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment

__all__ = ["LiveView", "tail_lines"]


class LiveView:
    """Renderables drawn as one group, cropped to ``options.height`` (or the console height)."""

    def __init__(self, renderables: Sequence[RenderableType], reserve: int = 1) -> None:
        self.renderables = list(renderables)
        self.reserve = reserve

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.renderables:
            return
        height = max(1, (options.height or console.height) - self.reserve)
        lines = console.render_lines(Group(*self.renderables), options.update(height=None),
                                     pad=False)  # fmt: skip
        if len(lines) > height:
            lines = lines[-height:]
        lines[-1] = _without_trailing_blanks(lines[-1])
        if Segment.get_line_length(lines[-1]) > options.max_width - len("^C"):
            # The cursor would rest at the right edge, where an echoed ``^C`` (Ctrl+C while
            # streaming) wraps onto a new line: the region would lose track of its position and
            # leave a stale copy of itself when cleared. End on a blank line instead (one space:
            # rich drops an empty last line).
            lines = [*(lines[1:] if len(lines) >= height else lines), [Segment(" ")]]
        new_line = Segment.line()
        for i, line in enumerate(lines):
            yield from line
            if i < len(lines) - 1:
                yield new_line


def _without_trailing_blanks(line: list[Segment]) -> list[Segment]:
    """``line`` without the padding spaces at its end (the cursor stops after the text)."""
    while line and not line[-1].control and line[-1].text.endswith(" "):
        last = line.pop()
        text = last.text.rstrip(" ")
        if text:
            line.append(Segment(text, last.style))
            break
    return line


def tail_lines(text: str, start: int, keep: int) -> int:
    """Where the last ``keep`` lines of ``text[start:]`` begin (O(keep), not O(text))."""
    pos = len(text)
    for _ in range(keep):
        found = text.rfind("\n", start, pos)
        if found < 0:
            return start
        pos = found
    return pos + 1
