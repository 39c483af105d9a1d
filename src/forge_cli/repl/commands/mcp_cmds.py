"""``/mcp``: list the session's MCP servers and their tools; turn servers or tools on and off."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli.errors import UsageError
from forge_cli.repl.commands.registry import CommandResult, command
from forge_cli.repl.layout import Para
from forge_cli.sanitize import sanitize_inline

if TYPE_CHECKING:
    from forge_cli.mcp.manager import McpManager
    from forge_cli.repl.commands.context import CommandSession

USAGE = "/mcp [list | on NAME | off NAME]"
_NAMES = "NAME is a server, or one tool as server__tool"


def _manager(session: CommandSession) -> McpManager:
    manager = session.mcp
    if not manager:
        raise UsageError(
            "no MCP servers in this session",
            hint='start with --mcp "COMMAND ARGS" or --mcp URL, or add [mcp.servers.NAME]',
        )
    return manager


def _listing(manager: McpManager) -> list[Para]:
    lines: list[Para] = []
    tools = manager.all_tools()
    for name, conn in manager.connections.items():
        off = name in manager.disabled_servers
        state = "off" if off else conn.reason()
        mine = [t for t in tools if t.server == name]
        count = f"{len(mine)} tool{'s' if len(mine) != 1 else ''}" if conn.state == "ready" else ""
        head = f"{name} · {conn.spec.transport} · {state}"
        head += f" · {count}" if count else ""
        head += f" · approval {conn.spec.approval}"
        lines.append(Para(sanitize_inline(head), hang=2))
        lines.append(Para(f"    {sanitize_inline(conn.spec.describe())}", hang=4))
        for tool in mine:
            mark = "-" if tool.name in manager.disabled_tools or off else "+"
            summary = tool.info.description.splitlines()[0] if tool.info.description else ""
            lines.append(Para(sanitize_inline(f"  {mark} {tool.name}  {summary[:70]}"), hang=6))
    return lines


def _toggle(manager: McpManager, name: str, on: bool) -> str:
    if name in manager.connections:
        (manager.disabled_servers.discard if on else manager.disabled_servers.add)(name)
        return f"MCP server {name} {'on' if on else 'off'}"
    if manager.tool(name) is not None:
        (manager.disabled_tools.discard if on else manager.disabled_tools.add)(name)
        return f"MCP tool {name} {'on' if on else 'off'}"
    raise UsageError(f"no MCP server or tool named {name!r}", hint="/mcp lists them")


@command("mcp", "MCP servers and tools", usage=USAGE,
         arguments=("list", "on", "off"))  # fmt: skip
async def mcp_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    manager = _manager(session)
    if not args or args == ["list"]:
        await manager.prepare()  # listing is a reason to start them
        notices = [Para(notice, hang=2) for notice in manager.drain_notices()]
        return CommandResult(message=[*notices, *_listing(manager)])
    if len(args) == 2 and args[0] in ("on", "off"):
        message = _toggle(manager, args[1], args[0] == "on")
        if args[0] == "on":
            await manager.prepare()
        return CommandResult(message=message)
    raise UsageError(f"usage: {USAGE} ({_NAMES})")
