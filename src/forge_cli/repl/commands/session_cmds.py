"""Slash commands about the session itself: help, exit, clear, new, status, history, sources,
copy, retry, edit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from forge_cli.errors import UsageError
from forge_cli.repl.commands.registry import REGISTRY, CommandResult, command
from forge_cli.repl.layout import Columns, Para, numbered
from forge_cli.wording import plain_preview, shorten

if TYPE_CHECKING:
    from forge_cli.repl.commands.context import CommandSession

ON_OFF = ("on", "off")


def on_off(args: list[str], what: str) -> bool:
    """``on`` → True, ``off`` → False; anything else is a usage error."""
    if len(args) != 1 or args[0].lower() not in ON_OFF:
        raise UsageError(f"usage: /{what} on|off")
    return args[0].lower() == "on"


@command("help", "Show the commands", aliases=("?",))
async def help_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    rows = [(c.usage, _summary(c.summary, c.aliases)) for c in REGISTRY]
    return CommandResult(
        message=[
            Para("Commands (//text sends a message starting with /):", hang=2),
            Columns(rows),
            Para("Keys: Alt+Enter new line · Ctrl+C cancel answer · Ctrl+D quit", hang=2),
        ]
    )


def _summary(summary: str, aliases: tuple[str, ...]) -> str:
    return summary + (f" (also {', '.join('/' + a for a in aliases)})" if aliases else "")


@command("exit", "Leave the chat (it is saved)", aliases=("quit", "q"))
async def exit_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    return CommandResult(exit=True)


@command("clear", "Start over with the same settings; the transcript so far stays saved")
async def clear_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    old = session.conversation
    if not old.turns:
        return CommandResult(message="Nothing to clear.")
    session.save()
    fresh = old.fresh_copy()
    session.replace_conversation(fresh)
    if session.store is not None:
        session.store.save(fresh)  # saved at once: --resume continues the cleared chat
    return CommandResult(
        message=f"History cleared. The transcript so far is kept as {old.id} (/load {old.id})."
    )


@command("new", "Start a new conversation with the same settings")
async def new_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    session.save()
    session.replace_conversation(session.conversation.fresh_copy())
    return CommandResult(message=f"New conversation {session.conversation.id}.")


@command("status", "Show backend, model, tools, vector stores and tokens")
async def status_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    conv, settings = session.conversation, session.settings
    rows = [
        ("conversation", f"{conv.id}{f' ({conv.name})' if conv.name else ''}"),
        ("backend", f"{conv.api or '?'}{f' {conv.base_url}' if conv.base_url else ''}"),
        ("model", f"{settings.model or session.default_model or 'default'}"),
        ("effort", f"{settings.effort or 'default'}"),
        *_scope_rows(session),
        ("reasoning", f"{'shown' if settings.reasoning else 'hidden'}"),
        ("turns", f"{len(conv.turns)}"),
        ("tokens used", f"{conv.tokens_used}"),
    ]
    return CommandResult(message=[Columns(rows, indent=0, gap=1, min_right=16, under=2)])


def _scope_rows(session: CommandSession) -> list[tuple[str, str]]:
    settings = session.settings
    if not settings.tools and session.conversation.api == "local":
        scope = session.default_scope or "all stores"
        return [
            ("tools", "none enabled: the built-in engine runs file-search by default"),
            ("vector stores", f"{scope} (engine.default_vector_stores)"),
        ]
    return [
        ("tools", f"{', '.join(settings.tools) or 'none'}"),
        ("vector stores", f"{', '.join(settings.vector_stores) or 'none'}"),
    ]


@command("debug", "Turn debug output on or off", usage="/debug on|off", arguments=ON_OFF)
async def debug_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    from forge_cli.logs import set_debug

    session.debug = on_off(args, "debug")
    set_debug(session.debug)
    return CommandResult(message=f"Debug {'on' if session.debug else 'off'}.")


@command("history", "Show the last N exchanges (default 10)", usage="/history [N]")
async def history_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    try:
        count = int(args[0]) if args else 10
    except ValueError:
        raise UsageError("usage: /history [N]") from None
    turns = session.conversation.turns[-count:] if count > 0 else []
    if not turns:
        return CommandResult(message="No history yet.")
    entries: list[Para] = []
    width = session.columns
    for turn in turns:
        mark = "" if turn.status == "completed" else f" [{turn.status}]"
        question = shorten(" ".join(turn.user.split()), 200)
        # Plain text without the retrieval preamble; in a terminal, two lines decide the length.
        answer = shorten(plain_preview(turn.text[:4000]), 200 if width is None else 1000)
        # Each entry wraps under its own text, past the "you> " / "ai>  " label; the answer is a
        # preview in two lines at most, not the transcript (/export has it all).
        entries.append(Para(f"you> {question}", hang=5))
        entries.append(Para(f"ai>  {answer}", hang=5, max_lines=2, tail=mark))
    return CommandResult(message=entries)


@command("sources", "Show the sources of the last answer")
async def sources_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    from forge_cli.conversations.export import sources_of

    last = session.last_response
    sources = sources_of(last) if last is not None else []
    if not sources:
        return CommandResult(message="The last answer cited no sources.")
    return CommandResult(message=[numbered(n, label) for n, label in sources])


@command("copy", "Copy the last answer to the clipboard")
async def copy_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    from forge_cli.repl.clipboard import copy_text

    last = session.last_response
    text = last.output_text if last is not None else ""
    if not text.strip():
        raise UsageError("there is no answer to copy yet")
    try:
        how = copy_text(text, session.out)
    except OSError as exc:
        raise UsageError(f"cannot copy: {exc}") from None
    lines = text.count("\n") + 1
    noun = "line" if lines == 1 else "lines"
    return CommandResult(message=f"Copied the last answer ({lines} {noun}) via {how}.")


@command("retry", "Ask the last question again")
async def retry_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    turns = session.conversation.turns
    if not turns:
        raise UsageError("nothing to retry yet")
    last = turns.pop()
    return CommandResult(send=last.user)


@command("edit", "Write the next message in $EDITOR")
async def edit_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    if session.editor is None:
        raise UsageError("no editor available here", hint="set $EDITOR")
    text = session.editor(" ".join(args)).strip()
    if not text:
        return CommandResult(message="Empty message; nothing sent.")
    return CommandResult(send=text)
