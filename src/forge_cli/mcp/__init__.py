"""MCP both ways: MCP servers as tool sources, and the knowledge store as an MCP server.

Importing this package is cheap: exports resolve lazily, and the ``mcp`` SDK (with its HTTP
stack) is imported only inside the functions that talk MCP, so ``forge --version``, ``--help``
and runs without MCP never load it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli._lazy import lazy_exports

if TYPE_CHECKING:
    from forge_cli.mcp.client import CallOutcome, McpConnection, McpToolInfo
    from forge_cli.mcp.config import (
        McpServerSpec,
        expand_secrets,
        parse_cli_spec,
        resolve_specs,
        spec_from_table,
    )
    from forge_cli.mcp.http_mount import McpEndpoint, mount_knowledge_mcp
    from forge_cli.mcp.knowledge_server import build_knowledge_server
    from forge_cli.mcp.live import LiveCall, LiveCalls
    from forge_cli.mcp.manager import McpManager
    from forge_cli.mcp.present import present
    from forge_cli.mcp.tools import McpTool, McpToolError, tool_name

_WHERE = {
    "CallOutcome": "client",
    "LiveCall": "live",
    "LiveCalls": "live",
    "McpConnection": "client",
    "McpEndpoint": "http_mount",
    "McpManager": "manager",
    "McpServerSpec": "config",
    "McpTool": "tools",
    "McpToolError": "tools",
    "McpToolInfo": "client",
    "build_knowledge_server": "knowledge_server",
    "expand_secrets": "config",
    "mount_knowledge_mcp": "http_mount",
    "parse_cli_spec": "config",
    "present": "present",
    "resolve_specs": "config",
    "spec_from_table": "config",
    "tool_name": "tools",
}

__all__ = [
    "CallOutcome",
    "LiveCall",
    "LiveCalls",
    "McpConnection",
    "McpEndpoint",
    "McpManager",
    "McpServerSpec",
    "McpTool",
    "McpToolError",
    "McpToolInfo",
    "build_knowledge_server",
    "expand_secrets",
    "mount_knowledge_mcp",
    "parse_cli_spec",
    "present",
    "resolve_specs",
    "spec_from_table",
    "tool_name",
]

__getattr__ = lazy_exports(__name__, _WHERE)
