"""A real agent-loop run whose events cover every notice: for renderer and JSONL tests.

:func:`newsworthy_run` drives the real :class:`~forge_cli.agent.AgentLoop` with the ReAct
driver over a :class:`~forge_cli.testing.ScriptedBackend` and a real tool executor:

1. the model's first reply is not JSON → ``driver.retry``; it then calls ``broken``, which
   raises → ``tool_call.started`` + ``tool_call.failed``;
2. it calls ``rm``, which a before-hook blocks → ``tool_call.blocked``;
3. it calls ``lookup`` once more at the iteration limit → ``iteration.limit_reached``.

Tests feed the updates it returns into each renderer, so what they check is what the loop
really emits. ``payload`` puts hostile text where the model and tools control it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from forge_cli.agent.drivers.react import ReActDriver
from forge_cli.agent.events import LoopFinished, RunResult
from forge_cli.agent.loop import AgentLoop
from forge_cli.protocol.loop_events import AnswerUpdate
from forge_cli.protocol.request import Request
from forge_cli.protocol.response import Response
from forge_cli.testing.scripted import ScriptedBackend
from forge_cli.tools.decorator import tool
from forge_cli.tools.executor import ToolExecutor
from forge_cli.tools.hooks import Block, ToolCall

__all__ = ["LoopRun", "newsworthy_run", "reply_script"]


@dataclass(frozen=True)
class LoopRun:
    """What the loop yielded (without the final :class:`LoopFinished`) and its result."""

    updates: tuple[AnswerUpdate, ...]
    result: RunResult

    @property
    def final(self) -> Response:
        """The final snapshot."""
        return self.result.response


def reply_script(text: str, *, response_id: str = "resp_scripted") -> list[dict[str, Any]]:
    """The events of one model reply whose whole text is ``text`` (for a ScriptedBackend)."""
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress",
            "content": []}  # fmt: skip
    done = {**item, "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip
    head = {"id": response_id, "object": "response", "model": "scripted"}
    return [
        {"type": "response.created", "response": {**head, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {
            "type": "response.completed",
            "response": {**head, "status": "completed", "output": [done]},
        },
    ]


def _decision(name: str, **args: Any) -> str:
    return json.dumps({"type": "call_tool", "tool": name, "args": args, "thought": "try it"})


async def newsworthy_run(payload: str = "") -> LoopRun:
    """Run the loop described in the module docstring and collect its updates."""

    @tool
    def broken(topic: str = "") -> str:
        """Always fails.

        Args:
            topic: Ignored.
        """
        raise RuntimeError(f"the disk is on fire{payload}")

    @tool
    def rm(path: str = "") -> str:
        """Deletes a file (blocked by the hook).

        Args:
            path: The file.
        """
        raise AssertionError("a blocked tool must not run")  # pragma: no cover

    @tool
    def lookup(topic: str = "") -> str:
        """Looks something up.

        Args:
            topic: What to look up.
        """
        return f"found {topic}"

    def refuse_rm(call: ToolCall) -> Block | None:
        return Block(f"deleting files is not allowed{payload}") if call.name == "rm" else None

    backend = ScriptedBackend(
        [
            reply_script(f"not json at all{payload}"),
            reply_script(_decision("broken", topic="x")),
            reply_script(_decision("rm", path=f"/etc{payload}")),
            reply_script(_decision("lookup", topic="weather")),
        ]
    )
    executor = ToolExecutor([broken, rm, lookup], before_hooks=[refuse_rm])
    loop = AgentLoop(backend, ReActDriver(), executor, max_iterations=3)
    updates: list[AnswerUpdate] = []
    result: RunResult | None = None
    async for update in loop.run(Request(model="scripted", input="Do the thing")):
        if isinstance(update, LoopFinished):
            result = update.result
        else:
            updates.append(update)
    backend.assert_consumed()
    if result is None:  # pragma: no cover - run() always ends with LoopFinished
        raise AssertionError("the loop ended without a result")
    return LoopRun(tuple(updates), result)
