"""The responder that runs the agent loop (client-side tools, approval, iteration limit).

:data:`Responder`, :func:`backend_responder` and the turn runner live in
:mod:`forge_cli.agent.turn` (re-exported here); this module builds the agent for a request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from forge_cli.agent.turn import Responder, backend_responder
from forge_cli.backends.base import Backend
from forge_cli.protocol.request import Request

if TYPE_CHECKING:
    from forge_cli.agent.factory import AgentConfig
    from forge_cli.protocol.loop_events import AnswerUpdate

__all__ = ["Responder", "agent_responder", "backend_responder"]


def agent_responder(
    backend: Backend,
    *,
    functions: list[str],
    max_iterations: int,
    assume_yes: bool,
    approver: Any = None,
    knowledge_store: Callable[[], Any] | None = None,
    config: AgentConfig | None = None,
    tools: Callable[[], Sequence[Any]] | None = None,
    policies: Callable[[], Mapping[str, str]] | None = None,
) -> Responder:
    """A responder that runs the agent loop (client-side tools, approval, iteration limit).

    ``config`` carries the rest of the agent's settings (driver, tool choice, models); the
    keyword arguments override its fields. Reaching the iteration limit raises
    :class:`~forge_cli.errors.ToolIterationLimitError` after the final snapshot was yielded, so
    the partial answer is shown and kept. ``tools`` gives extra tools per request (MCP servers'
    tools) and ``policies`` their approval policies by name.
    """
    from dataclasses import replace

    from forge_cli.agent import AgentConfig, LoopFinished, build_agent
    from forge_cli.tools.approval import ApprovalPolicy

    base = config if config is not None else AgentConfig()

    async def respond(request: Request) -> AsyncIterator[AnswerUpdate]:
        run_config = replace(
            base,
            functions=functions,
            max_iterations=max_iterations,
            assume_yes=assume_yes,
            approver=approver,
            knowledge_store=(
                knowledge_store()
                if knowledge_store is not None and _has_hosted_tools(request)
                else None
            ),
        )
        if tools is not None:
            run_config = replace(run_config, tools=[*run_config.tools, *tools()])
        if policies is not None:
            approval = run_config.approval or ApprovalPolicy()
            per_tool: dict[str, Any] = {**approval.per_tool, **policies()}
            run_config = replace(run_config, approval=replace(approval, per_tool=per_tool))
        agent = build_agent(backend, request, run_config)
        async for update in agent.run():
            if isinstance(update, LoopFinished):
                yield update.result.response
                update.result.raise_for_status()
                return
            yield update

    return respond


def _has_hosted_tools(request: Request) -> bool:
    """Whether ``request`` offers tools the server would run (only those need the local store:
    the agent replaces them with client-side tools over it when the backend cannot run them)."""
    return any(tool.type != "function" for tool in request.tools)
