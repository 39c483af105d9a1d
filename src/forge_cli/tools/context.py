"""The tool call being run, for tools that need to know it (to report progress against it).

The executor sets it around each call; the call's task copies the context, so a tool reads it
with :func:`current_tool_call` without any change to the ``run(args)`` signature.
"""

from __future__ import annotations

from contextvars import ContextVar

from forge_cli.tools.hooks import ToolCall

__all__ = ["current_tool_call"]

_CURRENT: ContextVar[ToolCall | None] = ContextVar("forge_tool_call", default=None)


def current_tool_call() -> ToolCall | None:
    """The call the running tool serves (``None`` outside the executor)."""
    return _CURRENT.get()
