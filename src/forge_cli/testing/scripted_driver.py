"""A scripted driver: each turn replays a queued list of output items, without any backend.

Function calls in a turn's items are what the loop runs, so a test can drive the AgentLoop, the
executor and the renderer with exact items. Like ScriptedBackend it fails loudly: a turn with no
script left raises, and :meth:`ScriptedDriver.assert_consumed` raises when turns were left.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, Iterable, Sequence
from typing import Any

from forge_cli.agent.drivers.base import TurnResult, TurnUpdate
from forge_cli.agent.state import AgentState
from forge_cli.backends.base import Backend
from forge_cli.protocol.content import OutputText
from forge_cli.protocol.items import FunctionCall, Message, OutputItem
from forge_cli.protocol.response import Response
from forge_cli.testing.scripted import ScriptExhaustedError

__all__ = ["ScriptedDriver", "call", "say"]


def call(
    name: str, arguments: dict[str, Any] | str | None = None, call_id: str | None = None
) -> FunctionCall:
    """A completed function-call item (for scripts)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return FunctionCall(
        id=f"fc_{uuid.uuid4().hex[:12]}",
        call_id=call_id or f"call_{uuid.uuid4().hex[:12]}",
        name=name,
        arguments=text,
        status="completed",
    )


def say(text: str) -> Message:
    """A completed assistant message (for scripts)."""
    return Message(
        id=f"msg_{uuid.uuid4().hex[:12]}", status="completed", content=[OutputText(text=text)]
    )


class ScriptedDriver:
    """Replays one list of items per turn; records the state each turn saw."""

    def __init__(self, turns: Iterable[Sequence[OutputItem]]) -> None:
        self._turns = [list(turn) for turn in turns]
        self.seen: list[list[OutputItem]] = []

    async def turn(self, backend: Backend, state: AgentState) -> AsyncGenerator[TurnUpdate, None]:
        """Yield the next scripted turn as a snapshot and a result."""
        self.seen.append(list(state.items))
        if not self._turns:
            raise ScriptExhaustedError(
                f"ScriptedDriver has no turn left for turn {state.iteration}"
            )
        items = self._turns.pop(0)
        yield Response(status="in_progress", output=items)
        calls = tuple(item for item in items if isinstance(item, FunctionCall))
        yield TurnResult(tuple(items), calls)

    def assert_consumed(self) -> None:
        """Raise when turns were left unused."""
        if self._turns:
            raise AssertionError(f"ScriptedDriver has {len(self._turns)} unused turn(s)")
