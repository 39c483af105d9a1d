"""``build_agent``: one call that wires a backend, tools, approval and a driver into a loop.

The CLI and the REPL call this instead of assembling the pieces: it loads ``--functions`` files,
turns hosted knowledge tools into client-side ones for backends that cannot run them (Chat
Completions), installs the approval hook last (so the prompt shows the final arguments), and
picks the driver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from forge_cli.agent.drivers.base import Driver
from forge_cli.agent.drivers.evaluator import EvaluatorDriver
from forge_cli.agent.drivers.react import ReActDriver
from forge_cli.agent.drivers.tool_calling import ToolCallingDriver
from forge_cli.agent.events import LoopUpdate, Notice
from forge_cli.agent.loop import DEFAULT_MAX_ITERATIONS, AgentLoop
from forge_cli.backends.base import Backend
from forge_cli.errors import UsageError
from forge_cli.protocol.request import Request, ToolChoice
from forge_cli.protocol.tools import FileSearchTool, FunctionTool, ListDocumentsTool, Tool
from forge_cli.tools.approval import ApprovalHook, ApprovalPolicy, Approver
from forge_cli.tools.base import BaseTool
from forge_cli.tools.builtin.knowledge import KnowledgeToolkit
from forge_cli.tools.executor import DEFAULT_MAX_RESULT_CHARS, DEFAULT_TOOL_TIMEOUT, ToolExecutor
from forge_cli.tools.hooks import AfterHook, BeforeHook
from forge_cli.tools.loader import load_functions
from forge_cli.tools.toolset import ToolSet

if TYPE_CHECKING:
    from forge_cli.knowledge import KnowledgeStore

__all__ = ["Agent", "DriverKind", "build_agent"]

DriverKind = Literal["tools", "react", "evaluator"]

_KNOWLEDGE_TOOLS = {
    "file_search": "file_search",
    "list_documents": "list_documents",
    "file_reader": "file_reader",
    "page_reader": "page_reader",
}


@dataclass
class Agent:
    """A ready loop and the request to run (hosted tools already translated)."""

    loop: AgentLoop
    request: Request
    notices: list[str] = field(default_factory=list)

    async def run(self) -> AsyncIterator[LoopUpdate]:
        """The setup notices as :class:`Notice` events, then the loop's updates."""
        for message in self.notices:
            yield Notice(message)
        async for update in self.loop.run(self.request):
            yield update


def build_agent(
    backend: Backend,
    request: Request,
    *,
    tools: Sequence[BaseTool] = (),
    functions: Sequence[str | Path] = (),
    knowledge_store: KnowledgeStore | None = None,
    driver: DriverKind | Driver = "tools",
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    approval: ApprovalPolicy | None = None,
    approver: Approver | None = None,
    assume_yes: bool = False,
    before_hooks: Sequence[BeforeHook] = (),
    after_hooks: Sequence[AfterHook] = (),
    tool_choice: ToolChoice | None = None,
    parallel_tool_calls: bool | None = None,
    parse_tool_call_tags: bool = True,
    evaluator_model: str | None = None,
    output_model: str | None = None,
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT,
    client_side_hosted_tools: bool | None = None,
    max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
) -> Agent:
    """Wire everything for one run. ``approver=None`` means a non-interactive run.

    ``client_side_hosted_tools`` (default: ``backend.name == "chat"``) replaces hosted
    knowledge tools in ``request.tools`` with the built-in client tools over
    ``knowledge_store``; hosted tools that cannot be replaced are dropped with a notice.
    """
    toolset = ToolSet(tools)
    for path in functions:
        for item in load_functions(path):
            _add(toolset, item, str(path))
    notices: list[str] = []
    if client_side_hosted_tools is None:
        client_side_hosted_tools = backend.name == "chat"
    if client_side_hosted_tools:
        request = _localise_hosted_tools(request, toolset, knowledge_store, notices)
    policy = approval or ApprovalPolicy()
    if assume_yes and not policy.assume_yes:
        policy = ApprovalPolicy(
            per_tool=policy.per_tool,
            read_only_default=policy.read_only_default,
            default=policy.default,
            assume_yes=True,
        )
    hooks: list[BeforeHook] = [*before_hooks, ApprovalHook(policy, toolset, approver)]
    executor = ToolExecutor(
        toolset,
        before_hooks=hooks,
        after_hooks=after_hooks,
        timeout=tool_timeout,
        max_result_chars=max_result_chars,
    )
    chosen = _driver(
        driver,
        tool_choice,
        parallel_tool_calls,
        parse_tool_call_tags,
        evaluator_model,
        output_model,
    )
    loop = AgentLoop(backend, chosen, executor, max_iterations=max_iterations)
    return Agent(loop, request, notices)


def _add(toolset: ToolSet, item: BaseTool, source: str) -> None:
    if item.name in toolset:
        raise UsageError(f"tool {item.name!r} from {source} is defined twice")
    toolset.add(item)


def _driver(
    kind: DriverKind | Driver,
    tool_choice: ToolChoice | None,
    parallel: bool | None,
    tags: bool,
    evaluator_model: str | None,
    output_model: str | None,
) -> Driver:
    if not isinstance(kind, str):
        return kind
    if kind == "react":
        return ReActDriver()
    calling = ToolCallingDriver(
        tool_choice=tool_choice, parallel_tool_calls=parallel, parse_tool_call_tags=tags
    )
    if kind == "evaluator":
        return EvaluatorDriver(calling, evaluator_model=evaluator_model, output_model=output_model)
    if kind == "tools":
        return calling
    raise UsageError(f"unknown agent driver {kind!r}; use tools, react or evaluator")


def _localise_hosted_tools(
    request: Request,
    toolset: ToolSet,
    store: KnowledgeStore | None,
    notices: list[str],
) -> Request:
    kept: list[Tool] = []
    wanted: list[str] = []
    store_ids: list[str] = []
    for tool in request.tools:
        if isinstance(tool, FunctionTool):
            kept.append(tool)
            continue
        if tool.type in _KNOWLEDGE_TOOLS and store is not None:
            wanted.append(_KNOWLEDGE_TOOLS[tool.type])
            if isinstance(tool, FileSearchTool | ListDocumentsTool):
                store_ids.extend(tool.vector_store_ids)
            continue
        notices.append(f"the {tool.type} tool is not available with this backend; left out")
    if store is not None and wanted:
        kit = KnowledgeToolkit(store, list(dict.fromkeys(store_ids)))
        for item in kit.tools():
            if item.name in wanted and item.name not in toolset:
                toolset.add(item)
    return request.model_copy(update={"tools": kept})
