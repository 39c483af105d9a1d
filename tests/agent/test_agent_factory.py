"""build_agent wiring: user functions, approval, hosted tools made client-side, citations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from forge_cli.agent import (
    AgentConfig,
    AgentLoop,
    LoopFinished,
    LoopUpdate,
    Notice,
    RunResult,
    build_agent,
)
from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.knowledge import KnowledgeStore
from forge_cli.protocol import (
    FileCitation,
    FileSearchTool,
    FunctionCallOutput,
    Request,
    WebSearchTool,
)
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks
from forge_cli.testing.scripted import ScriptedBackend
from forge_cli.testing.scripted_driver import ScriptedDriver, call, say
from forge_cli.tools import Block, ToolCall, ToolCallBlocked, ToolExecutor, tool

pytestmark = pytest.mark.anyio


async def _drain(updates: object) -> tuple[list[LoopUpdate], RunResult]:
    collected = [u async for u in updates]  # type: ignore[attr-defined]
    assert isinstance(collected[-1], LoopFinished)
    return collected, collected[-1].result


@pytest.fixture
def functions_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(
        "def add(a: int, b: int) -> int:\n    '''Add two numbers.'''\n    return a + b\n"
    )
    return path


async def test_user_function_with_yes_runs(
    server: FakeChatServer, backend: ChatCompletionsBackend, functions_file: Path
) -> None:
    server.add(tool_call_chunks([("add", {"a": 2, "b": "3"})]))
    server.add(text_chunks("5"))
    config = AgentConfig(functions=[functions_file], assume_yes=True)
    agent = build_agent(backend, Request(model="m", input="2+3?"), config)
    _, result = await _drain(agent.run())
    outputs = [i for i in result.response.output if isinstance(i, FunctionCallOutput)]
    assert outputs[0].output_text == "5"
    assert result.response.output_text == "5"


async def test_user_function_without_yes_is_denied_non_interactively(
    server: FakeChatServer, backend: ChatCompletionsBackend, functions_file: Path
) -> None:
    server.add(tool_call_chunks([("add", {"a": 2, "b": 3})]))
    server.add(text_chunks("I was not allowed."))
    config = AgentConfig(functions=[functions_file])
    agent = build_agent(backend, Request(model="m", input="2+3?"), config)
    updates, _ = await _drain(agent.run())
    [blocked] = [u for u in updates if isinstance(u, ToolCallBlocked)]
    assert blocked.by == "approval"
    assert "--yes" in blocked.reason
    tool_message = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")
    assert "denied" in tool_message["content"]


async def test_hosted_file_search_becomes_a_client_tool_with_citations(
    server: FakeChatServer, backend: ChatCompletionsBackend, tmp_path: Path
) -> None:
    store = KnowledgeStore(tmp_path / "kb.sqlite")
    vs = store.create_vector_store("docs")
    added = store.add_file(
        b"# Bees\n\nHoneybees dance a waggle dance to show where flowers are.\n",
        "bees.md",
        vector_store_id=vs.id,
    )
    file_id = added.file.id if added.file is not None else ""
    server.add(tool_call_chunks([("file_search", {"query": "waggle dance"})]))
    server.add(text_chunks("Bees waggle to point at flowers [1]."))
    request = Request(
        model="m",
        input="Why do bees dance?",
        tools=[FileSearchTool(vector_store_ids=[vs.id]), WebSearchTool()],
    )
    agent = build_agent(backend, request, AgentConfig(knowledge_store=store))
    updates, result = await _drain(agent.run())
    store.close()

    notices = [u.message for u in updates if isinstance(u, Notice)]
    assert any("web_search" in n for n in notices)
    sent_tools = [t["function"]["name"] for t in server.requests[0]["tools"]]
    assert sent_tools == ["file_search"]  # read-only built-in: auto-approved, no prompt
    tool_message = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")
    assert tool_message["content"].startswith("[1] bees.md")
    [citation] = result.response.annotations()
    assert isinstance(citation, FileCitation)
    assert (citation.file_id, citation.filename) == (file_id, "bees.md")
    text = result.response.output_text
    assert citation.index == text.index("[1]") + 3


async def test_scripted_driver_and_stop_on_block() -> None:
    @tool
    def risky(x: int) -> int:
        """Risky."""
        return x

    def block_all(call: ToolCall) -> Block:
        return Block("blocked by test")

    driver = ScriptedDriver([[say("Trying."), call("risky", {"x": 1}), call("risky", {"x": 2})]])
    executor = ToolExecutor([risky], before_hooks=[block_all], stop_on_tool_block=True)
    loop = AgentLoop(ScriptedBackend([]), driver, executor)
    updates, result = await _drain(loop.run(Request(model="m", input="go")))
    driver.assert_consumed()
    assert result.status == "blocked"
    assert any(isinstance(u, Notice) for u in updates)
    outputs = [i for i in result.response.output if isinstance(i, FunctionCallOutput)]
    assert next(o.output_text for o in outputs) == "blocked by test"
    assert all(o.is_error for o in outputs)
    statuses = [i.status for i in result.response.output if i.type == "function_call"]
    assert statuses == ["incomplete", "incomplete"]
    assert json.loads(result.response.model_dump_json())["status"] == "incomplete"


def test_hosted_tools_stay_hosted_when_the_backend_runs_them(tmp_path: Path) -> None:
    store = KnowledgeStore(tmp_path / "kb.sqlite")
    request = Request(
        model="m", input="?", tools=[FileSearchTool(vector_store_ids=["vs_1"]), WebSearchTool()]
    )
    backend = ScriptedBackend([])
    assert backend.runs_hosted_tools
    kept = build_agent(backend, request, AgentConfig(knowledge_store=store))
    assert kept.request.tools == request.tools
    assert not kept.notices
    forced = build_agent(
        backend, request, AgentConfig(knowledge_store=store, client_side_hosted_tools=True)
    )
    store.close()
    assert [t.type for t in forced.request.tools] == []
    assert forced.notices == ["the web_search tool is not available with this backend; left out"]
    assert [t.name for t in forced.loop.executor.definitions()[0]] == ["file_search"]
