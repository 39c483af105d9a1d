"""Build the objects a run needs from its Settings: backend, responder, view, stores.

Everything heavy is imported inside these functions, never at module import, so commands that
do not talk to a backend stay fast. Pieces built by other packages are looked up by name so a
missing piece gives a one-line error instead of a traceback.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from forge_cli.api_keys import check_api_key
from forge_cli.cli.endpoints import DEFAULT_BASE_URLS, api_key_env  # also exported here
from forge_cli.cli.local_store import engine_config, open_local_store
from forge_cli.config import Settings, conversations_dir
from forge_cli.config.tools import LOCAL_UNAVAILABLE_TOOLS
from forge_cli.errors import ConfigError, UsageError

if TYPE_CHECKING:  # pydantic and the protocol models load once ``forge ask``'s request is out
    from forge_cli.agent.factory import AgentConfig, DriverKind
    from forge_cli.backends.base import Backend, RequestSent
    from forge_cli.backends.http.early import EarlySending
    from forge_cli.conversations import Conversation, ConversationStore
    from forge_cli.knowledge import KnowledgeStore
    from forge_cli.mcp.manager import McpManager
    from forge_cli.protocol.loop_events import AnswerUpdate
    from forge_cli.protocol.request import Request, ToolChoice
    from forge_cli.render import Renderer
    from forge_cli.repl.turn import Responder
    from forge_cli.repl.view import RendererView, ViewFactory
    from forge_cli.startup import StartUp

__all__ = [
    "DEFAULT_BASE_URLS",
    "BackendOverride",
    "agent_config",
    "api_key_env",
    "apply_process_limits",
    "backend_overridden",
    "build_backend",
    "build_mcp",
    "build_responder",
    "build_store",
    "build_view_factory",
    "default_model",
    "early_sender",
    "engine_config",
    "first_request",
    "keep_conversation_model",
    "needs_agent",
    "new_conversation",
    "plain_first_request",
    "run_settings",
    "runnable_settings",
    "set_backend_override",
    "streams_straight",
    "tool_output_guard",
    "warn",
]

BackendOverride = Callable[[Settings], "Backend | None"]
"""Builds the backend for a run instead of the settings, or returns ``None`` to let them decide."""

_override: BackendOverride | None = None
_overridden: weakref.WeakSet[Backend] = weakref.WeakSet()


def set_backend_override(override: BackendOverride | None) -> None:
    """Route every backend the CLI builds through ``override`` (``None`` removes it).

    The seam for embedding the CLI with another backend, and how the test suite plugs in its
    scripted backend (``tests/helpers/testhook.py``); production code never sets it.
    """
    global _override
    _override = override


def early_sender(backend: Backend) -> EarlySending | None:
    """``backend`` when it can write a request before the typed request exists (the HTTP
    backends, ADR-0020), else ``None`` (the override's, the local engine)."""
    from forge_cli.backends.http.early import EarlySending

    if isinstance(backend, EarlySending) and not backend_overridden(backend):
        return backend
    return None


def backend_overridden(backend: Backend) -> bool:
    """Whether ``backend`` came from the override (it serves no knowledge API)."""
    return backend in _overridden


def build_backend(settings: Settings, *, on_request_sent: RequestSent | None = None) -> Backend:
    """The backend the settings ask for (or the installed override's). ``on_request_sent``: an
    HTTP backend calls it each time a request's body is written (``StartUp.request_sent``)."""
    apply_process_limits(settings)
    if _override is not None:
        backend = _override(settings)
        if backend is not None:
            _overridden.add(backend)
            return backend
    # Backends are imported here, not at module level: they pull in httpx2, openai or sqlite.
    if settings.api == "local":
        from forge_cli.engine.local import LocalBackend

        return LocalBackend(config=engine_config(settings))
    base_url = settings.base_url or DEFAULT_BASE_URLS[settings.api]
    key_env = api_key_env(settings)
    if settings.api_key is not None:
        check_api_key(settings.api_key, "the configured api_key")
    else:
        check_api_key(os.environ.get(key_env), f"${key_env}")
    if settings.api in ("responses", "knowledge-forge"):
        from forge_cli.backends.responses.backend import ResponsesBackend

        return ResponsesBackend(
            base_url,
            api_key=settings.api_key,
            api_key_env=key_env,
            read_timeout=settings.timeout,
            store=settings.store,
            limits=settings.limits(),
            dialect="knowledge-forge" if settings.api == "knowledge-forge" else "openai",
            on_request_sent=on_request_sent,
        )
    from forge_cli.backends.chat.backend import ChatCompletionsBackend

    return ChatCompletionsBackend(
        base_url=base_url,
        api_key=settings.api_key,
        api_key_env=key_env,
        timeout=settings.timeout,
        limits=settings.limits(),
        think_tags=settings.think_tags,
        on_request_sent=on_request_sent,
    )


def apply_process_limits(settings: Settings) -> None:
    """Limits that hold for the whole process: the JSON nesting limit of every parse of
    untrusted JSON (server events, tool arguments, ``forge serve`` request bodies)."""
    from forge_cli.jsonsafe import set_max_depth

    set_max_depth(settings.limits_max_json_depth)


def new_conversation(
    settings: Settings, conversation_id: str | None = None, *, checked: bool = True
) -> Conversation:
    """A fresh conversation whose settings come from the resolved run settings (with
    ``conversation_id`` when given, else a new id).

    ``checked=False`` builds it without pydantic's validation (``model_construct``), so its
    validators are not built yet (``forge chat`` draws its prompt first): the values are the
    resolved settings' own, already checked, and the same fields are set either way.
    """
    from forge_cli.conversations import Conversation, SessionSettings, strip_credentials

    conversation = Conversation if checked else Conversation.model_construct
    session = SessionSettings if checked else SessionSettings.model_construct
    ids: dict[str, Any] = {} if conversation_id is None else {"id": conversation_id}
    return conversation(
        **ids,
        api=settings.api,
        base_url=strip_credentials(settings.base_url),
        settings=session(
            model=settings.model,
            effort=settings.effort,
            tools=list(settings.tools),
            vector_stores=list(settings.vector_stores),
            instructions=settings.instructions,
            reasoning=settings.reasoning,
            max_iterations=settings.max_iterations,
            temperature=settings.temperature,
            top_p=settings.top_p,
            max_output_tokens=settings.max_output_tokens,
        ),
    )


def default_model(settings: Settings) -> str:
    """The model to request when none is set (the local engine picks its own)."""
    if settings.model:
        return settings.model
    if settings.api in ("chat",):
        listing = "forge models --api chat"
        if settings.base_url:
            from urllib.parse import urlsplit, urlunsplit

            url = urlsplit(settings.base_url)  # shown without credentials, query or fragment
            host = url.netloc.rsplit("@", 1)[-1]
            listing += f" --base-url {urlunsplit((url.scheme, host, url.path, '', ''))}"
        raise ConfigError(
            "no model set for the chat API",
            hint=f"use --model, FORGE_MODEL or a profile; `{listing}` lists the server's models",
        )
    return ""


def first_request(settings: Settings, text: str) -> dict[str, Any] | None:
    """A new conversation's first request for ``text`` as its Responses wire body, built as
    plain data (``conversations.first_request_wire``, ADR-0020), or ``None`` where it takes the
    typed request. ``forge ask`` derives the typed request from it (``Request.model_validate``)
    and sends it in the backend's dialect (:func:`plain_first_request`)."""
    from forge_cli.conversations.plain import first_request_wire

    return first_request_wire(
        text,
        model=settings.model,
        default_model=default_model(settings),
        instructions=settings.instructions,
        tools=settings.tools,
        effort=settings.effort,
        temperature=settings.temperature,
        top_p=settings.top_p,
        max_output_tokens=settings.max_output_tokens,
    )


def plain_first_request(
    settings: Settings, text: str, wire: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """The body :func:`first_request` (or ``wire``, when given) is sent as: for ``--api chat``
    its Chat Completions body (``conversations.first_chat_body``), else the wire body itself."""
    if wire is None:
        wire = first_request(settings, text)
    if wire is None or settings.api != "chat":
        return wire
    from forge_cli.conversations.plain import first_chat_body

    return first_chat_body(wire)


def warn(message: str) -> None:
    """``forge: warning: …`` on stderr, sanitised (one line)."""
    import click

    from forge_cli.sanitize import sanitize_inline

    click.echo(f"forge: warning: {sanitize_inline(message)}", err=True)


def run_settings(options: dict[str, Any]) -> Settings:
    """The settings of an ``ask`` or ``chat`` run: resolved, without tools the backend cannot
    run (named in a warning), store names resolved to ids for a Responses server (and in the
    local store, whose search the client runs, for a Chat Completions server)."""
    from forge_cli.cli.options import settings_from_options

    settings = runnable_settings(settings_from_options(options), warn)
    if settings.vector_stores and settings.api in ("responses", "chat"):
        import asyncio

        from forge_cli.cli.knowledge import resolve_store_refs

        settings = asyncio.run(resolve_store_refs(settings))
    return settings


def keep_conversation_model(settings: Settings, conversation: Conversation) -> Settings:
    """A continued conversation keeps its model unless the run names one."""
    if conversation.settings.model and not settings.model:
        return replace(settings, model=conversation.settings.model)
    return settings


def tool_output_guard(settings: Settings) -> contextlib.AbstractContextManager[None]:
    """With user tools, fds 1 and 2 stay Forge's (their raw writes are shown sanitised)."""
    if not settings.functions:
        return contextlib.nullcontext()
    from forge_cli.cli.fdguard import guard_stdio_fds

    return guard_stdio_fds()


def runnable_settings(settings: Settings, warn: Callable[[str], None]) -> Settings:
    """``settings`` without the tools its backend cannot run, each named through ``warn``."""
    if settings.vector_stores and not {"file-search", "list-documents"} & set(settings.tools):
        # Naming stores means searching them: --vs alone turns file search on (it was ignored).
        settings = replace(settings, tools=(*settings.tools, "file-search"))
    if settings.api != "local":
        return settings  # remote servers say so themselves; the chat API's loop gives notices
    dropped = [name for name in settings.tools if name in LOCAL_UNAVAILABLE_TOOLS]
    for name in dropped:
        warn(f"{name} is not available here ({LOCAL_UNAVAILABLE_TOOLS[name]}); left out")
    if not dropped:
        return settings
    return replace(settings, tools=tuple(t for t in settings.tools if t not in dropped))


def needs_agent(settings: Settings) -> bool:
    """The client runs a tool loop for every request: the user's functions, agent options,
    budgets. (Hosted tools over Chat Completions are decided per request: ``_per_request``.)"""
    return (
        bool(settings.functions)
        or settings.driver != "native"
        or settings.tool_choice is not None
        or settings.parallel_tools is not None
        or settings.tools_in_prompt is not None
        or settings.output_model is not None
        or settings.evaluator_model is not None
        or settings.max_time is not None
        or settings.token_budget is not None
    )


def streams_straight(settings: Settings, mcp: McpManager | None) -> bool:
    """Whether :func:`build_responder` hands every request straight to the backend (no agent
    loop, not even per request): ``forge ask`` may then send its request early (ADR 0020)."""
    return not needs_agent(settings) and mcp is None and settings.api != "chat"


def agent_config(settings: Settings) -> AgentConfig:
    """The agent settings of a run: driver, tool choice, parallel calls, models."""
    from forge_cli.agent.factory import AgentConfig

    choice: ToolChoice | None = None
    if settings.tool_choice in ("auto", "required", "none"):
        choice = settings.tool_choice  # type: ignore[assignment]
    elif settings.tool_choice is not None:
        choice = {"type": "function", "name": settings.tool_choice}
    if settings.driver != "evaluator" and settings.evaluator_model is not None:
        raise UsageError("--evaluator-model needs --driver evaluator")
    if settings.output_model is not None and settings.driver != "evaluator":
        raise UsageError("--output-model needs --driver evaluator")
    driver: DriverKind = {"native": "tools", "react": "react", "evaluator": "evaluator"}[
        settings.driver
    ]  # type: ignore[assignment]
    return AgentConfig(
        driver=driver,
        tool_choice=choice,
        parallel_tool_calls=settings.parallel_tools,
        tools_in_prompt=settings.tools_in_prompt,
        evaluator_model=settings.evaluator_model,
        output_model=settings.output_model,
        max_result_chars=settings.tools_max_result_chars,
        max_time=settings.max_time,
        token_budget=settings.token_budget,
    )


def build_mcp(values: tuple[str, ...] | list[str] | None) -> McpManager | None:
    """The session's MCP servers: ``[mcp.servers.*]`` of the config plus ``--mcp`` values.

    Nothing starts here (servers start on the first turn that needs tools); ``None`` when there
    are none, so runs without MCP never import it.
    """
    from forge_cli.config import ConfigFile

    tables = ConfigFile.load().mcp_servers
    if not values and not tables:
        return None
    from forge_cli.mcp.config import resolve_specs
    from forge_cli.mcp.manager import McpManager

    specs = resolve_specs(values or (), tables)
    return McpManager(specs) if specs else None


def build_responder(
    settings: Settings,
    backend: Backend,
    *,
    interactive: bool,
    mcp: McpManager | None = None,
    present_mcp: bool = True,
    start_up: StartUp | None = None,
) -> Responder:
    """What answers a request: the plain backend, or the agent loop for client-side tools.

    With MCP servers (``mcp``), their tools join the loop and their calls are shown as MCP calls
    (``present_mcp=False``: left as ``SERVER__TOOL`` function calls, for scoring). The plain
    backend's answer is folded once ``start_up``'s warm-up is done (``backend_responder``).
    """
    if not needs_agent(settings) and mcp is None:
        from forge_cli.repl.turn import backend_responder

        plain = backend_responder(backend, start_up=start_up)
        if streams_straight(settings, mcp):
            return plain
        return _per_request(plain, lambda: _agent(settings, backend, interactive, None, True))
    return _agent(settings, backend, interactive, mcp, present_mcp)


def _per_request(plain: Responder, make_agent: Callable[[], Responder]) -> Responder:
    """A Chat Completions server cannot run hosted tools (file search, web search...): a request
    that carries some -- from the settings or a ``/tools`` toggle in the chat -- goes through the
    agent loop, which runs them over the local store; any other streams straight from the
    server, as over the Responses API."""
    made: list[Responder] = []

    def respond(request: Request) -> AsyncIterator[AnswerUpdate]:
        if not request.tools:
            return plain(request)
        if not made:
            made.append(make_agent())
        return made[0](request)

    return respond


def _agent(
    settings: Settings,
    backend: Backend,
    interactive: bool,
    mcp: McpManager | None,
    present_mcp: bool,
) -> Responder:
    """The agent loop's responder (client-side tools, MCP tools, the agent options)."""
    import sys

    from forge_cli.repl.turn import agent_responder
    from forge_cli.tools.approval import TerminalApprover

    store = None
    if settings.api == "chat":

        def store() -> KnowledgeStore:
            return open_local_store(settings)

    responder = agent_responder(
        backend,
        functions=list(settings.functions),
        max_iterations=settings.max_iterations,
        assume_yes=settings.yes,
        approver=TerminalApprover(sys.stdin, sys.stderr) if interactive else None,
        knowledge_store=store,
        config=agent_config(settings),
        tools=mcp.current_tools if mcp is not None else None,
        policies=mcp.policies if mcp is not None else None,
    )
    if mcp is None:
        return responder
    from forge_cli.repl.mcp_turn import mcp_responder

    return mcp_responder(responder, mcp, present_calls=present_mcp)


def build_view_factory(
    settings: Settings,
    *,
    mode: str | None = None,
    stream: bool = True,
    one_shot: bool = False,
    start_up: StartUp | None = None,
) -> ViewFactory:
    """The terminal view of a turn: the render layer's renderer for the chosen mode.

    With ``start_up``, what the first update needs is imported on its warm-up thread once the
    first request is sent; the view waits for it before it builds the renderer."""
    import sys

    from forge_cli.render import choose_mode

    chosen = choose_mode(
        sys.stdout, json=mode == "json", jsonl=mode == "jsonl", plain=mode == "plain"
    )
    if start_up is not None:
        _warm_up_after_request(chosen, start_up)

    # A one-shot run prints its error once, as the CLI line; JSON keeps it in the document.
    report = not one_shot or chosen in ("json", "jsonl")

    def make() -> RendererView:
        from forge_cli.repl.view import RendererView

        def renderer() -> Renderer:
            from forge_cli.cli.output import closed_aware
            from forge_cli.render import make_renderer

            return make_renderer(
                chosen,
                stdout=closed_aware(sys.stdout),
                stderr=sys.stderr,
                ascii=settings.ascii,
                show_reasoning=settings.reasoning,
                show_errors=report,
            )

        return RendererView(
            renderer,
            stream=stream,
            report_errors=report,
            before_renderer=start_up.wait_for_imports if start_up is not None else None,
        )

    return make


_RENDERER_MODULES = {
    "rich": ("forge_cli.render.rich_renderer",),
    "plain": ("forge_cli.render.plain",),
    "json": ("forge_cli.render.json_renderer",),
    "jsonl": ("forge_cli.render.json_renderer",),
}


def _warm_up_after_request(mode: str, start_up: StartUp) -> None:
    """Import what the first update needs while the server works on the first request.

    The request goes out before these modules load (start-up); importing them once the first
    token arrives would delay its paint by the import time (benchmarks/bench_peers.py).
    """
    modules = (
        "forge_cli.stream",
        "forge_cli.stream.secrets",  # the fold's own lazy imports, needed by the first event
        "forge_cli.stream._merge",
        "forge_cli.stream.diagnostics",
        "forge_cli.protocol.parse",
        "forge_cli.protocol.response",
        "forge_cli.stream.folding",
        "forge_cli.stream.warm:warm_up_fold",  # the validators the first event builds on use
        "forge_cli.render.factory",
        *_RENDERER_MODULES.get(mode, ()),
    )

    def warm_up() -> None:
        start_up.import_in_background(modules)

    start_up.after_request_sent(warm_up)


def build_store() -> ConversationStore:
    """The saved-conversations directory of this user."""
    from forge_cli.conversations.store import ConversationStore

    return ConversationStore(conversations_dir())
