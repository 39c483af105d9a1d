"""A test MCP server written with the SDK: arithmetic, progress, errors, a crash and a hang.

Run over stdio (``python tools_server.py``); tests also mount :func:`build` over HTTP in-process.
It writes one line to stderr when it starts, so tests can find it in the server's log file.
"""

from __future__ import annotations

import asyncio
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel


class Sum(BaseModel):
    """A structured result."""

    total: int


def build() -> MCPServer:
    """The server and its tools."""
    server = MCPServer("tools", log_level="WARNING")

    @server.tool()
    def add(a: int, b: int) -> Sum:
        """Add two integers."""
        return Sum(total=a + b)

    @server.tool()
    def echo(text: str) -> str:
        """Say the text back."""
        return f"echo: {text}"

    @server.tool()
    async def steps(count: int, ctx: Context) -> str:
        """Report progress for each of COUNT steps."""
        for step in range(1, count + 1):
            await ctx.report_progress(step, count, f"step {step} of {count}")
        return f"did {count} steps"

    @server.tool()
    def fail(message: str) -> str:
        """Always fail with MESSAGE."""
        raise ToolError(message)

    @server.tool()
    def crash() -> str:
        """Kill the server process in the middle of the call."""
        sys.stderr.write("tools server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)

    cancelled = asyncio.Event()

    @server.tool()
    async def hang() -> str:
        """Never answer (until cancelled)."""
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "unreachable"

    @server.tool()
    async def was_cancelled() -> str:
        """Whether a hanging call was cancelled by the client (waits up to 10 s for it)."""
        try:
            await asyncio.wait_for(cancelled.wait(), 10)
        except TimeoutError:
            return "no"
        return "yes"

    return server


if __name__ == "__main__":
    sys.stderr.write("tools server: started\n")
    sys.stderr.flush()
    build().run()
