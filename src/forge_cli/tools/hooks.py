"""Before/after tool hooks: they may rewrite or block a call, and rewrite a result.

A before-hook gets the :class:`ToolCall` and returns ``None`` (go on unchanged), a new
``ToolCall`` (run that instead) or :class:`Block` (do not run; the reason goes to the model as
the call's result). An after-hook gets the call and its :class:`ToolResult` and returns ``None``
or a replacement result. Hooks may be plain or async functions.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from forge_cli import jsonsafe
from forge_cli.protocol.citing import Passage

__all__ = ["AfterHook", "BeforeHook", "Block", "ToolCall", "ToolResult", "call_hook"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the model asked for: ``arguments`` is the raw JSON text it wrote."""

    call_id: str
    name: str
    arguments: str = "{}"

    def parsed(self) -> dict[str, Any] | None:
        """The arguments as a dict, or ``None`` when they are not a JSON object."""
        try:
            value = jsonsafe.loads(self.arguments or "{}")
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def with_arguments(self, arguments: dict[str, Any]) -> ToolCall:
        """A copy with new arguments (for hooks that rewrite)."""
        return replace(self, arguments=json.dumps(arguments, ensure_ascii=False))


ResultStatus = Literal["completed", "failed", "blocked"]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call, as the model will read it."""

    call_id: str
    name: str
    output: str
    status: ResultStatus = "completed"
    citations: tuple[Passage, ...] = field(default=())
    error_kind: str | None = None
    """For failed calls: unknown_tool, invalid_arguments, exception or timeout."""
    printed: str = ""
    """What the tool wrote to stdout/stderr while it ran (captured, never sent to the model)."""

    @property
    def is_error(self) -> bool:
        """Whether the call failed or was blocked."""
        return self.status != "completed"


@dataclass(frozen=True, slots=True)
class Block:
    """Returned by a before-hook to stop a call; ``reason`` is sent to the model."""

    reason: str
    by: Literal["hook", "approval"] = "hook"


BeforeHook = Callable[[ToolCall], ToolCall | Block | Awaitable[ToolCall | Block | None] | None]
AfterHook = Callable[[ToolCall, ToolResult], ToolResult | Awaitable[ToolResult | None] | None]


async def call_hook(hook: Callable[..., Any], *args: Any) -> Any:
    """Call a hook that may be sync or async."""
    value = hook(*args)
    if inspect.isawaitable(value):
        value = await value
    return value
