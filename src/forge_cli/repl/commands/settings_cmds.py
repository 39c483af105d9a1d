"""Slash commands that change what the next request asks for (the conversation's settings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli.config.settings import EFFORTS, TOOL_NAMES
from forge_cli.config.tools import LOCAL_UNAVAILABLE_TOOLS
from forge_cli.errors import ForgeError, UsageError
from forge_cli.repl.commands.registry import CommandResult, command
from forge_cli.repl.commands.session_cmds import ON_OFF, on_off
from forge_cli.repl.layout import Block, Columns, Para
from forge_cli.wording import plural

if TYPE_CHECKING:
    from forge_cli.repl.commands.context import CommandSession


def _tool_list(session: CommandSession) -> list[Para]:
    enabled = session.settings.tools
    lines = [f"  [{'x' if name in enabled else ' '}] {name}" for name in TOOL_NAMES]
    lines += [f"  [x] functions of {path}" for path in session.function_files]
    return [Para(line, hang=6) for line in lines]  # a long path wraps under the name


@command("tools", "List tools and whether each is on")
async def tools_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    return CommandResult(message=[Para("Tools:"), *_tool_list(session)])


@command("tool", "Turn a tool on or off", usage="/tool on|off NAME", arguments=("on", "off"))
async def tool_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    if len(args) != 2:
        raise UsageError("usage: /tool on|off NAME", hint=f"tools: {', '.join(TOOL_NAMES)}")
    enable = on_off(args[:1], "tool")
    name = args[1].lower().replace("_", "-")
    if name not in TOOL_NAMES:
        raise UsageError(f"unknown tool {name!r}", hint=f"tools: {', '.join(TOOL_NAMES)}")
    if enable and session.conversation.api == "local" and name in LOCAL_UNAVAILABLE_TOOLS:
        raise UsageError(f"{name} is not available here ({LOCAL_UNAVAILABLE_TOOLS[name]})")
    tools = [t for t in session.settings.tools if t != name]
    if enable:
        tools.append(name)
    session.settings.tools = tools
    return CommandResult(message=f"{name} {'on' if enable else 'off'}.")


async def _vs_list(session: CommandSession) -> list[Block]:
    active = session.settings.vector_stores
    lines: list[Block] = [Para(f"Active: {', '.join(active) or 'none'}", hang=len("Active: "))]
    if session.knowledge is not None:
        stores = await session.knowledge.list_vector_stores()
        session.vector_store_cache = list(
            dict.fromkeys([*(s.id for s in stores), *(s.name for s in stores if s.name)])
        )
        rows: list[tuple[str, str]] = []
        for store in stores:
            # ``--vs NAME`` keeps the name it was given; ``/vs use`` stores ids.
            mark = "*" if store.id in active or (store.name and store.name in active) else " "
            count = plural(store.file_counts.total, "file")
            rows.append((f"{mark} {store.id}", f"{store.name} ({count})"))
        lines.append(Columns(rows, indent=1, max_left=40))
    return lines


async def _known(session: CommandSession, refs: list[str]) -> list[str]:
    """``refs`` resolved to store ids; an unknown or ambiguous name is refused now, not at the
    next question."""
    if session.knowledge is None:
        return refs
    from forge_cli.knowledge.client import resolve_vector_store

    return [(await resolve_vector_store(session.knowledge, ref)).id for ref in refs]


async def _aliases(session: CommandSession, refs: list[str]) -> set[str]:
    """``refs`` with the id and name of each store they name: a store made active by name
    (``--vs NAME``) is removed by its id, and one made active by id by its name. A ref that
    names no store (deleted since) stays as it is."""
    found = set(refs)
    if session.knowledge is not None:
        for store in await session.knowledge.list_vector_stores():
            if store.id in found or (store.name and store.name in found):
                found |= {store.id, *([store.name] if store.name else [])}
    return found


@command(
    "vs",
    "Vector stores: list, add, remove, clear, use",
    usage="/vs list|add|remove|clear|use [ID...]",
    arguments=("list", "add", "remove", "clear", "use"),
)
async def vs_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    action, ids = (args[0].lower(), args[1:]) if args else ("list", [])
    current = list(session.settings.vector_stores)
    if action == "list":
        return CommandResult(message=await _vs_list(session))
    if action == "clear":
        current = []
    elif action in ("add", "use") and ids:
        ids = await _known(session, ids)
        current = ids if action == "use" else current + [i for i in ids if i not in current]
    elif action == "remove" and ids:
        gone = await _aliases(session, ids)
        current = [i for i in current if i not in gone]
    else:
        raise UsageError("usage: /vs list|add|remove|clear|use [ID...]")
    session.settings.vector_stores = current
    if current and "file-search" not in session.settings.tools:
        session.settings.tools = [*session.settings.tools, "file-search"]
    return CommandResult(message=f"Vector stores: {', '.join(current) or 'none'}.")


@command(
    "model",
    "Show or set the model; without a name, list the backend's models",
    usage="/model [NAME]",
)
async def model_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    models: list[str] | None = None
    if session.list_models is not None and (not args or session.models_are_fixed):
        try:
            models = await session.list_models()
        except ForgeError as exc:
            if args:
                raise
            return CommandResult(message=f"Model: {_current(session)}. ({exc.one_line()})")
    if args:
        if session.models_are_fixed and models is not None and args[0] not in models:
            raise UsageError(
                f"the built-in engine cannot answer as {args[0]!r} (it answers as "
                f"{', '.join(models)})",
                hint="set engine.upstream_model to use a model",
            )
        session.settings.model = args[0]
        return CommandResult(message=f"Model: {_current(session)}.")
    lines = [Para(f"Model: {_current(session)}.", hang=2)]
    if models:
        shown = models[:40]
        lines.append(Para(f"Models offered ({len(models)}):"))
        lines += [
            Para(f"  {'*' if name == _current(session) else ' '} {name}", hang=4) for name in shown
        ]
        if len(models) > len(shown):
            lines.append(Para(f"  ... and {len(models) - len(shown)} more"))
    return CommandResult(message=lines)


def _current(session: CommandSession) -> str:
    return session.settings.model or session.default_model or "default"


@command("effort", "Show or set the reasoning effort", usage="/effort [LEVEL]", arguments=EFFORTS)
async def effort_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    if args:
        level = args[0].lower()
        if level not in EFFORTS:
            raise UsageError(f"unknown effort {level!r}", hint=f"one of {', '.join(EFFORTS)}")
        session.settings.effort = level
    return CommandResult(message=f"Effort: {session.settings.effort or 'default'}.")


@command(
    "instructions", "Show, set or clear (with -) the instructions", usage="/instructions [TEXT]"
)
async def instructions_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    if args:
        text = " ".join(args)
        session.settings.instructions = None if text == "-" else text
    return CommandResult(message=f"Instructions: {session.settings.instructions or '(none)'}")


@command(
    "reasoning", "Show or hide the model's reasoning", usage="/reasoning on|off", arguments=ON_OFF
)
async def reasoning_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    session.settings.reasoning = on_off(args, "reasoning")
    return CommandResult(
        message=f"Reasoning {'shown' if session.settings.reasoning else 'hidden'}."
    )
