"""The ``forge`` command: thin click commands that parse, build objects and call the library.

Sub-command modules are imported lazily by :class:`forge_cli.cli.main.LazyGroup`; this package
imports nothing itself, so ``forge --version`` (:mod:`forge_cli.cli.entry`) does not load click.
"""

from __future__ import annotations

from forge_cli._lazy import lazy_exports

TYPE_CHECKING = False  # not imported from typing: ``forge --version`` does not load it
if TYPE_CHECKING:
    from forge_cli.cli.main import LazyGroup, cli, main

__all__ = ["LazyGroup", "cli", "main"]

__getattr__ = lazy_exports(__name__, {"LazyGroup": "main", "cli": "main", "main": "main"})
