"""What follows the answer: the Sources list, status notes (interrupted, failed, incomplete),
the usage footer, and the blank-line layout shared by streaming and one-shot rendering."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from forge_cli.errors import ForgeError
from forge_cli.protocol.citations import Citation, source_label
from forge_cli.protocol.response import Response
from forge_cli.redact import redact
from forge_cli.render.glyphs import Glyphs
from forge_cli.render.timing import format_elapsed
from forge_cli.sanitize import sanitize_inline

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
    from rich.text import Text

    from forge_cli.render.items.registry import Kind

__all__ = [
    "FooterLine",
    "Layout",
    "Styled",
    "error_text",
    "footer_line",
    "footer_parts",
    "footer_text",
    "source_label",
    "sources_block",
    "status_note_parts",
    "status_notes",
]

Styled = tuple[str, str]
"""A line's plain text and the rich style it is drawn in: the rich view styles it, plain mode
writes the text alone (and imports no rich module for it)."""


class Layout:
    """Blank lines between prose units (message blocks, reasoning, sources) and around groups of
    status lines; none inside a group of tool lines."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: Kind | None = None

    def place(self, kind: Kind, renderables: Sequence[RenderableType]) -> list[RenderableType]:
        """``renderables`` with the blank lines they need before them."""
        from rich.text import Text

        out: list[RenderableType] = []
        if not renderables:
            return out
        if kind == "prose":
            for renderable in renderables:
                if self.last is not None:
                    out.append(Text(""))
                out.append(renderable)
                self.last = "prose"
            return out
        if self.last == "prose":
            out.append(Text(""))
        out.extend(renderables)
        self.last = "status"
        return out


def sources_block(citations: Sequence[Citation], glyphs: Glyphs) -> Text | None:
    """The numbered Sources list under an answer."""
    if not citations:
        return None
    from rich.text import Text

    text = Text("Sources", style="bold")
    for citation in citations:
        text.append("\n")
        text.append(f"[{citation.n}] ", style="cyan")
        text.append(source_label(citation, ascii_only=glyphs.ascii_only))
    return text


def error_text(error: BaseException | str | None) -> str | None:
    """One line for an error (our errors print their ``one_line()``)."""
    if error is None:
        return None
    if isinstance(error, ForgeError):
        return sanitize_inline(redact(error.one_line()))
    if isinstance(error, BaseException):
        return sanitize_inline(redact(str(error) or type(error).__name__))
    return sanitize_inline(redact(error))


def status_note_parts(
    response: Response | None,
    glyphs: Glyphs,
    *,
    interrupted: bool,
    error: BaseException | str | None,
    show_errors: bool = True,
) -> list[Styled]:
    """Lines saying the answer was interrupted, failed, or is incomplete, each with its style.

    ``show_errors=False`` leaves the failure out: the caller reports it itself (``forge ask``
    prints its one ``forge: error:`` line), so it is not said twice.
    """
    notes: list[Styled] = []
    if interrupted:
        notes.append((glyphs.interrupted, "yellow bold"))
    message = error_text(error)
    if message is None and response is not None and response.error is not None:
        message = sanitize_inline(redact(response.error.message or response.error.code or "failed"))
    if message is None and response is not None and response.status == "failed":
        message = "the response failed"
    if message is not None and show_errors:
        notes.append((f"{glyphs.failed} error: {message}", "red"))
    if response is not None and response.status == "incomplete":
        reason = (response.incomplete_details or {}).get("reason")
        detail = f": {sanitize_inline(str(reason))}" if reason else ""
        notes.append((f"{glyphs.incomplete} incomplete{detail}", "yellow"))
    return notes


def status_notes(
    response: Response | None,
    glyphs: Glyphs,
    *,
    interrupted: bool,
    error: BaseException | str | None,
    show_errors: bool = True,
) -> list[Text]:
    """:func:`status_note_parts` as rich Text lines."""
    parts = status_note_parts(
        response, glyphs, interrupted=interrupted, error=error, show_errors=show_errors
    )
    if not parts:
        return []
    from rich.text import Text

    return [Text(text, style=style) for text, style in parts]


def footer_parts(
    response: Response | None, total: float, glyphs: Glyphs, *, waited: float = 0.0
) -> list[str] | None:
    """The footer's parts (counts, time, the approval wait), see :func:`footer_text`."""
    if response is None:
        return None
    usage = response.usage
    if usage is None or (usage.input_tokens == 0 and usage.output_tokens == 0):
        return None
    if glyphs.ascii_only:
        counts = f"in {usage.input_tokens} / out {usage.output_tokens} tokens"
    else:
        counts = f"↑ {usage.input_tokens} ↓ {usage.output_tokens} tokens"
    parts = [counts, format_elapsed(total)]
    if waited >= 0.05:
        parts.append(f"waited {format_elapsed(waited)} for approval")
    return parts


def footer_text(
    response: Response | None, total: float, glyphs: Glyphs, *, waited: float = 0.0
) -> str | None:
    """``↑ 120 ↓ 45 tokens · 3.2s`` when the server reported usage (not when it reported none or
    nothing but zeros: ``↑ 0 ↓ 0`` would claim a count nobody made).

    ``total`` leaves out the time spent waiting for the user to approve a tool call; ``waited``
    (that time) is shown after it when it shows as at least 0.1 s: ``· waited 30.0s for
    approval``.
    """
    parts = footer_parts(response, total, glyphs, waited=waited)
    return None if parts is None else glyphs.sep.join(parts)


def footer_line(
    response: Response | None, total: float, glyphs: Glyphs, *, waited: float = 0.0
) -> FooterLine | None:
    """:func:`footer_text` as a dim rich line that, on a terminal too narrow for it, breaks
    between its parts (``waited 30.0s for approval`` stays in one piece)."""
    parts = footer_parts(response, total, glyphs, waited=waited)
    if parts is None:
        return None
    return FooterLine(parts, glyphs.sep)


class FooterLine:
    """The footer's parts joined by the separator, a line break replacing the separator where
    the next part would not fit (a part wider than the terminal is folded by rich as usual)."""

    __slots__ = ("parts", "sep")

    def __init__(self, parts: list[str], sep: str) -> None:
        self.parts = parts
        self.sep = sep

    @property
    def plain(self) -> str:
        """The footer on one line (:func:`footer_text`)."""
        return self.sep.join(self.parts)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.cells import cell_len
        from rich.text import Text

        width = options.max_width
        lines: list[str] = []
        for part in self.parts:
            joined = f"{lines[-1]}{self.sep}{part}" if lines else part
            if lines and cell_len(joined) <= width:
                lines[-1] = joined
            else:
                lines.append(part)
        yield Text("\n".join(lines), style="dim")
