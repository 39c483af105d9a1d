"""The chat REPL: an injectable session, slash commands, completion and the prompt.

Exports are resolved lazily (module ``__getattr__``): ``forge ask`` imports
:mod:`forge_cli.repl.turn` and :mod:`forge_cli.repl.view` on its way to the first request, and must
not pay for the session, the slash-command registry or prompt-toolkit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports

if TYPE_CHECKING:
    from forge_cli.repl.commands import (
        REGISTRY,
        Command,
        CommandRegistry,
        CommandResult,
        command,
    )
    from forge_cli.repl.knowledge import ProgressLine, result_line
    from forge_cli.repl.session import IDLE_INTERRUPT_HINT, ChatSession, LineReader
    from forge_cli.repl.turn import Responder, backend_responder
    from forge_cli.repl.view import TurnView, ViewFactory

_WHERE = {
    "IDLE_INTERRUPT_HINT": "session",
    "REGISTRY": "commands",
    "ChatSession": "session",
    "Command": "commands",
    "CommandRegistry": "commands",
    "CommandResult": "commands",
    "LineReader": "session",
    "ProgressLine": "knowledge",
    "Responder": "turn",
    "TurnView": "view",
    "ViewFactory": "view",
    "backend_responder": "turn",
    "command": "commands",
    "result_line": "knowledge",
}

__all__ = [
    "IDLE_INTERRUPT_HINT",
    "REGISTRY",
    "ChatSession",
    "Command",
    "CommandRegistry",
    "CommandResult",
    "LineReader",
    "ProgressLine",
    "Responder",
    "TurnView",
    "ViewFactory",
    "backend_responder",
    "command",
    "result_line",
]

__getattr__ = lazy_exports(__name__, _WHERE)
