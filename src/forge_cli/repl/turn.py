"""Run one turn: a Request in, Response snapshots out, failures as our typed errors.

A :data:`Responder` is the seam between the chat session and whatever answers: a plain backend
folded into snapshots (:func:`backend_responder`), or the agent loop when client-side tools run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from forge_cli.backends.base import Backend
from forge_cli.errors import StreamError
from forge_cli.protocol.request import Request

if TYPE_CHECKING:
    from forge_cli.protocol.response import Response

__all__ = ["Responder", "agent_responder", "backend_responder"]

Responder = Callable[[Request], AsyncIterator["Response | object"]]
"""Something that answers a request: a stream of snapshots (the last one is final), possibly
interleaved with agent-loop events (anything that is not a Response)."""


def backend_responder(backend: Backend) -> Responder:
    """A responder that folds ``backend``'s event stream; a server-reported failure raises."""

    async def respond(request: Request) -> AsyncIterator[Response | object]:
        events = backend.stream(request)
        try:
            # Send the request first; the builder (and the item models it loads) is imported once
            # the first event is here, so the server starts working as early as possible.
            first = await anext(events, None)
            from forge_cli.stream.builder import SnapshotBuilder

            builder = SnapshotBuilder()
            last = None
            if first is not None:
                last = builder.feed(first)
                yield last
                async for event in events:
                    snapshot = builder.feed(event)
                    if snapshot is not last:  # unchanged by this event: nothing new to show
                        last = snapshot
                        yield snapshot
            final = builder.finish()
            if final is not last:
                yield final
        finally:
            close = getattr(events, "aclose", None)
            if close is not None:
                await close()
        if builder.terminal in ("failed", "error"):
            error = builder.error
            message = error.message if error and error.message else "the server reported a failure"
            raise StreamError(message, code=error.code if error else None)

    return respond


def agent_responder(
    backend: Backend,
    *,
    functions: list[str],
    max_iterations: int,
    assume_yes: bool,
    approver: Any = None,
    knowledge_store: Callable[[], Any] | None = None,
    tools: Callable[[], Sequence[Any]] | None = None,
    policies: Callable[[], Mapping[str, str]] | None = None,
) -> Responder:
    """A responder that runs the agent loop (client-side tools, approval, iteration limit).

    Reaching the iteration limit raises :class:`~forge_cli.errors.ToolIterationLimitError`
    after the final snapshot was yielded, so the partial answer is shown and kept. ``tools``
    gives extra tools per request (MCP servers' tools), ``policies`` their approval policies.
    """
    from forge_cli.agent import LoopFinished, build_agent
    from forge_cli.tools.approval import ApprovalPolicy

    async def respond(request: Request) -> AsyncIterator[Response | object]:
        per_tool: dict[str, Any] = dict(policies()) if policies is not None else {}
        agent = build_agent(
            backend,
            request,
            tools=list(tools()) if tools is not None else (),
            approval=ApprovalPolicy(per_tool=per_tool) if per_tool else None,
            functions=functions,
            max_iterations=max_iterations,
            assume_yes=assume_yes,
            approver=approver,
            knowledge_store=knowledge_store() if knowledge_store is not None else None,
        )
        async for update in agent.run():
            if isinstance(update, LoopFinished):
                yield update.result.response
                update.result.raise_for_status()
                return
            yield update

    return respond
