"""The chat REPL: an injectable session, slash commands, completion and the prompt.

Importing this package does not import prompt-toolkit; :mod:`forge_cli.repl.prompt` does.
"""

from __future__ import annotations

from forge_cli.repl.commands import REGISTRY, Command, CommandRegistry, CommandResult, command
from forge_cli.repl.knowledge import (
    DocumentInfo,
    KnowledgePort,
    ProgressFn,
    ProgressLine,
    SearchHit,
    UploadResult,
    VectorStoreInfo,
    result_line,
)
from forge_cli.repl.session import IDLE_INTERRUPT_HINT, ChatSession, LineReader
from forge_cli.repl.turn import Responder, backend_responder
from forge_cli.repl.view import PlainTurnView, TurnView, ViewFactory

__all__ = [
    "IDLE_INTERRUPT_HINT",
    "REGISTRY",
    "ChatSession",
    "Command",
    "CommandRegistry",
    "CommandResult",
    "DocumentInfo",
    "KnowledgePort",
    "LineReader",
    "PlainTurnView",
    "ProgressFn",
    "ProgressLine",
    "Responder",
    "SearchHit",
    "TurnView",
    "UploadResult",
    "VectorStoreInfo",
    "ViewFactory",
    "backend_responder",
    "command",
    "result_line",
]
