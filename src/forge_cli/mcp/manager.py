"""The MCP servers of one session: lazy start, their tools, toggles, notices, and closing.

Servers start the first time a turn needs tools, all at once, and only once; one that fails to
start (or dies later) gives one notice line and is left out, and the chat goes on. ``/mcp``
toggles servers and single tools; approval policies come from each server's spec.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from forge_cli.mcp.client import McpConnection, check_unique
from forge_cli.mcp.config import McpServerSpec
from forge_cli.mcp.live import LiveCalls
from forge_cli.mcp.tools import McpTool

__all__ = ["MAX_MCP_TOOLS", "McpManager"]

MAX_MCP_TOOLS = 100
"""MCP tools offered per request, so built-in and user tools keep room under the 128-tool cap."""


class McpManager:
    """Connections by server name, the live state of their calls, and what the user turned off."""

    def __init__(
        self, specs: Sequence[McpServerSpec], *, start_timeout: float | None = None
    ) -> None:
        """``start_timeout`` overrides each server's own (``start_timeout`` in its spec)."""
        check_unique(specs)
        self.connections = {s.name: McpConnection(s, start_timeout=start_timeout) for s in specs}
        self.live = LiveCalls()
        self.disabled_servers: set[str] = set()
        self.disabled_tools: set[str] = set()
        self._notices: list[str] = []
        self._reported: set[str] = set()
        self._tools: dict[str, McpTool] = {}
        self._known: dict[str, tuple[str, str]] = {}

    def __bool__(self) -> bool:
        return bool(self.connections)

    async def prepare(self) -> None:
        """Start every enabled server not started yet (concurrently) and note failures."""
        waiting = [
            conn
            for name, conn in self.connections.items()
            if conn.state == "idle" and name not in self.disabled_servers
        ]
        if waiting:
            await asyncio.gather(*(conn.start() for conn in waiting))
        self._refresh()

    def _refresh(self) -> None:
        tools: dict[str, McpTool] = {}
        for name, conn in self.connections.items():
            if conn.state in ("failed", "dead") and name not in self._reported:
                self._reported.add(name)
                verb = "could not start" if conn.state == "failed" else "stopped"
                where = f" (log: {conn.log_path})" if conn.log_path else ""
                url = f" at {conn.spec.describe()}" if conn.spec.url else ""
                self._notices.append(
                    f"MCP server {name!r}{url} {verb}: {conn.error}{where}; "
                    "going on without its tools"
                )
            if conn.state != "ready":
                continue
            for info in conn.tools:
                tool = McpTool(conn, info, self.live)
                if tool.name not in tools:
                    tools[tool.name] = tool
                    self._known[tool.name] = (name, info.name)
        self._tools = tools

    def current_tools(self) -> list[McpTool]:
        """The tools to offer now: ready, enabled servers; tools not turned off."""
        self._refresh()
        offered = [
            tool
            for tool in self._tools.values()
            if tool.server not in self.disabled_servers and tool.name not in self.disabled_tools
        ]
        if len(offered) > MAX_MCP_TOOLS and "__too_many__" not in self._reported:
            self._reported.add("__too_many__")
            self._notices.append(
                f"{len(offered)} MCP tools; only the first {MAX_MCP_TOOLS} are offered "
                "(turn servers or tools off with /mcp off NAME)"
            )
        return offered[:MAX_MCP_TOOLS]

    def all_tools(self) -> list[McpTool]:
        """Every tool of every ready server (enabled or not), for listings and completion."""
        self._refresh()
        return list(self._tools.values())

    def tool(self, name: str) -> McpTool | None:
        """The tool called ``name`` (``server__tool``), if any."""
        return self._tools.get(name)

    def lookup(self, name: str) -> tuple[str, str] | None:
        """(server, MCP tool name) of a tool ever offered as ``name``, even if its server died."""
        return self._known.get(name)

    def policies(self) -> Mapping[str, str]:
        """The approval policy of each tool, from its server's spec."""
        return {name: tool.connection.spec.approval for name, tool in self._tools.items()}

    def drain_notices(self) -> list[str]:
        """Notices since the last call (each failure is reported once)."""
        self._refresh()
        notices, self._notices = self._notices, []
        return notices

    async def aclose(self) -> None:
        """Stop every server; never hangs (each close is bounded)."""
        await asyncio.gather(*(conn.aclose() for conn in self.connections.values()))
