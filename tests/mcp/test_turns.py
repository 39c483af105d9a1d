"""MCP tools inside whole turns: offered as function tools to a Responses server, and Ctrl+C
(cancelling the turn) cancels the running MCP call and leaves the server usable."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp_helpers import server_command

from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.cli.build import build_responder
from forge_cli.config import Settings
from forge_cli.mcp.config import McpServerSpec
from forge_cli.mcp.manager import McpManager
from forge_cli.protocol import FunctionTool, McpCall, Request, Response
from forge_cli.testing.fake_chat_server import FakeChatServer, tool_call_chunks
from forge_cli.testing.scripted import ScriptedBackend

pytestmark = pytest.mark.anyio


@pytest.fixture
async def manager() -> AsyncIterator[McpManager]:
    argv = server_command("tools_server")
    spec = McpServerSpec(name="calc", command=argv[0], args=tuple(argv[1:]), approval="auto")
    mgr = McpManager([spec])
    yield mgr
    await mgr.aclose()


def _response(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    body = {"id": "resp_1", "status": "completed", "output": output}
    return [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.completed", "response": body},
    ]


async def test_responses_server_gets_mcp_tools_as_function_tools(manager: McpManager) -> None:
    call = {
        "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "calc__add",
        "arguments": '{"a": 20, "b": 22}', "status": "completed",
    }  # fmt: skip
    answer = {
        "type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "text": "42", "annotations": []}],
    }  # fmt: skip
    backend = ScriptedBackend([_response([call]), _response([answer])])
    responder = build_responder(Settings(api="responses"), backend, interactive=False, mcp=manager)
    updates = [u async for u in responder(Request(model="m", input="20+22?"))]
    first = backend.requests[0]
    names = {tool.name for tool in first.tools if isinstance(tool, FunctionTool)}
    assert {"calc__add", "calc__steps"} <= names
    final = [u for u in updates if isinstance(u, Response)][-1]
    (shown,) = [item for item in final.output if isinstance(item, McpCall)]
    assert (shown.server_label, shown.name, shown.status) == ("calc", "add", "completed")
    assert '"total": 42' in (shown.output or "")
    second = backend.requests[1]
    assert any(
        getattr(item, "type", "") == "function_call_output" for item in second.input
    )  # the model got the result back


async def test_cancelling_the_turn_cancels_the_mcp_call(manager: McpManager) -> None:
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("calc__hang", {})]))
        backend = ChatCompletionsBackend(base_url=server.base_url, max_retries=0)
        try:
            responder = build_responder(
                Settings(api="chat", model="m"), backend, interactive=False, mcp=manager
            )
            seen: list[object] = []

            async def consume() -> None:
                async for update in responder(Request(model="m", input="hang")):
                    seen.append(update)

            task = asyncio.ensure_future(consume())
            while manager.live.get("call_0") is None:  # the call is running (no sleep)
                await manager.live.wait_changed()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            await backend.aclose()
    shown = [
        item
        for update in seen
        if isinstance(update, Response)
        for item in update.output
        if isinstance(item, McpCall)
    ]
    assert shown
    assert shown[-1].status == "in_progress"
    assert shown[-1].server_label == "calc"
    conn = manager.connections["calc"]
    outcome = await conn.call("echo", {"text": "alive"})
    assert outcome.text == "echo: alive"
