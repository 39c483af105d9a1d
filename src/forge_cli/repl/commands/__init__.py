"""The slash commands of the chat REPL: a registry of small handlers that return values.

The ``*_cmds`` modules register the built-ins on import, in the order /help lists them. They see
the session through :class:`CommandSession` and never import :mod:`forge_cli.repl.session`; the
session imports this registry (no cycle: ``tests/test_import_cycles.py``).
"""

from __future__ import annotations

# isort: off
from forge_cli.repl.commands import session_cmds  # noqa: F401  (registers built-ins)
from forge_cli.repl.commands import settings_cmds  # noqa: F401
from forge_cli.repl.commands import store_cmds  # noqa: F401
from forge_cli.repl.commands import knowledge_cmds  # noqa: F401
from forge_cli.repl.commands import mcp_cmds  # noqa: F401

# isort: on
from forge_cli.repl.commands.context import CommandSession
from forge_cli.repl.commands.registry import (
    REGISTRY,
    Command,
    CommandRegistry,
    CommandResult,
    Handler,
    command,
)

__all__ = [
    "REGISTRY",
    "Command",
    "CommandRegistry",
    "CommandResult",
    "CommandSession",
    "Handler",
    "command",
]
