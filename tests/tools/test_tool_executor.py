"""The ToolExecutor: failures become results, timeouts, options, limits, and approval."""

from __future__ import annotations

import asyncio
import io
import logging

import pytest

from forge_cli.errors import ToolError
from forge_cli.tools import (
    ApprovalHook,
    ApprovalPolicy,
    ApprovalRequest,
    Block,
    TerminalApprover,
    ToolCall,
    ToolCallBlocked,
    ToolEvent,
    ToolExecutor,
    ToolSet,
    tool,
)

pytestmark = pytest.mark.anyio


@tool
def echo(text: str) -> str:
    """Echo."""
    return text


@tool
def explode() -> str:
    """Raise."""
    raise RuntimeError("kaboom")


@tool(timeout=0.05)
async def hang() -> str:
    """Never returns (until cancelled)."""
    await asyncio.Event().wait()
    return "never"


async def test_failures_become_results_in_call_order() -> None:
    events: list[ToolEvent] = []
    executor = ToolExecutor([echo, explode, hang])
    calls = [
        ToolCall("1", "explode", "{}"),
        ToolCall("2", "echo", '{"text": "hi"}'),
        ToolCall("3", "hang", "{}"),
        ToolCall("4", "echo", "not json"),
        ToolCall("5", "nope", "{}"),
    ]
    report = await executor.execute(calls, on_event=events.append)
    results = report.results
    assert [r.call_id for r in results] == ["1", "2", "3", "4", "5"]
    assert [r.status for r in results] == ["failed", "completed", "failed", "failed", "failed"]
    assert "RuntimeError: kaboom" in results[0].output
    assert results[1].output == "hi"
    assert "timed out" in results[2].output
    assert "not a JSON object" in results[3].output
    assert "unknown tool 'nope'" in results[4].output
    kinds = [e.kind for e in events if type(e).__name__ == "ToolCallFailed"]  # type: ignore[union-attr]
    assert sorted(kinds) == ["exception", "invalid_arguments", "timeout", "unknown_tool"]


async def test_throw_on_tool_failure() -> None:
    executor = ToolExecutor([explode], throw_on_tool_failure=True)
    with pytest.raises(ToolError, match="kaboom"):
        await executor.execute([ToolCall("1", "explode", "{}")])


async def test_stop_on_tool_block_skips_the_rest() -> None:
    def block_first(call: ToolCall) -> Block | None:
        return Block("no") if call.call_id == "1" else None

    executor = ToolExecutor([echo], before_hooks=[block_first], stop_on_tool_block=True)
    calls = [ToolCall("1", "echo", '{"text": "a"}'), ToolCall("2", "echo", '{"text": "b"}')]
    report = await executor.execute(calls)
    assert report.stopped
    assert [r.status for r in report.results] == ["blocked", "blocked"]
    assert "earlier tool call" in report.results[1].output


async def test_before_hook_may_rewrite_arguments() -> None:
    def shout(call: ToolCall) -> ToolCall:
        return call.with_arguments({"text": (call.parsed() or {})["text"].upper()})

    report = await ToolExecutor([echo], before_hooks=[shout]).execute(
        [ToolCall("1", "echo", '{"text": "hi"}')]
    )
    assert report.results[0].output == "HI"


def test_at_most_128_tools_per_request(caplog: pytest.LogCaptureFixture) -> None:
    tools = [tool(name=f"t{n}")(lambda: None) for n in range(130)]
    with caplog.at_level(logging.WARNING):
        definitions, dropped = ToolExecutor(tools).definitions()
    assert len(definitions) == 128
    assert dropped == ("t128", "t129")
    assert "t128, t129" in caplog.text


def test_duplicate_tool_names_are_an_error() -> None:
    with pytest.raises(ToolError, match="two tools"):
        ToolSet([echo, tool(name="echo")(lambda: None)])


# -- approval -------------------------------------------------------------------------------


@tool(read_only=True)
def lookup(key: str) -> str:
    """Read-only lookup."""
    return f"value of {key}"


async def _approve(
    policy: ApprovalPolicy, approver: TerminalApprover | None, name: str = "echo"
) -> tuple[str, list[ToolEvent]]:
    tools = ToolSet([echo, lookup])
    events: list[ToolEvent] = []
    executor = ToolExecutor(tools, before_hooks=[ApprovalHook(policy, tools, approver)])
    args = '{"text": "hi"}' if name == "echo" else '{"key": "k"}'
    report = await executor.execute([ToolCall("1", name, args)], on_event=events.append)
    return report.results[0].output, events


async def test_non_interactive_denies_user_functions_and_says_so() -> None:
    output, events = await _approve(ApprovalPolicy(), None)
    assert "denied" in output
    assert "--yes" in output
    [blocked] = [e for e in events if isinstance(e, ToolCallBlocked)]
    assert blocked.by == "approval"


async def test_assume_yes_and_read_only_and_deny_policies() -> None:
    assert (await _approve(ApprovalPolicy(assume_yes=True), None))[0] == "hi"
    assert (await _approve(ApprovalPolicy(), None, name="lookup"))[0] == "value of k"
    denied = ApprovalPolicy(per_tool={"lookup": "deny"}, assume_yes=True)
    assert "policy: deny" in (await _approve(denied, None, name="lookup"))[0]


async def test_terminal_approver_on_plain_streams() -> None:
    out = io.StringIO()
    approver = TerminalApprover(io.StringIO("n\n"), out)
    output, _ = await _approve(ApprovalPolicy(), approver)
    assert "The user denied" in output
    assert "Tool call: echo" in out.getvalue()
    assert '"text": "hi"' in out.getvalue()
    approver = TerminalApprover(io.StringIO("y\n"), io.StringIO())
    assert (await _approve(ApprovalPolicy(), approver))[0] == "hi"


async def test_always_allows_the_tool_for_the_rest_of_the_session() -> None:
    out = io.StringIO()
    approver = TerminalApprover(io.StringIO("a\n"), out)  # one answer only: a second ask would deny
    tools = ToolSet([echo, lookup])
    executor = ToolExecutor(tools, before_hooks=[ApprovalHook(ApprovalPolicy(), tools, approver)])
    first = await executor.execute([ToolCall("1", "echo", '{"text": "one"}')])
    second = await executor.execute([ToolCall("2", "echo", '{"text": "two"}')])
    assert [first.results[0].output, second.results[0].output] == ["one", "two"]
    assert out.getvalue().count("Allow?") == 1


def test_approval_request_sanitises_control_characters() -> None:
    request = ApprovalRequest("1", "echo", {"text": "a\x1b[31mred\u202e"})
    text = request.arguments_text()
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "\\u001b" in text
    assert "\\u202e" in text
