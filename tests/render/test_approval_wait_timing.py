"""The time a user takes to answer a tool approval question is not the answer's time.

A real agent loop (scripted model, real executor, the real ``TerminalApprover``) runs one
function call that needs approval; the user's answer arrives only after the test's clock moved
30 s (the approver's input advances it when it is read), and the tool itself advances it 0.5 s.
Every renderer follows the prompt: the call's elapsed time and the footer's total leave the wait
out, the footer says how long the wait was, and ``--json`` writes it as
``timings.approval_wait_s``. No sleeps: the clock only moves when the test moves it.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

from tests_render_helpers import Screen  # type: ignore[import-not-found]

from forge_cli.agent.loop import AgentLoop
from forge_cli.protocol.response import Response
from forge_cli.render.json_renderer import JsonRenderer
from forge_cli.render.plain import PlainRenderer
from forge_cli.render.rich_renderer import RichRenderer
from forge_cli.testing.scripted import ScriptedBackend
from forge_cli.tools import ApprovalHook, ApprovalPolicy, TerminalApprover, ToolExecutor, ToolSet
from forge_cli.tools.decorator import tool

WAIT = 30.0
RUN = 0.5


class StepClock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class SlowUser(io.StringIO):
    """Approval input whose answer is read ``WAIT`` seconds (of ``clock``) after the question."""

    def __init__(self, clock: StepClock) -> None:
        super().__init__()
        self.clock = clock

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        self.clock.now += WAIT
        return "y\n"


def _head(status: str, output: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "model": "m", "status": status,
            "output": output, **extra}  # fmt: skip


def _usage() -> dict[str, int]:
    return {"input_tokens": 12, "output_tokens": 5, "total_tokens": 17}


def _call_reply() -> list[dict[str, Any]]:
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "now",
            "arguments": "{}", "status": "completed"}  # fmt: skip
    return [
        {"type": "response.created", "response": _head("in_progress", [])},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**call, "status": "in_progress", "arguments": ""},
        },
        {"type": "response.output_item.done", "output_index": 0, "item": call},
        {"type": "response.completed", "response": _head("completed", [call], usage=_usage())},
    ]


def _answer_reply() -> list[dict[str, Any]]:
    text = {"type": "output_text", "text": "It is noon.", "annotations": []}
    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
               "content": [text]}  # fmt: skip
    return [
        {"type": "response.created", "response": _head("in_progress", [])},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**message, "status": "in_progress", "content": []},
        },
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {"type": "response.completed", "response": _head("completed", [message], usage=_usage())},
    ]


def _run(renderers: list[Any], clock: StepClock) -> None:
    @tool
    def now() -> str:
        """The time."""
        clock.now += RUN
        return "noon"

    tools = ToolSet([now])
    approver = TerminalApprover(SlowUser(clock), io.StringIO())
    executor = ToolExecutor(tools, before_hooks=[ApprovalHook(ApprovalPolicy(), tools, approver)])
    backend = ScriptedBackend([_call_reply(), _answer_reply()])
    loop = AgentLoop(backend, executor=executor)

    async def main() -> Response:
        from forge_cli.agent.events import LoopFinished
        from forge_cli.protocol.request import Request

        async for update in loop.run(Request(model="m", input="what time is it?")):
            if isinstance(update, LoopFinished):
                return update.result.response
            for renderer in renderers:
                if isinstance(update, Response):
                    renderer.on_snapshot(update)
                else:
                    renderer.on_event(update)
        raise AssertionError("no LoopFinished")

    final = asyncio.run(main())
    backend.assert_consumed()
    for renderer in renderers:
        renderer.finish(final)


def test_json_times_leave_the_approval_wait_out() -> None:
    clock = StepClock()
    out = io.StringIO()
    _run([JsonRenderer(out, clock=clock)], clock)
    document = json.loads(out.getvalue())
    call = next(item for item in document["items"] if item["type"] == "function_call")
    assert call["status"] == "completed"
    assert call["elapsed_s"] == RUN
    assert document["timings"]["total_s"] == RUN
    assert document["timings"]["approval_wait_s"] == WAIT


def test_plain_footer_shows_the_wait_apart_from_the_answer_time() -> None:
    clock = StepClock()
    out, err = io.StringIO(), io.StringIO()
    _run([PlainRenderer(out, err, clock=clock)], clock)
    assert "↑ 24 ↓ 10 tokens · 0.5s · waited 30.0s for approval" in err.getvalue().splitlines()
    assert "30.5s" not in err.getvalue()


def test_rich_view_shows_the_tool_run_time_and_the_wait_on_screen() -> None:
    clock = StepClock()
    screen = Screen()
    _run([RichRenderer(screen.console(), clock=clock)], clock)
    text = screen.text()
    call_line = next(line for line in text.splitlines() if "now" in line and "s" in line)
    assert call_line.rstrip().endswith("0.5s"), text
    assert "30.5s" not in text
    assert "↑ 24 ↓ 10 tokens · 0.5s · waited 30.0s for approval" in text


def test_rich_footer_at_40_columns_keeps_the_wait_in_one_piece() -> None:
    """On a narrow terminal the footer breaks between its parts, never inside one: the wait
    reads ``waited 30.0s for approval`` on its own line, not ``waited 30.0s`` / ``for approval``."""
    clock = StepClock()
    screen = Screen(width=40)
    _run([RichRenderer(screen.console(), clock=clock)], clock)
    lines = screen.text().splitlines()
    assert "↑ 24 ↓ 10 tokens · 0.5s" in lines, lines
    assert "waited 30.0s for approval" in lines, lines
