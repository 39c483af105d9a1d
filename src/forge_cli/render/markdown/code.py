"""Code blocks for the direct Markdown renderer: what rich's ``Syntax`` draws, cell for cell.

rich's Markdown draws fenced and indented code with ``Syntax(code, lexer, theme="monokai",
word_wrap=True, padding=1)``. This draws the same cells with one lexer per language and one
theme object for all blocks (rich looks the lexer up and builds the theme for every block): the
stock pygments lexer, as ``Syntax`` uses it. pygments is imported with the first code block, not
before the first token is painted.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from rich.console import Console, ConsoleOptions
from rich.control import strip_control_codes
from rich.segment import Segment
from rich.style import Style

from forge_cli.render.markdown.text import MIN_WIDTH, Block, Line, Span, Unsupported, wrap_text

__all__ = ["CODE_THEME", "CodeBlock"]

CODE_THEME = "monokai"
_MAX_LEXER_NAME = 64


class CodeBlock(Block):
    """Fenced or indented code as rich's ``Syntax(code, lexer, theme=monokai, word_wrap=True,
    padding=1)`` draws it: highlighted lines wrapped at the width less the padding, on the
    theme's background, with a blank background line above and below."""

    __slots__ = ("code", "lexer")

    def __init__(self, code: str, lexer: str) -> None:
        self.code = code
        self.lexer = lexer

    def lines(self, console: Console, width: int, options: ConsoleOptions) -> list[Line]:
        theme = _theme()
        base = theme.get_background_style() + Style()  # Syntax._get_base_style()
        if base.transparent_background or width < MIN_WIDTH:
            raise Unsupported("code")
        code = (self.code + "\n").expandtabs(4)
        plain: list[str] = []
        spans: list[Span] = []
        pos = 0
        combined: dict[Style, Style] = {}
        # No lexer has a name this long: such a name (untrusted) is not kept in the cache.
        name = self.lexer if len(self.lexer) <= _MAX_LEXER_NAME else "text"
        lexer = _lexer(name)
        for token_type, content in lexer.get_tokens(code):
            content = strip_control_codes(content)
            token_style = theme.get_style_for_token(token_type)
            if token_style and content:
                style = combined.get(token_style)
                if style is None:
                    style = combined[token_style] = base + token_style
                spans.append((pos, pos + len(content), style))
            plain.append(content)
            pos += len(content)
        text = "".join(plain)
        if text.endswith("\n"):
            text = text[:-1]
        inner = width - 2
        edge = Segment(" ", base)
        out: list[Line] = [[Segment(" " * width, base)]]
        # Syntax's render_lines, then Padding's, each put the base style under every cell.
        final: dict[Style | None, Style] = {}
        for line in wrap_text(text, spans, inner, center=False, gap=base):
            styled = [edge]
            for segment_text, style, _ in line:
                cell_style = final.get(style)
                if cell_style is None:
                    cell_style = final[style] = base + (base + style)
                styled.append(Segment(segment_text, cell_style))
            styled.append(edge)  # lines are padded to ``inner`` already
            out.append(styled)
        out.append([Segment(" " * width, base)])
        return out


@lru_cache(maxsize=64)
def _lexer(name: str) -> Any:  # a pygments Lexer (no type information)
    """The lexer ``Syntax`` looks up by ``name`` (the plain-text one when unknown), built once:
    building a lexer costs more than highlighting a short block."""
    from pygments.lexers import find_lexer_class_by_name
    from pygments.util import ClassNotFound

    try:
        lexer_class = find_lexer_class_by_name(name)
    except ClassNotFound:
        lexer_class = find_lexer_class_by_name("text")
    return lexer_class(stripnl=False, ensurenl=True, tabsize=4)  # as Syntax sets them


@cache
def _theme() -> CodeTheme:
    """One theme object, so its per-token style cache lives across blocks."""
    from pygments.styles import get_style_by_name

    return CodeTheme(get_style_by_name(CODE_THEME))


class CodeTheme:
    """A pygments style as rich's ``Syntax`` colours tokens with it: for each token, the
    style's colour (black when it has none), its background (the style's background when it
    has none), bold, italic and underline; the style's background under every cell.

    ``rich.syntax`` builds the same from its ``PygmentsSyntaxTheme``; importing that module
    costs ~7.5 ms (it builds its ANSI themes), on the first code block of every answer.
    ``tests/render/test_code_theme.py`` checks every token type against rich's own theme, and
    the direct renderer's cells are compared with rich's ``Markdown`` (which uses ``Syntax``).
    """

    __slots__ = ("_background", "_background_style", "_cache", "_style")

    def __init__(self, style: Any) -> None:  # a pygments Style class
        self._style = style
        self._background: str = style.background_color
        self._background_style = Style(bgcolor=self._background)
        self._cache: dict[Any, Style] = {}

    def get_background_style(self) -> Style:
        """The style under every cell of a block."""
        return self._background_style

    def get_style_for_token(self, token_type: Any) -> Style:
        """The style of one pygments token type."""
        style = self._cache.get(token_type)
        if style is None:
            try:
                found = self._style.style_for_token(token_type)
            except KeyError:
                style = Style.null()
            else:
                color, bgcolor = found["color"], found["bgcolor"]
                style = Style(
                    color=f"#{color}" if color else "#000000",
                    bgcolor=f"#{bgcolor}" if bgcolor else self._background,
                    bold=found["bold"],
                    italic=found["italic"],
                    underline=found["underline"],
                )
            self._cache[token_type] = style
        return style
