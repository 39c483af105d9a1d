"""The ``forge`` command: thin click commands that parse, build objects and call the library.

Sub-command modules are imported lazily by :class:`forge_cli.cli.main.LazyGroup`.
"""

from __future__ import annotations

from forge_cli.cli.main import LazyGroup, cli, main

__all__ = ["LazyGroup", "cli", "main"]
