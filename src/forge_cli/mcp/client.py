"""MCP servers as tool sources: one connection per server, started lazily, closed on exit.

A :class:`McpConnection` owns the SDK client in a task of its own (the SDK's cancel scopes must
be entered and left in one task); tool calls from the agent loop's tasks go through it. It starts
on first use, once: a server that cannot start, or that dies later, is reported in one line and
its tools are left out, and the chat goes on. A stdio server's stderr goes to a log file (mode
0600) in the log directory, never to the terminal. :class:`McpManager` holds the connections of
one session and turns their tools into :class:`~forge_cli.tools.BaseTool` values named
``server__tool``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from forge_cli.__about__ import __version__
from forge_cli.errors import ConfigError
from forge_cli.mcp.config import McpServerSpec, expand_secrets
from forge_cli.mcp.stdio import SdkLogTally, route_sdk_client_logs
from forge_cli.privacy import private_dir
from forge_cli.sanitize import sanitize_inline

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import CallToolResult

__all__ = [
    "CallOutcome",
    "McpConnection",
    "McpToolInfo",
    "ProgressSink",
    "State",
    "log_dir",
]

_log = logging.getLogger(__name__)

State = Literal["idle", "starting", "ready", "failed", "dead", "closed"]

ProgressSink = Callable[[float, float | None, str | None], None]
"""Receives ``(progress, total, message)`` from MCP progress notifications."""

_CLOSE_TIMEOUT = 5.0
_CONNECTION_CLOSED = -32000
"""JSON-RPC code the SDK uses when the transport closed under a pending request."""
_MAX_TOOL_PAGES = 20


def log_dir() -> Path:
    """Where MCP server logs go: ``logs/`` in the data directory."""
    from forge_cli.config import data_dir

    return data_dir() / "logs"


@dataclass(frozen=True, slots=True)
class McpToolInfo:
    """One tool a server offers: its MCP name, description, input schema and hints."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    read_only: bool = False


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """A finished call: the text the model reads, the structured content, and whether it failed."""

    text: str
    structured: Any = None
    is_error: bool = False


@dataclass
class _Running:
    client: Client
    closing: asyncio.Event = field(default_factory=asyncio.Event)


