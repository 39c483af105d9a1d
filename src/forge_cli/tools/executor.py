"""The ToolExecutor: run the calls a model asked for, and turn every failure into a result.

Per call, in order: look the tool up, parse the JSON arguments, apply the lenient type fix,
validate against the schema, then run the before-hooks (approval is one). Hooks run one call at
a time, in call order, so approval prompts never interleave. The calls that survive run
concurrently, each under its timeout; after-hooks then may rewrite each result. Results keep the
call order. Unknown tools, invalid arguments, exceptions and timeouts become error results the
model reads (architecture §3.8); only cancellation and ``throw_on_tool_failure`` propagate.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from pydantic import BaseModel, ValidationError

from forge_cli.errors import ToolError
from forge_cli.protocol.request import InputItem
from forge_cli.protocol.tools import FunctionTool
from forge_cli.tools.approval import ApprovalHook
from forge_cli.tools.base import BaseTool, render_output
from forge_cli.tools.coerce import coerce_arguments
from forge_cli.tools.containment import CapturedOutput, ToolAborted, capturing, guard_exits
from forge_cli.tools.context import RunContext
from forge_cli.tools.events import (
    FailureKind,
    ToolCallBlocked,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
    ToolEvent,
    ToolEventSink,
)
from forge_cli.tools.hooks import AfterHook, BeforeHook, Block, ToolCall, ToolResult, call_hook
from forge_cli.tools.toolset import MAX_TOOLS_PER_REQUEST, ToolSet

__all__ = ["DEFAULT_MAX_RESULT_CHARS", "DEFAULT_TOOL_TIMEOUT", "ExecutionReport", "ToolExecutor"]

DEFAULT_TOOL_TIMEOUT = 60.0
"""Seconds a tool may run before its call fails with a timeout result."""

DEFAULT_MAX_RESULT_CHARS = 100_000
"""The longest tool result sent to the model (``tools.max_result_chars``); longer ones are cut
with a note saying so."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ExecutionReport:
    """The results of one round of calls, in call order; ``stopped`` when a block ended it."""

    results: tuple[ToolResult, ...]
    stopped: bool = False


@dataclass(frozen=True, slots=True)
class _Ready:
    call: ToolCall
    tool: BaseTool
    args: BaseModel


