"""``/mcp`` on ``forge serve``: the knowledge MCP server over streamable HTTP.

The endpoint is an ordinary route of the ``forge serve`` app, so every rule of that app applies to
it unchanged: the bearer token, and the Origin/Host checks of its middleware. The SDK's own DNS
rebinding check is therefore switched off here (one set of rules, in one place).

``forge serve`` runs uvicorn without a lifespan, so the SDK's session manager (which needs a task
group) is started on the first request, in the server's event loop, and lives until the loop ends.
Sessions are stateless: each POST is answered on its own (progress arrives on its SSE response),
nothing is kept between requests, and nothing leaks when a client goes away.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from forge_cli.knowledge import KnowledgeStore

__all__ = ["MCP_PATH", "McpEndpoint", "mount_knowledge_mcp"]

MCP_PATH = "/mcp"


class McpEndpoint:
    """An ASGI app that hands requests to the SDK's session manager, started on first use."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self._manager = manager
        self._ready: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._ensure_running()
        await self._manager.handle_request(scope, receive, send)

    async def _ensure_running(self) -> None:
        if self._ready is None:
            self._ready = asyncio.Event()
            self._holder = asyncio.get_running_loop().create_task(self._hold(self._ready))
        await self._ready.wait()

    async def _hold(self, ready: asyncio.Event) -> None:
        async with self._manager.run():
            ready.set()
            await asyncio.Event().wait()  # until the server's loop cancels this task


def mount_knowledge_mcp(app: Starlette, store: KnowledgeStore) -> None:
    """Add ``/mcp`` (the knowledge MCP server over ``store``) to a ``forge serve`` app."""
    from mcp.server.transport_security import TransportSecuritySettings

    from forge_cli.mcp.knowledge_server import build_knowledge_server

    server = build_knowledge_server(store)
    server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    endpoint = McpEndpoint(server.session_manager)
    app.router.routes.append(Route(MCP_PATH, endpoint=endpoint, methods=["GET", "POST", "DELETE"]))
