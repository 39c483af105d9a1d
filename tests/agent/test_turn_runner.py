"""The one turn runner (`forge_cli.agent.turn.run_turn`): request -> updates -> outcome, with one
mapping of cancel -> interrupted, limit -> incomplete, failure -> failed, for ask, chat and eval."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from forge_cli.agent.turn import Responder, TurnOutcome, backend_responder, run_turn
from forge_cli.errors import BackendConnectionError, StreamError, ToolIterationLimitError
from forge_cli.protocol import Request, Response
from forge_cli.protocol.loop_events import AnswerUpdate, Notice
from forge_cli.testing.loop_run import newsworthy_run, reply_script
from forge_cli.testing.scripted import ScriptedBackend

pytestmark = pytest.mark.anyio

REQUEST = Request(model="m", input="q")


def _responder(
    *updates: AnswerUpdate, error: Exception | None = None, hang: bool = False
) -> Responder:
    async def respond(request: Request) -> AsyncIterator[AnswerUpdate]:
        for update in updates:
            yield update
        if error is not None:
            raise error
        if hang:
            await asyncio.Event().wait()

    return respond


async def _run(responder: Responder) -> tuple[TurnOutcome, list[AnswerUpdate], list[TurnOutcome]]:
    seen: list[AnswerUpdate] = []
    ends: list[TurnOutcome] = []
    outcome = await run_turn(responder, REQUEST, on_update=seen.append, on_end=ends.append)
    return outcome, seen, ends


async def test_a_finished_stream_is_completed_and_every_update_is_passed_on() -> None:
    snap = Response(id="r", status="completed")
    notice = Notice("heads up")
    outcome, seen, ends = await _run(_responder(notice, snap))
    assert (outcome.status, outcome.response, outcome.error) == ("completed", snap, None)
    assert seen == [notice, snap]
    assert ends == [outcome]


async def test_an_incomplete_final_snapshot_is_incomplete_without_an_error() -> None:
    snap = Response(id="r", status="incomplete")
    outcome, _, _ = await _run(_responder(snap))
    assert (outcome.status, outcome.error) == ("incomplete", None)


async def test_the_iteration_limit_is_incomplete_and_keeps_the_partial_answer() -> None:
    snap = Response(id="r", status="incomplete")
    limit = ToolIterationLimitError("stopped")
    outcome, _, ends = await _run(_responder(snap, error=limit))
    assert (outcome.status, outcome.response, outcome.error) == ("incomplete", snap, limit)
    assert ends == [outcome]


async def test_any_forge_error_is_failed_with_that_error() -> None:
    snap = Response(id="r", status="in_progress")
    error = BackendConnectionError("connection dropped")
    outcome, _, _ = await _run(_responder(snap, error=error))
    assert (outcome.status, outcome.response, outcome.error) == ("failed", snap, error)
    assert outcome.error_line == "connection dropped"


async def test_a_bug_is_not_swallowed() -> None:
    with pytest.raises(ZeroDivisionError):
        await _run(_responder(error=ZeroDivisionError()))


async def test_cancel_reports_interrupted_then_propagates() -> None:
    snap = Response(id="r", status="in_progress")
    shown = asyncio.Event()
    ends: list[TurnOutcome] = []

    def on_update(update: AnswerUpdate) -> None:
        shown.set()

    task = asyncio.create_task(
        run_turn(_responder(snap, hang=True), REQUEST, on_update=on_update, on_end=ends.append)
    )
    await shown.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(e.status, e.response, e.error) for e in ends] == [("interrupted", snap, None)]


async def test_a_server_failure_from_the_backend_stream_is_failed() -> None:
    failed = {"type": "response.failed",
              "response": {"id": "r", "status": "failed",
                           "error": {"code": "overloaded", "message": "try later"}}}  # fmt: skip
    script = [*reply_script("partial")[:2], failed]
    outcome, _, _ = await _run(backend_responder(ScriptedBackend([script])))
    assert outcome.status == "failed"
    assert isinstance(outcome.error, StreamError)
    assert (outcome.error.message, outcome.error.code) == ("try later", "overloaded")


async def test_the_real_agent_loop_through_the_runner() -> None:
    run = await newsworthy_run()

    async def respond(request: Request) -> AsyncIterator[AnswerUpdate]:
        for update in run.updates:
            yield update
        run.result.raise_for_status()

    outcome, seen, _ = await _run(respond)
    assert outcome.status == "incomplete"
    assert isinstance(outcome.error, ToolIterationLimitError)
    assert outcome.response == run.final
    assert [u.type for u in seen if not isinstance(u, Response)] == [
        "iteration.started", "driver.retry", "tool_call.started", "tool_call.failed",
        "iteration.started", "tool_call.blocked", "iteration.started",
        "iteration.limit_reached",
    ]  # fmt: skip
