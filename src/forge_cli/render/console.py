"""Choosing the output mode and building the rich Console.

Plain text (no ANSI) when stdout is not a terminal, with ``--plain`` or when ``TERM=dumb``; rich
otherwise, without colour when ``NO_COLOR`` is set (to any non-empty value, per no-color.org:
colour goes, Markdown layout stays). ``--json`` and
``--jsonl`` win over everything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, TextIO

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["Mode", "choose_mode", "make_console", "wants_plain"]

Mode = Literal["rich", "plain", "json", "jsonl"]


def _isatty(stream: TextIO | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def wants_plain(
    stream: TextIO | None, *, plain: bool = False, env: Mapping[str, str] | None = None
) -> bool:
    """Whether output to ``stream`` must be plain text."""
    env = os.environ if env is None else env
    # NO_COLOR asks for no colour, not for less formatting (no-color.org): it keeps the rich
    # view, drawn without colour by make_console.
    return plain or env.get("TERM", "").lower() == "dumb" or not _isatty(stream)


def choose_mode(
    stream: TextIO | None,
    *,
    json: bool = False,
    jsonl: bool = False,
    plain: bool = False,
    env: Mapping[str, str] | None = None,
) -> Mode:
    """The output mode for the CLI flags and the environment."""
    if jsonl:
        return "jsonl"
    if json:
        return "json"
    return "plain" if wants_plain(stream, plain=plain, env=env) else "rich"


def make_console(
    file: TextIO,
    *,
    color: bool | None = None,
    width: int | None = None,
    height: int | None = None,
    force_terminal: bool | None = None,
    env: Mapping[str, str] | None = None,
) -> Console:
    """A Console for ``file``: no markup, emoji codes or highlighting of our own strings (all
    untrusted text arrives as Text objects anyway); colour off when ``color`` is False or
    ``NO_COLOR`` is set."""
    env = os.environ if env is None else env
    no_color = color is False or bool(env.get("NO_COLOR"))
    from rich.console import Console  # here, not at import: choose_mode stays light

    return Console(
        file=file,
        width=width,
        height=height,
        force_terminal=force_terminal,
        color_system=None if no_color else "auto",
        no_color=no_color,
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
    )
