"""``build_agent``: one call that wires a backend, tools, approval and a driver into a loop.

The CLI and the REPL call this instead of assembling the pieces, with one :class:`AgentConfig`:
it loads ``--functions`` files, turns hosted knowledge tools into client-side ones for backends
that cannot run them (``Backend.runs_hosted_tools`` is false: Chat Completions), installs the
approval hook last (so the prompt shows the final arguments), and picks the driver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
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

__all__ = ["Agent", "AgentConfig", "DriverKind", "build_agent"]

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


@dataclass(frozen=True, slots=True)
class AgentConfig:
    """How to run the agent: tools, approval, driver, limits (all but the backend and request).

    The defaults are a non-interactive run with the tool-calling driver and no extra tools.
    """

    tools: Sequence[BaseTool] = ()
    """Tools to offer besides the ``functions`` files."""
    functions: Sequence[str | Path] = ()
    """``--functions`` files to load (a bad file is a one-line ``UsageError``)."""
    knowledge_store: KnowledgeStore | None = None
    """The store the client-side knowledge tools read when hosted tools are localised."""
    driver: DriverKind | Driver = "tools"
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    max_time: float | None = None
    """Seconds the run may take (``--max-time``); ``None``: no limit."""
    token_budget: int | None = None
    """Tokens the run may use (``--token-budget``); ``None``: no limit."""
    approval: ApprovalPolicy | None = None
    approver: Approver | None = None
    """Asks the user about a call; ``None`` means a non-interactive run."""
    assume_yes: bool = False
    before_hooks: Sequence[BeforeHook] = ()
    after_hooks: Sequence[AfterHook] = ()
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    parse_tool_call_tags: bool = True
    tools_in_prompt: bool | None = None
    """Describe function tools in the prompt (``True``), never (``False``), or only after the
    server refused the ``tools`` field (``None``)."""
    evaluator_model: str | None = None
    output_model: str | None = None
    tool_timeout: float | None = DEFAULT_TOOL_TIMEOUT
    client_side_hosted_tools: bool | None = None
    """Replace hosted knowledge tools with the built-in client tools over ``knowledge_store``
    (hosted tools that cannot be replaced are dropped with a notice). ``None``: exactly when the
    backend does not run hosted tools itself (``Backend.runs_hosted_tools``)."""
    max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS
    """The longest tool result sent to the model (``tools.max_result_chars``); ``None``: no cap."""


def build_agent(backend: Backend, request: Request, config: AgentConfig | None = None) -> Agent:
    """Wire everything for one run of ``request`` on ``backend`` as ``config`` says."""
    config = config or AgentConfig()
    toolset = ToolSet(config.tools)
    for path in config.functions:
        for item in load_functions(path):
            _add(toolset, item, str(path))
    notices: list[str] = []
    localise = config.client_side_hosted_tools
    if localise is None:
        localise = not backend.runs_hosted_tools
    if localise:
        request = _localise_hosted_tools(request, toolset, config.knowledge_store, notices)
    policy = config.approval or ApprovalPolicy()
    if config.assume_yes and not policy.assume_yes:
        policy = replace(policy, assume_yes=True)
    hooks: list[BeforeHook] = [*config.before_hooks, ApprovalHook(policy, toolset, config.approver)]
    executor = ToolExecutor(
        toolset,
        before_hooks=hooks,
        after_hooks=config.after_hooks,
        timeout=config.tool_timeout,
        max_result_chars=config.max_result_chars,
    )
    loop = AgentLoop(
        backend,
        _driver(config),
        executor,
        max_iterations=config.max_iterations,
        max_time=config.max_time,
        token_budget=config.token_budget,
    )
    return Agent(loop, request, notices)


def _add(toolset: ToolSet, item: BaseTool, source: str) -> None:
    if item.name in toolset:
        raise UsageError(f"tool {item.name!r} from {source} is defined twice")
    toolset.add(item)


def _driver(config: AgentConfig) -> Driver:
    kind = config.driver
    if not isinstance(kind, str):
        return kind
    if kind == "react":
        return ReActDriver()
    calling = ToolCallingDriver(
        tool_choice=config.tool_choice,
        parallel_tool_calls=config.parallel_tool_calls,
        parse_tool_call_tags=config.parse_tool_call_tags,
        tools_in_prompt=config.tools_in_prompt,
    )
    if kind == "evaluator":
        return EvaluatorDriver(
            calling, evaluator_model=config.evaluator_model, output_model=config.output_model
        )
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
        # A tool that names no store searches every local store, as the built-in engine does
        # (``/tool on file-search`` in a chat without ``--vs``).
        ids = list(dict.fromkeys(store_ids)) or [vs.id for vs in store.list_vector_stores()]
        kit = KnowledgeToolkit(store, ids)
        for item in kit.tools():
            if item.name in wanted and item.name not in toolset:
                toolset.add(item)
    return request.model_copy(update={"tools": kept})
