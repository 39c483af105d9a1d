"""Issue 15 item 6: a tool asks for the run's context by declaring a typed parameter; the
parameter is not in the schema the model sees, and the real loop fills it in."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from forge_cli.agent import AgentLoop, LoopFinished, ToolCallingDriver
from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.protocol import Request
from forge_cli.protocol.request import InputMessage
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks
from forge_cli.tools import (
    ApprovalHook,
    ApprovalPolicy,
    BaseTool,
    RunContext,
    ToolCall,
    ToolExecutor,
    ToolSet,
    tool,
)

pytestmark = pytest.mark.anyio

SEEN: list[RunContext] = []


@tool
def remember(note: str, ctx: RunContext) -> str:
    """Remember a note.

    Args:
        note: What to remember.
    """
    SEEN.append(ctx)
    return f"noted {note!r} at iteration {ctx.iteration}"


@tool(read_only=True)
def plain(note: str) -> str:
    """A tool without context."""
    return note


@pytest.fixture(autouse=True)
def _reset() -> None:
    SEEN.clear()


def test_the_context_parameter_is_not_in_the_schema() -> None:
    parameters = remember.definition().parameters
    assert parameters is not None
    assert list(parameters["properties"]) == ["note"]
    assert parameters["required"] == ["note"]


async def test_the_loop_gives_the_tool_history_iteration_and_policies(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    server.add(tool_call_chunks([("remember", {"note": "milk"})]))
    server.add(text_chunks("Noted."))
    tools = ToolSet([remember, plain])
    policy = ApprovalPolicy(per_tool={"remember": "auto"}, assume_yes=False)
    executor = ToolExecutor(tools, before_hooks=[ApprovalHook(policy, tools)])
    loop = AgentLoop(backend, ToolCallingDriver(), executor)
    updates = [u async for u in loop.run(Request(model="m", input="Remember milk, please."))]
    assert isinstance(updates[-1], LoopFinished)
    [ctx] = SEEN
    assert ctx.iteration == 1
    assert ctx.question == "Remember milk, please."
    assert ctx.tool_name == "remember"
    assert ctx.call_id
    assert ctx.policies == {"remember": "auto", "plain": "auto"}
    assert ctx.assume_yes is False
    # The model was not asked for the context argument, and its result came back.
    sent = server.requests[0]["tools"]
    remember_schema = next(t for t in sent if t["function"]["name"] == "remember")
    assert "ctx" not in remember_schema["function"]["parameters"]["properties"]
    tool_message = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][-1]
    assert "noted 'milk' at iteration 1" in tool_message["content"]


class AuditArgs(BaseModel):
    pass


class Audit(BaseTool):
    """A class-based tool that takes the context as ``context``."""

    name = "audit"
    description = "Audit the conversation."
    args_schema = AuditArgs

    async def run(self, args: Any, context: RunContext) -> str:
        return f"{len(context.history)} items; asked: {context.question}"


async def test_a_class_tool_gets_the_context_through_run() -> None:
    executor = ToolExecutor([Audit()])
    context = RunContext(history=(InputMessage(role="user", content="check this"),), iteration=2)
    [result] = (await executor.execute([ToolCall("c1", "audit", "{}")], context=context)).results
    assert result.output == "1 items; asked: check this"
    # Without a context (a direct call) the tool still runs, with an empty one.
    [bare] = (await executor.execute([ToolCall("c2", "audit", "{}")])).results
    assert bare.output == "0 items; asked: "