def _one_line(exc: BaseException) -> str:
    """A short reason from an exception (or the first leaf of an exception group)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, FileNotFoundError | PermissionError) and exc.filename:
        text = f"{exc.strerror or type(exc).__name__}: {exc.filename}"
    return " ".join(sanitize_inline(text).split())[:300]


class McpConnection:
    """One MCP server of a session: started on first use, once; closed by :meth:`aclose`."""

    def __init__(self, spec: McpServerSpec, *, start_timeout: float | None = None):
        self.spec = spec
        self.start_timeout = start_timeout if start_timeout is not None else spec.start_timeout
        self.state: State = "idle"
        self.error: str | None = None
        self.tools: list[McpToolInfo] = []
        self.log_path: Path | None = None
        self._running: _Running | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._lock = asyncio.Lock()

    @property
    def name(self) -> str:
        """The server's name (the prefix of its tools)."""
        return self.spec.name

    async def start(self) -> bool:
        """Start the server and list its tools (once); ``True`` when it is ready."""
        async with self._lock:
            if self.state == "idle":
                self.state = "starting"
                loop = asyncio.get_running_loop()
                self._ready = loop.create_future()
                self._task = loop.create_task(self._hold(self._ready), name=f"mcp:{self.name}")
                try:
                    await asyncio.wait_for(asyncio.shield(self._ready), self.start_timeout)
                except TimeoutError:
                    self._fail(f"did not start within {self.start_timeout:g} s")
                    await self._stop_task(wait=False)
                except Exception as exc:
                    self._fail(_one_line(exc))
        return self.state == "ready"

    def _fail(self, reason: str) -> None:
        self.state = "failed"
        self.error = reason

    async def _hold(self, ready: asyncio.Future[None]) -> None:
        """The connection's own task: enter the client, list tools, wait for close."""
        try:
            async with AsyncExitStack() as stack:
                client = await self._connect(stack)
                self.tools = await _list_tools(client)
                running = _Running(client)
                self._running = running
                self.state = "ready"
                ready.set_result(None)
                await running.closing.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(RuntimeError(_one_line(exc)))
            elif self.state == "ready":
                self.state, self.error = "dead", _one_line(exc)
            if isinstance(exc, Exception):
                return  # reported through the state; a BaseException (exit) propagates
            raise
        finally:
            self._running = None

    async def _connect(self, stack: AsyncExitStack) -> Client:
        from mcp import Client
        from mcp.types import Implementation

        info = Implementation(name="forge", version=__version__)
        transport = await self._transport(stack)
        client = Client(transport, client_info=info, cache=None)
        return await stack.enter_async_context(client)

    async def _transport(self, stack: AsyncExitStack) -> Any:
        spec = self.spec
        where = f"MCP server {spec.name!r}"
        if spec.url:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            headers = {k: expand_secrets(v, where=where) for k, v in spec.headers.items()}
            http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
            await stack.enter_async_context(http)
            return streamable_http_client(spec.url, http_client=http)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        env = {k: expand_secrets(v, where=where) for k, v in spec.env.items()}
        params = StdioServerParameters(
            command=spec.command or "", args=list(spec.args), env=env or None, cwd=spec.cwd
        )
        errlog = stack.enter_context(self._open_log())
        # The SDK logs each line of a server's output that is not a message, with a traceback:
        # the first goes to the server's log as one line, the rest are counted (issue 29).
        route_sdk_client_logs()
        stack.enter_context(SdkLogTally(errlog).active())
        return stdio_client(params, errlog=errlog)

    def _open_log(self) -> TextIO:
        folder = log_dir()
        private_dir(folder)  # Forge's own: 0700, tightened when found looser
        safe = re.sub(r"[^A-Za-z0-9_-]", "_", self.name)
        path = folder / f"mcp-{safe}.log"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.fchmod(fd, 0o600)
        self.log_path = path
        handle = os.fdopen(fd, "a", encoding="utf-8", errors="replace")
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        handle.write(f"--- {stamp} forge started {self.spec.describe()}\n")
        handle.flush()
        return handle

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        report: ProgressSink | None = None,
    ) -> CallOutcome:
        """Call ``tool``; a transport failure marks the server dead and raises ``RuntimeError``."""
        running = self._running
        if running is None or self.state != "ready":
            raise RuntimeError(f"the MCP server {self.name!r} is not running ({self.reason()})")

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if report is not None:
                report(progress, total, message)

        from mcp import MCPError

        try:
            result = await running.client.call_tool(tool, arguments, progress_callback=on_progress)
        except MCPError as exc:
            if exc.code != _CONNECTION_CLOSED:
                return CallOutcome(f"MCP error: {exc}", is_error=True)
            # The server went away (crashed, or closed its output): it is dead for this session.
            self.state, self.error = "dead", "the connection closed (the server exited?)"
            running.closing.set()
            raise RuntimeError(f"the MCP server {self.name!r} stopped during the call") from exc
        except (asyncio.CancelledError, TimeoutError):
            raise
        except Exception as exc:
            if self._task is not None and self._task.done():
                self.state, self.error = "dead", self.error or _one_line(exc)
            raise RuntimeError(f"the MCP server {self.name!r} failed: {_one_line(exc)}") from exc
        return _outcome(result)

    def reason(self) -> str:
        """Why the server is not ready, in a few words."""
        if self.state in ("failed", "dead") and self.error:
            return f"{self.state}: {self.error}"
        return self.state

    async def aclose(self) -> None:
        """Stop the server (or the connection attempt); never hangs."""
        if self._running is not None:
            self._running.closing.set()
        await self._stop_task()
        if self.state in ("ready", "starting", "idle"):
            self.state = "closed"

    async def _stop_task(self, *, wait: bool = True) -> None:
        """Let the task finish (bounded), else cancel it; ``wait=False`` cancels at once."""
        task = self._task
        if task is None or task.done():
            return
        done: set[asyncio.Task[None]] = set()
        if wait:
            done, _ = await asyncio.wait({task}, timeout=_CLOSE_TIMEOUT)
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=_CLOSE_TIMEOUT)


async def _list_tools(client: Client) -> list[McpToolInfo]:
    found: list[McpToolInfo] = []
    cursor: str | None = None
    for _ in range(_MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            hints = tool.annotations
            found.append(
                McpToolInfo(
                    name=tool.name,
                    description=(tool.description or tool.title or "").strip(),
                    input_schema=dict(tool.input_schema or {"type": "object"}),
                    read_only=bool(hints is not None and hints.read_only_hint),
                )
            )
        cursor = page.next_cursor
        if not cursor:
            break
    return found


def _outcome(result: CallToolResult) -> CallOutcome:
    parts: list[str] = []
    for block in result.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(getattr(block, "text", "")))
        elif kind == "resource":
            resource = getattr(block, "resource", None)
            text = getattr(resource, "text", None)
            uri = getattr(resource, "uri", "")
            parts.append(str(text) if text is not None else f"[resource {uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource {getattr(block, 'uri', '')}]")
        else:
            mime = getattr(block, "mime_type", None) or getattr(block, "mimeType", None)
            parts.append(f"[{kind or 'content'}{f' {mime}' if mime else ''}]")
    structured = result.structured_content
    text = "\n".join(parts)
    if not text and structured is not None:
        import json

        text = json.dumps(structured, ensure_ascii=False)
    return CallOutcome(text, structured, bool(result.is_error))


def check_unique(specs: Sequence[McpServerSpec]) -> None:
    """Two servers with one name is a configuration error."""
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise ConfigError(f"two MCP servers are named {spec.name!r}")
        seen.add(spec.name)
