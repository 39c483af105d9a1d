"""The code theme colours every token as rich's ``Syntax`` does, without importing rich.syntax.

``CodeTheme`` reads the pygments style the way rich's ``PygmentsSyntaxTheme`` does; importing
``rich.syntax`` for it cost ~7.5 ms on the first code block of every answer.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token
from rich.syntax import Syntax

from forge_cli.render.markdown.code import CODE_THEME, CodeTheme


def _token_types() -> list[object]:
    types = set(STANDARD_TYPES)
    style = get_style_by_name(CODE_THEME)
    types.update(style.styles)
    types.add(Token.Not.A.Real.Type)  # not in the style: inherits from Token
    return sorted(types, key=str)


def test_every_token_gets_rich_s_style() -> None:
    ours = CodeTheme(get_style_by_name(CODE_THEME))
    rich_theme = Syntax.get_theme(CODE_THEME)
    assert ours.get_background_style() == rich_theme.get_background_style()
    for token_type in _token_types():
        assert ours.get_style_for_token(token_type) == rich_theme.get_style_for_token(token_type), (
            token_type
        )


def test_a_code_block_does_not_import_rich_syntax() -> None:
    script = textwrap.dedent(
        """
        import io, sys
        from rich.console import Console
        from forge_cli.render.markdown.code import CodeBlock
        console = Console(file=io.StringIO(), width=60, force_terminal=True)
        lines = CodeBlock("def f(x):\\n    return x * 2\\n", "python").lines(
            console, 60, console.options
        )
        assert any(segment.text == "return" for line in lines for segment in line)
        print("rich.syntax" in sys.modules)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