class ToolExecutor:
    """Runs tool calls against a :class:`ToolSet` with hooks, validation and timeouts."""

    def __init__(
        self,
        tools: Iterable[BaseTool] | ToolSet = (),
        *,
        before_hooks: Sequence[BeforeHook] = (),
        after_hooks: Sequence[AfterHook] = (),
        throw_on_tool_failure: bool = False,
        stop_on_tool_block: bool = False,
        timeout: float | None = DEFAULT_TOOL_TIMEOUT,
        coerce_types: bool = True,
        max_tools: int = MAX_TOOLS_PER_REQUEST,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
    ) -> None:
        self.tools = tools if isinstance(tools, ToolSet) else ToolSet(tools)
        self.before_hooks = list(before_hooks)
        self.after_hooks = list(after_hooks)
        self.throw_on_tool_failure = throw_on_tool_failure
        self.stop_on_tool_block = stop_on_tool_block
        self.timeout = timeout
        self.coerce_types = coerce_types
        self.max_tools = max_tools
        self.max_result_chars = max_result_chars

    def definitions(self) -> tuple[list[FunctionTool], tuple[str, ...]]:
        """Definitions for a request (at most ``max_tools``) and the names left out."""
        return self.tools.definitions(self.max_tools)

    def run_context(self, history: Sequence[InputItem] = (), iteration: int = 0) -> RunContext:
        """The context tools get in this run: ``history``, ``iteration`` and the approval policy."""
        approval = next((h for h in self.before_hooks if isinstance(h, ApprovalHook)), None)
        policies: dict[str, str] = {}
        assume_yes = False
        if approval is not None:
            assume_yes = approval.policy.assume_yes
            for item in self.tools:
                policies[item.name] = approval.policy.policy_for(
                    item.name, read_only=item.read_only
                )
        return RunContext(tuple(history), iteration, policies=policies, assume_yes=assume_yes)

    async def execute(
        self,
        calls: Sequence[ToolCall],
        *,
        on_event: ToolEventSink | None = None,
        context: RunContext | None = None,
    ) -> ExecutionReport:
        """Run ``calls``; return one result per call, in call order.

        ``context`` is what tools that ask for the run's context receive (with the call's id and
        tool name filled in).
        """
        emit = on_event or _ignore
        slots: list[ToolResult | _Ready] = []
        stopped = False
        for call in calls:
            if stopped:
                reason = "not run: an earlier tool call in this round was blocked"
                emit(ToolCallBlocked(call.call_id, call.name, reason, by="executor"))
                slots.append(ToolResult(call.call_id, call.name, reason, "blocked"))
                continue
            slot = await self._prepare(call, emit)
            slots.append(slot)
            stopped = self.stop_on_tool_block and _is_blocked(slot)
        ready = [(index, slot) for index, slot in enumerate(slots) if isinstance(slot, _Ready)]
        finished = await asyncio.gather(*(self._run(slot, emit, context) for _, slot in ready))
        merged: list[ToolResult | _Ready] = list(slots)
        for (index, _), result in zip(ready, finished, strict=True):
            merged[index] = result
        results = [slot for slot in merged if isinstance(slot, ToolResult)]
        if self.throw_on_tool_failure:
            _raise_first_failure(results)
        return ExecutionReport(tuple(results), stopped)

    async def _prepare(self, call: ToolCall, emit: ToolEventSink) -> ToolResult | _Ready:
        offered = self.tools.names()[: self.max_tools]
        tool = self.tools.get(call.name) if call.name in offered else None
        if tool is None:
            known = ", ".join(offered) or "none"
            if call.name in self.tools:
                what = (
                    f"tool {call.name!r} was not offered in this request (only the first "
                    f"{self.max_tools} tools are sent)"
                )
            else:
                what = f"unknown tool {call.name!r}"
            message = f"Error: {what}. Available tools: {known}."
            return _failed(call, message, "unknown_tool", emit)
        checked = self._validate(call, tool, emit)
        if isinstance(checked, ToolResult):
            return checked
        for hook in self.before_hooks:
            decision = await call_hook(hook, call)
            if isinstance(decision, Block):
                emit(ToolCallBlocked(call.call_id, call.name, decision.reason, by=decision.by))
                return ToolResult(call.call_id, call.name, decision.reason, "blocked")
            if isinstance(decision, ToolCall) and decision != call:
                call = decision
                checked = self._validate(call, tool, emit)
                if isinstance(checked, ToolResult):
                    return checked
        return _Ready(call, tool, checked)

    def _validate(
        self, call: ToolCall, tool: BaseTool, emit: ToolEventSink
    ) -> BaseModel | ToolResult:
        arguments = call.parsed()
        if arguments is None:
            message = (
                f"Error: the arguments for {call.name!r} are not a JSON object: "
                f"{call.arguments[:200]!r}. Call the tool again with a JSON object."
            )
            return _failed(call, message, "invalid_arguments", emit)
        if self.coerce_types:
            arguments = coerce_arguments(arguments, tool.parameters())
        try:
            return tool.validate_arguments(arguments)
        except ValidationError as exc:
            message = (
                f"Error: invalid arguments for {call.name!r}: {_summarise(exc)}. "
                "Fix the arguments and call the tool again."
            )
            return _failed(call, message, "invalid_arguments", emit)

    async def _run(
        self, ready: _Ready, emit: ToolEventSink, context: RunContext | None
    ) -> ToolResult:
        call, tool = ready.call, ready.tool
        emit(ToolCallStarted(call.call_id, call.name, call.parsed() or {}))
        limit = tool.timeout if tool.timeout is not None else self.timeout
        printed = CapturedOutput()
        try:
            seen = replace(context or RunContext(), call_id=call.call_id, tool_name=call.name)
            with capturing(printed):
                value = await asyncio.wait_for(guard_exits(tool.invoke(ready.args, seen)), limit)
        except TimeoutError:
            result = _failed(call, f"Error: {call.name!r} timed out after {limit:g} s.", "timeout")
        except ToolAborted as exc:
            result = _failed(call, f"Error: {call.name!r} {exc.reason}.", "exception")
        except Exception as exc:  # a tool's own failure goes back to the model
            _log.debug("tool %s raised", call.name, exc_info=True)
            text = f"Error: {call.name!r} raised {type(exc).__name__}: {exc}"
            result = _failed(call, text, "exception")
        else:
            output = render_output(value)
            text = _cap(output.text, self.max_result_chars)
            result = ToolResult(call.call_id, call.name, text, citations=output.citations)
        if printed.total:
            result = replace(result, printed=printed.text())
        for hook in self.after_hooks:
            replacement = await call_hook(hook, call, result)
            if isinstance(replacement, ToolResult):
                result = replacement
        if result.status == "completed":
            emit(ToolCallCompleted(call.call_id, call.name, result.output))
        else:
            emit(ToolCallFailed(call.call_id, call.name, result.output, _kind(result)))
        return result


def _cap(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return (
        text[:limit] + f"\n\n[Forge cut this tool result from {len(text)} to {limit} characters "
        "(setting tools.max_result_chars).]"
    )


def _failed(
    call: ToolCall, message: str, kind: FailureKind, emit: ToolEventSink | None = None
) -> ToolResult:
    if emit is not None:
        emit(ToolCallFailed(call.call_id, call.name, message, kind))
    return ToolResult(call.call_id, call.name, message, "failed", error_kind=kind)


def _kind(result: ToolResult) -> FailureKind:
    kind = result.error_kind
    if kind in ("unknown_tool", "invalid_arguments", "timeout"):
        return kind  # type: ignore[return-value]  # narrowed by the membership test
    return "exception"


def _is_blocked(slot: ToolResult | _Ready) -> bool:
    return isinstance(slot, ToolResult) and slot.status == "blocked"


def _ignore(_event: ToolEvent) -> None:
    return None


def _summarise(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:8]:
        where = ".".join(str(piece) for piece in error.get("loc", ())) or "arguments"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)


def _raise_first_failure(results: Sequence[ToolResult]) -> None:
    for result in results:
        if result.status == "failed":
            raise ToolError(f"tool {result.name!r} failed: {result.output}")
