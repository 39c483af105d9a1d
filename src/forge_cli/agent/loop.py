"""The AgentLoop: ask the model, run the tools it calls, send the results back, repeat.

Each iteration the driver makes one model turn; the calls it returns go to the executor; their
results are appended as ``function_call_output`` items (the Chat backend turns them into ``tool``
messages); then the next turn. The run ends when a turn has no calls, when a blocked call stops
it (``stop_on_tool_block``), or at the iteration limit: the limit is checked before calls are
run, the calls left over get a "not run" result (so the history stays valid), an
:class:`IterationLimitReached` notice is emitted and the run's status is ``iteration_limit``
(``RunResult.raise_for_status`` → exit code 3).

Whatever the loop does is shown as ordinary Response snapshots: one growing ``output`` with every
turn's items, function calls whose status goes in_progress → completed / failed / incomplete
(blocked), and ``function_call_output`` items with the results.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from typing import assert_never

from forge_cli.agent.citations import annotate_citations
from forge_cli.agent.drivers.base import Driver, TurnResult, TurnUpdate
from forge_cli.agent.drivers.tool_calling import ToolCallingDriver
from forge_cli.agent.events import (
    BudgetExhausted,
    IterationLimitReached,
    IterationStarted,
    LoopFinished,
    LoopUpdate,
    Notice,
    RunResult,
    RunStatus,
)
from forge_cli.agent.state import AgentState
from forge_cli.backends.base import Backend, ListModels
from forge_cli.errors import UsageError
from forge_cli.prompting import PausableClock
from forge_cli.protocol.events import StreamEvent
from forge_cli.protocol.guards import is_function_call
from forge_cli.protocol.items import FunctionCall, FunctionCallOutput, OutputItem
from forge_cli.protocol.request import Request
from forge_cli.protocol.response import Response
from forge_cli.tools.events import (
    ToolCallBlocked,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallStarted,
    ToolEvent,
    ToolsDropped,
)
from forge_cli.tools.executor import ExecutionReport, ToolExecutor
from forge_cli.tools.hooks import ToolCall, ToolResult

__all__ = ["DEFAULT_MAX_ITERATIONS", "AgentLoop"]

DEFAULT_MAX_ITERATIONS = 5
"""Model requests per run (the seed's limit; llm's ``--chain-limit`` default is also 5)."""

_STATUS_OF_RESULT = {"completed": "completed", "failed": "failed", "blocked": "incomplete"}


class AgentLoop:
    """Run a request to its end, executing client-side tool calls."""

    def __init__(
        self,
        backend: Backend,
        driver: Driver | None = None,
        executor: ToolExecutor | None = None,
        *,
        max_iterations: int = DEFAULT_MAX_ITERATIONS,
        cite: bool = True,
        max_time: float | None = None,
        token_budget: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_iterations < 1:
            raise UsageError("the tool iteration limit must be at least 1")
        if max_time is not None and not max_time > 0:
            raise UsageError("the time budget must be more than 0 seconds")
        if token_budget is not None and token_budget < 1:
            raise UsageError("the token budget must be at least 1")
        self.backend = backend
        self.driver: Driver = driver if driver is not None else ToolCallingDriver()
        self.executor = executor if executor is not None else ToolExecutor()
        self.max_iterations = max_iterations
        self.cite = cite
        self.max_time = max_time
        """Seconds the run may take: checked as the model's reply streams in and before each
        request (a tool round in progress finishes; each tool has its own timeout)."""
        self.token_budget = token_budget
        """Tokens (as the server counts them) the run may use before it stops asking."""
        self.clock = clock

    async def run(self, request: Request) -> AsyncIterator[LoopUpdate]:
        """Yield snapshots and events; the last update is :class:`LoopFinished`.

        The time budget counts the run's time, not the user's: the time an approval question
        waits for an answer is left out (:class:`forge_cli.prompting.PausableClock`)."""
        timer = PausableClock(self.clock)
        stop_following = timer.follow_prompts()
        try:
            async for update in self._run(request, timer):
                yield update
        finally:
            stop_following()

    async def _run(self, request: Request, timer: PausableClock) -> AsyncIterator[LoopUpdate]:
        definitions, dropped = self.executor.definitions()
        state = AgentState(request, tools=definitions)
        run_id = f"resp_{uuid.uuid4().hex[:24]}"
        if dropped:
            yield ToolsDropped(dropped, self.executor.max_tools)
        status: RunStatus = "completed"
        last = Response(id=run_id, model=request.model, status="in_progress")
        backend = _counting(self.backend)
        while True:
            state.iteration += 1
            yield IterationStarted(state.iteration, self.max_iterations)
            turn: TurnResult | None = None
            cut = False
            turns = self.driver.turn(backend, state)
            try:
                while True:
                    try:
                        update = await self._next_update(turns, timer)
                    except StopAsyncIteration:
                        break
                    except TimeoutError:  # the time budget ran out while the model was silent
                        cut = True
                        break
                    if isinstance(update, TurnResult):
                        turn = update
                    elif isinstance(update, Response):
                        last = self._snapshot(run_id, state, update.output, update)
                        yield last
                    else:
                        yield update
                    if self._time_used(timer) is not None:
                        cut = True
                        break
            finally:
                await turns.aclose()
            if cut and turn is None:  # stopped mid-reply: keep what arrived, run no calls
                partial = [i for i in last.output[len(state.items) :] if not is_function_call(i)]
                state.items.extend(partial)
                yield self._exhausted("time", timer)
                status = "time_limit"
                break
            if turn is None:
                raise RuntimeError("the driver ended a turn without a TurnResult")
            state.add_usage(turn.usage)
            state.items.extend(turn.items)
            if turn.status != "completed" or not turn.calls:
                status = "completed" if turn.status == "completed" else "incomplete"
                break
            budget = self._budget_left(state, timer)
            if budget is not None:
                self._skip(state, turn.calls, f"not run: the {budget} budget ran out")
                yield self._exhausted(budget, timer, state)
                status = "time_limit" if budget == "time" else "token_limit"
                break
            if state.iteration >= self.max_iterations:
                notice = IterationLimitReached(
                    self.max_iterations, _names(turn.calls), backend.requests
                )
                self._skip(state, turn.calls, "not run: the tool iteration limit was reached")
                yield notice
                status = "iteration_limit"
                break
            report: ExecutionReport | None = None
            async for item in self._execute(run_id, state, turn.calls):
                if isinstance(item, ExecutionReport):
                    report = item
                else:
                    yield item
            state.rounds += 1
            if report is not None and report.stopped:
                yield Notice("a tool call was blocked; the run stops here")
                status = "blocked"
                break
            budget = self._budget_left(state, timer)
            if budget is not None:  # the results are kept; no further request is made
                yield self._exhausted(budget, timer, state)
                status = "time_limit" if budget == "time" else "token_limit"
                break
        final = self._final(run_id, state, status, last)
        yield final
        new_items = tuple(state.items)
        yield LoopFinished(RunResult(status, final, state.iteration, new_items, backend.requests))

    # -- budgets ----------------------------------------------------------------------------

    async def _next_update(
        self, turns: AsyncIterator[TurnUpdate], timer: PausableClock
    ) -> TurnUpdate:
        """The driver's next update, waiting no longer than the time budget allows.

        The wait runs in this task (``asyncio.timeout``), not in a task of its own per update
        (``asyncio.wait_for``): the turn's stream, and the HTTP response it reads, must be read
        from the one task that started it, or a long answer was cut short (issue 29).
        """
        if self.max_time is None:
            return await anext(turns)
        left = max(0.0, self.max_time - timer.elapsed())
        async with asyncio.timeout(left):
            return await anext(turns)

    def _time_used(self, timer: PausableClock) -> float | None:
        """Seconds used, when they reach the time budget (else ``None``)."""
        if self.max_time is None:
            return None
        used = timer.elapsed()
        return used if used >= self.max_time else None

    def _budget_left(self, state: AgentState, timer: PausableClock) -> str | None:
        """``"time"`` or ``"tokens"`` when that budget is used up, else ``None``."""
        if self._time_used(timer) is not None:
            return "time"
        if self.token_budget is not None and state.usage.total_tokens >= self.token_budget:
            return "tokens"
        return None

    def _exhausted(
        self, budget: str, timer: PausableClock, state: AgentState | None = None
    ) -> BudgetExhausted:
        if budget == "time":
            return BudgetExhausted("time", float(self.max_time or 0), timer.elapsed())
        used = state.usage.total_tokens if state is not None else 0
        return BudgetExhausted("tokens", float(self.token_budget or 0), float(used))

    # -- tools ------------------------------------------------------------------------------

    async def _execute(
        self, run_id: str, state: AgentState, calls: Sequence[FunctionCall]
    ) -> AsyncIterator[Response | ToolEvent | Notice | ExecutionReport]:
        """Run the calls; yield live events and snapshots, then the report."""
        ids = {call.call_id for call in calls}
        _set_status(state, ids, "in_progress")
        yield self._snapshot(run_id, state, [], None)
        queue: asyncio.Queue[ToolEvent] = asyncio.Queue()
        tool_calls = [ToolCall(c.call_id, c.name, c.arguments or "{}") for c in calls]
        context = self.executor.run_context(state.history(), state.iteration)
        task = asyncio.ensure_future(
            self.executor.execute(tool_calls, on_event=queue.put_nowait, context=context)
        )
        try:
            while not (task.done() and queue.empty()):
                event = await _next_event(queue, task)
                if event is None:
                    continue
                yield event
                finished = _finished_call(event)
                if finished is not None:
                    _set_status(state, {finished[0]}, finished[1])
                    yield self._snapshot(run_id, state, [], None)
            report = task.result()
        finally:
            if not task.done():
                task.cancel()
                # The calls end before the turn does: an approval question still reading the
                # terminal would go on taking keys (and its clean-up land) after the next prompt.
                await asyncio.wait({task})
                if not task.cancelled():
                    task.exception()  # retrieved: it is not logged as never retrieved
        for result in report.results:
            _set_status(state, {result.call_id}, _STATUS_OF_RESULT[result.status])
            state.items.append(_output_item(result))
            state.results.append(result)
            if result.printed:
                printed = result.printed.strip()
                message = f"tool {result.name} printed (not sent to the model): {printed}"
                yield Notice(message, level="info")
        yield self._snapshot(run_id, state, [], None)
        yield report

    def _skip(self, state: AgentState, calls: Sequence[FunctionCall], reason: str) -> None:
        for call in calls:
            result = ToolResult(call.call_id, call.name, reason, "blocked")
            _set_status(state, {call.call_id}, "incomplete")
            state.items.append(_output_item(result))

    # -- snapshots --------------------------------------------------------------------------

    def _snapshot(
        self,
        run_id: str,
        state: AgentState,
        turn_items: Sequence[OutputItem],
        turn: Response | None,
    ) -> Response:
        # A turn the server failed (an error chunk, ``response.failed``) ends the run: its
        # snapshot says so, so the last one shown before the error is raised is settled.
        failed = turn is not None and turn.status == "failed"
        return Response(
            id=run_id,
            model=(turn.model if turn is not None else None) or state.request.model,
            status="failed" if failed else "in_progress",
            error=turn.error if failed and turn is not None else None,
            output=[*state.items, *turn_items],
            usage=state.usage,
        )

    def _final(self, run_id: str, state: AgentState, status: RunStatus, last: Response) -> Response:
        items = list(state.items)
        if self.cite and state.results:
            items = annotate_citations(items, state.results)
            state.items[:] = items
        details = None
        if status == "iteration_limit":
            details = {"reason": "max_tool_iterations"}
        elif status == "time_limit":
            details = {"reason": "time_budget"}
        elif status == "token_limit":
            details = {"reason": "token_budget"}
        elif status == "blocked":
            details = {"reason": "tool_blocked"}
        return Response(
            id=run_id,
            model=last.model or state.request.model,
            status="completed" if status == "completed" else "incomplete",
            incomplete_details=details,
            output=items,
            usage=state.usage,
        )


async def _next_event(
    queue: asyncio.Queue[ToolEvent], task: asyncio.Future[ExecutionReport]
) -> ToolEvent | None:
    """The next event, or ``None`` when the task finished first (the caller re-checks)."""
    if not queue.empty():
        return queue.get_nowait()
    getter: asyncio.Future[ToolEvent] = asyncio.ensure_future(queue.get())
    waiting: set[asyncio.Future[object]] = {getter, task}  # type: ignore[arg-type]  # invariance
    try:
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not getter.done():
            getter.cancel()
    return getter.result() if getter.done() and not getter.cancelled() else None


def _finished_call(event: ToolEvent) -> tuple[str, str] | None:
    match event:
        case ToolCallCompleted(call_id=call_id):
            return call_id, "completed"
        case ToolCallFailed(call_id=call_id):
            return call_id, "failed"
        case ToolCallBlocked(call_id=call_id):
            return call_id, "incomplete"
        case ToolCallStarted() | ToolsDropped():
            return None
        case _:
            assert_never(event)


def _set_status(state: AgentState, call_ids: set[str], status: str) -> None:
    for index, item in enumerate(state.items):
        if is_function_call(item) and item.call_id in call_ids:
            state.items[index] = item.model_copy(update={"status": status})


def _output_item(result: ToolResult) -> FunctionCallOutput:
    return FunctionCallOutput(
        id=f"fco_{uuid.uuid4().hex[:24]}",
        call_id=result.call_id,
        output=result.output,
        name=result.name,
        status="completed",
        is_error=result.is_error or None,
    )


def _names(calls: Sequence[FunctionCall]) -> tuple[str, ...]:
    return tuple(call.name for call in calls)


class _CountingBackend:
    """The loop's backend, counting the model requests every driver makes through it."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
        self.runs_hosted_tools = inner.runs_hosted_tools
        self.requests = 0

    @property
    def stores_responses(self) -> bool:
        return self.inner.stores_responses

    @property
    def list_models(self) -> ListModels | None:
        return self.inner.list_models

    def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        self.requests += 1
        return self.inner.stream(request)

    def stream_batches(self, request: Request) -> AsyncGenerator[list[StreamEvent], None]:
        self.requests += 1
        return self.inner.stream_batches(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _counting(inner: Backend) -> _CountingBackend:
    return _CountingBackend(inner)
