"""The AgentLoop end to end over a loopback Chat Completions server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from forge_cli.agent import (
    AgentLoop,
    DriverRetry,
    EvaluatorDecision,
    EvaluatorDriver,
    IterationLimitReached,
    LoopFinished,
    LoopUpdate,
    ReActDriver,
    RunResult,
    ToolCallingDriver,
)
from forge_cli.backends.chat.backend import ChatCompletionsBackend
from forge_cli.errors import EXIT_ITERATION_LIMIT, ToolIterationLimitError
from forge_cli.prompting import prompting
from forge_cli.protocol import FunctionCall, FunctionCallOutput, Request, Response
from forge_cli.protocol.loop_events import BudgetExhausted
from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks
from forge_cli.tools import (
    ApprovalHook,
    ApprovalPolicy,
    ApprovalRequest,
    Block,
    ToolCall,
    ToolCallBlocked,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
    ToolExecutor,
    ToolResult,
    ToolSet,
    tool,
)

pytestmark = pytest.mark.anyio

CALLS_MADE: list[tuple[str, Any]] = []


@tool
def get_weather(city: str, days: int = 1) -> dict[str, Any]:
    """Weather for a city.

    Args:
        city: The city.
        days: How many days.
    """
    CALLS_MADE.append(("get_weather", (city, days)))
    return {"city": city, "days": days, "sky": "sunny"}


@pytest.fixture(autouse=True)
def _reset() -> None:
    CALLS_MADE.clear()


async def _collect(loop: AgentLoop, request: Request) -> tuple[list[LoopUpdate], RunResult]:
    updates = [update async for update in loop.run(request)]
    last = updates[-1]
    assert isinstance(last, LoopFinished)
    return updates, last.result


def _tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "tool"]


REQUEST = Request(model="m", input="Weather in Paris?")


async def test_tool_call_then_answer_shows_as_snapshots(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    server.add(tool_call_chunks([("get_weather", {"city": "Paris"})]))
    server.add(text_chunks("It is sunny in Paris."))
    loop = AgentLoop(backend, ToolCallingDriver(), ToolExecutor([get_weather]))
    updates, result = await _collect(loop, REQUEST)

    assert result.status == "completed"
    assert result.response.output_text == "It is sunny in Paris."
    kinds = [item.type for item in result.response.output]
    assert kinds == ["function_call", "function_call_output", "message"]
    call, output = result.response.output[0], result.response.output[1]
    assert isinstance(call, FunctionCall)
    assert call.status == "completed"
    assert isinstance(output, FunctionCallOutput)
    assert output.call_id == call.call_id
    assert json.loads(output.output_text) == {"city": "Paris", "days": 1, "sky": "sunny"}
    # The call was shown running before it completed.
    statuses = [
        item.status
        for update in updates
        if isinstance(update, Response)
        for item in update.output
        if isinstance(item, FunctionCall)
    ]
    assert "in_progress" in statuses
    assert statuses[-1] == "completed"
    events = [type(u) for u in updates if not isinstance(u, Response)]
    assert ToolCallStarted in events
    assert ToolCallCompleted in events
    # The second request carried the assistant tool call and the tool message.
    second = server.requests[1]
    assert second["messages"][1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert _tool_messages(second)[0]["tool_call_id"] == call.call_id
    assert "tools" in server.requests[0]
    assert server.requests[0]["tools"][0]["function"]["name"] == ("get_weather")
    assert result.response.usage is not None
    assert result.response.usage.input_tokens == 20


async def test_parallel_calls_run_concurrently_and_keep_order(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    both_running = asyncio.Barrier(2)

    @tool
    async def slow(label: str) -> str:
        """Wait for the other call (proves both run at once)."""
        await asyncio.wait_for(both_running.wait(), 5)
        return f"done {label}"

    server.add(
        tool_call_chunks([("slow", {"label": "a"}), ("slow", {"label": "b"})], style="one_chunk")
    )
    server.add(text_chunks("both done"))
    loop = AgentLoop(backend, ToolCallingDriver(parallel_tool_calls=True), ToolExecutor([slow]))
    _, result = await _collect(loop, REQUEST)
    outputs = [i.output_text for i in result.response.output if isinstance(i, FunctionCallOutput)]
    assert outputs == ["done a", "done b"]
    assert [m["content"] for m in _tool_messages(server.requests[1])] == ["done a", "done b"]
    assert server.requests[0]["parallel_tool_calls"] is True


async def test_unknown_tool_goes_back_to_the_model(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    server.add(tool_call_chunks([("get_wether", {"city": "Paris"})]))
    server.add(text_chunks("Sorry."))
    loop = AgentLoop(backend, executor=ToolExecutor([get_weather]))
    updates, result = await _collect(loop, REQUEST)
    [message] = _tool_messages(server.requests[1])
    assert "unknown tool 'get_wether'" in message["content"]
    assert "get_weather" in message["content"]
    failed = [u for u in updates if isinstance(u, ToolCallFailed)]
    assert failed[0].kind == "unknown_tool"
    assert result.status == "completed"
    [call] = [i for i in result.response.output if isinstance(i, FunctionCall)]
    assert call.status == "failed"


async def test_invalid_arguments_then_corrected_call(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    server.add(tool_call_chunks([("get_weather", {"town": "Paris"})]))
    server.add(tool_call_chunks([("get_weather", {"city": "Paris", "days": "3"})]))
    server.add(text_chunks("Sunny for 3 days."))
    loop = AgentLoop(backend, executor=ToolExecutor([get_weather]))
    _, result = await _collect(loop, REQUEST)
    first_error = _tool_messages(server.requests[1])[0]["content"]
    assert "invalid arguments" in first_error
    assert "city" in first_error
    assert CALLS_MADE == [("get_weather", ("Paris", 3))]  # "3" fixed to 3
    assert result.response.output_text == "Sunny for 3 days."


async def test_iteration_limit(server: FakeChatServer, backend: ChatCompletionsBackend) -> None:
    for _ in range(2):
        server.add(tool_call_chunks([("get_weather", {"city": "Paris"})]))
    loop = AgentLoop(backend, executor=ToolExecutor([get_weather]), max_iterations=2)
    updates, result = await _collect(loop, REQUEST)
    assert len(server.requests) == 2
    assert result.status == "iteration_limit"
    notices = [u for u in updates if isinstance(u, IterationLimitReached)]
    assert notices
    assert notices[0].pending_calls == ("get_weather",)
    assert "iteration limit" in notices[0].message
    assert len(CALLS_MADE) == 1  # the last turn's call was not run
    last_output = result.response.output[-1]
    assert isinstance(last_output, FunctionCallOutput)
    assert "not run" in last_output.output_text
    assert result.response.status == "incomplete"
    with pytest.raises(ToolIterationLimitError) as info:
        result.raise_for_status()
    assert info.value.exit_code == EXIT_ITERATION_LIMIT == 3


async def test_before_hook_blocks_and_the_model_reads_the_notice(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    def no_paris(call: ToolCall) -> Block | None:
        if "Paris" in call.arguments:
            return Block("Paris is off limits today.")
        return None

    server.add(tool_call_chunks([("get_weather", {"city": "Paris"})]))
    server.add(text_chunks("I cannot look that up."))
    executor = ToolExecutor([get_weather], before_hooks=[no_paris])
    updates, _ = await _collect(AgentLoop(backend, executor=executor), REQUEST)
    assert CALLS_MADE == []
    assert _tool_messages(server.requests[1])[0]["content"] == "Paris is off limits today."
    assert any(isinstance(u, ToolCallBlocked) and u.by == "hook" for u in updates)


async def test_after_hook_rewrites_the_result(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    async def redact(call: ToolCall, result: ToolResult) -> ToolResult:
        return ToolResult(result.call_id, result.name, result.output.replace("sunny", "[redacted]"))

    server.add(tool_call_chunks([("get_weather", {"city": "Paris"})]))
    server.add(text_chunks("ok"))
    executor = ToolExecutor([get_weather], after_hooks=[redact])
    await _collect(AgentLoop(backend, executor=executor), REQUEST)
    content = _tool_messages(server.requests[1])[0]["content"]
    assert "[redacted]" in content
    assert "sunny" not in content


async def test_react_driver_retries_malformed_json(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    server.add(text_chunks("I think I should call get_weather {city: Paris"))
    server.add(
        text_chunks(
            json.dumps(
                {
                    "type": "call_tool",
                    "tool": "get_weather",
                    "args": {"city": "Paris"},
                    "thought": "Need the weather.",
                }
            )
        )
    )
    server.add(
        text_chunks(
            '```json\n{"type": "final_answer", "answer": "Sunny.", "thought": "Done."}\n```'
        )
    )
    loop = AgentLoop(backend, ReActDriver(), ToolExecutor([get_weather]))
    updates, result = await _collect(loop, REQUEST)
    retries = [u for u in updates if isinstance(u, DriverRetry)]
    assert len(retries) == 1
    assert "not valid JSON" in retries[0].error
    assert CALLS_MADE == [("get_weather", ("Paris", 1))]
    assert result.response.output_text == "Sunny."
    kinds = [item.type for item in result.response.output]
    assert kinds == ["reasoning", "function_call", "function_call_output", "reasoning", "message"]
    # No native tools were sent; the retry showed the model its error; observations are text.
    assert all("tools" not in body for body in server.requests)
    assert "not valid" in server.requests[1]["messages"][-1]["content"]
    assert server.requests[2]["messages"][-1]["content"].startswith("Observation: ")
    assert "get_weather" in server.requests[0]["messages"][0]["content"]


async def test_evaluator_finishes_after_one_round(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    server.add(tool_call_chunks([("get_weather", {"city": "Paris"})]))
    server.add(text_chunks('{"decision": "FINISHED", "reason": "weather known"}'))
    server.add(text_chunks("Paris: sunny."))
    driver = EvaluatorDriver(evaluator_model="cheap")
    loop = AgentLoop(backend, driver, ToolExecutor([get_weather]))
    updates, result = await _collect(loop, REQUEST)
    assert len(server.requests) == 3
    verdicts = [u for u in updates if isinstance(u, EvaluatorDecision)]
    assert [(v.decision, v.reason) for v in verdicts] == [("FINISHED", "weather known")]
    evaluator, output = server.requests[1], server.requests[2]
    assert evaluator["model"] == "cheap"
    assert "tools" not in evaluator
    assert "Weather in Paris?" in evaluator["messages"][-1]["content"]
    assert "sunny" in evaluator["messages"][-1]["content"]
    assert output["tool_choice"] == "none"
    assert _tool_messages(output)  # the output step sees the tool results
    assert result.response.output_text == "Paris: sunny."
    assert result.status == "completed"


async def test_tool_call_tags_in_text_are_parsed_when_enabled(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    tagged = (
        'Checking. <tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
    )
    server.add(text_chunks(tagged))
    server.add(text_chunks("Rome is sunny."))
    driver = ToolCallingDriver(parse_tool_call_tags=True)
    _, result = await _collect(AgentLoop(backend, driver, ToolExecutor([get_weather])), REQUEST)
    assert CALLS_MADE == [("get_weather", ("Rome", 1))]
    assert result.response.output[0].type == "message"
    assert "<tool_call>" not in result.response.output_text


async def test_required_tool_choice_applies_to_the_first_turn_only(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    server.add(tool_call_chunks([("get_weather", {"city": "Paris"})]))
    server.add(text_chunks("done"))
    driver = ToolCallingDriver(tool_choice="required")
    await _collect(AgentLoop(backend, driver, ToolExecutor([get_weather])), REQUEST)
    assert [body["tool_choice"] for body in server.requests] == ["required", "auto"]


async def test_loop_folds_chat_replies_a_network_read_at_a_time(
    server: FakeChatServer, backend: ChatCompletionsBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loop takes the chat backend's batches (one snapshot per read, ADR 0015), still
    counting every model request."""

    def per_event(request: Request) -> Any:
        raise AssertionError("the loop folded event by event")

    monkeypatch.setattr(backend, "stream", per_event)
    server.add(tool_call_chunks([("get_weather", {"city": "Paris"})]))
    server.add(text_chunks("It is sunny in Paris."))
    loop = AgentLoop(backend, ToolCallingDriver(), ToolExecutor([get_weather]))
    _, result = await _collect(loop, REQUEST)
    assert result.response.output_text == "It is sunny in Paris."
    assert result.requests == 2


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _ThinkingPerson:
    """Approves every call after thinking it over for ``seconds`` inside a prompt."""

    def __init__(self, clock: _Clock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds

    async def approve(self, request: ApprovalRequest) -> bool:
        with prompting():
            self.clock.now += self.seconds
        return True


async def _approved_weather_run(
    server: FakeChatServer,
    backend: ChatCompletionsBackend,
    *,
    think: float,
    work: float,
    answered: bool,
) -> tuple[list[LoopUpdate], RunResult]:
    """A 10 s time budget; the person thinks ``think`` s over the approval, the tool takes
    ``work`` s of the run's time; ``answered``: the run gets as far as asking for the answer."""
    clock = _Clock()

    @tool
    def slow_weather(city: str) -> str:
        """Weather for a city."""
        clock.now += work
        return f"sunny in {city}"

    tools = ToolSet([slow_weather])
    hook = ApprovalHook(ApprovalPolicy(), tools, _ThinkingPerson(clock, think))
    server.add(tool_call_chunks([("slow_weather", {"city": "Paris"})]))
    if answered:
        server.add(text_chunks("It is sunny in Paris."))
    loop = AgentLoop(
        backend, executor=ToolExecutor(tools, before_hooks=[hook]), max_time=10.0, clock=clock
    )
    return await _collect(loop, REQUEST)


async def test_the_time_budget_leaves_out_the_wait_for_an_approval(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    updates, result = await _approved_weather_run(
        server, backend, think=100.0, work=1.0, answered=True
    )
    assert result.status == "completed"
    assert not [update for update in updates if isinstance(update, BudgetExhausted)]
    assert result.requests == 2  # the answer after the tool was asked for


async def test_the_time_budget_counts_the_tools_own_time(
    server: FakeChatServer, backend: ChatCompletionsBackend
) -> None:
    updates, result = await _approved_weather_run(
        server, backend, think=0.0, work=100.0, answered=False
    )
    assert result.status == "time_limit"
    [spent] = [update for update in updates if isinstance(update, BudgetExhausted)]
    assert spent.used == pytest.approx(100.0)
    assert result.requests == 1
