"""Slash commands over saved conversations: save, load, list, export."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from forge_cli.conversations.export import to_json, to_markdown, write_export
from forge_cli.conversations.store import ConversationStore
from forge_cli.errors import UsageError
from forge_cli.repl.commands.registry import CommandResult, command
from forge_cli.repl.layout import Block, Columns, Para
from forge_cli.wording import plural

if TYPE_CHECKING:
    from forge_cli.repl.commands.context import CommandSession


def _store(session: CommandSession) -> ConversationStore:
    if session.store is None:
        raise UsageError("conversations are not being saved in this session")
    return session.store


@command("save", "Save the conversation, optionally naming it", usage="/save [NAME]")
async def save_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    store = _store(session)
    if args:
        session.conversation.name = " ".join(args)
    path = store.save(session.conversation)
    return CommandResult(message=f"Saved {session.conversation.id} to {path}")


@command("load", "Load a saved conversation by id or name", usage="/load ID")
async def load_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    if len(args) != 1:
        raise UsageError("usage: /load ID")
    store = _store(session)
    loaded = store.load(args[0])
    session.save()
    session.replace_conversation(loaded)
    return CommandResult(
        message=f"Loaded {loaded.id}: {loaded.title} ({plural(len(loaded.turns), 'turn')})"
    )


CONVERSATIONS_SHOWN = 20
"""How many saved conversations ``/conversations`` lists without an argument (the newest)."""

_CONVERSATIONS_USAGE = "/conversations [N|all]"


@command(
    "conversations",
    f"List the newest saved conversations ({CONVERSATIONS_SHOWN}; N or all for more)",
    usage=_CONVERSATIONS_USAGE,
    arguments=("all",),
)
async def conversations_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    limit = _conversations_limit(args)
    listing = _store(session).newest(limit)  # newest first; older files are not read
    conversations = listing.conversations
    shown = conversations if limit is None else conversations[:limit]
    rows = [
        (
            f"{conv.id}  {time.strftime('%Y-%m-%d %H:%M', time.localtime(conv.updated_at))}",
            f"{plural(len(conv.turns), 'turn'):>9}  {conv.title}",
        )
        for conv in shown
    ]
    problems = listing.problems if limit is None else listing.problems[:_PROBLEMS_SHOWN]
    # Wide: "ID  DATE    N turns  TITLE", the title wrapping under itself; narrow: the turns
    # and the title under the id.
    lines: list[Block] = [Columns(rows, max_left=40, right_hang=11)] if rows else []
    lines += [Para(f"  ! {problem}", hang=4) for problem in problems]
    hidden = len(conversations) - len(shown) + listing.unread
    unlisted = len(listing.problems) - len(problems)
    if hidden or unlisted:
        more = [plural(hidden, "more conversation")] if hidden else []
        more += [plural(unlisted, "more unreadable file")] if unlisted else []
        lines.append(
            Para(
                f"... and {' and '.join(more)} (/conversations all lists every one, "
                "/conversations N the newest N)",
                hang=4,
            )
        )
    if not lines:
        return CommandResult(message="No saved conversations.")
    return CommandResult(message=lines)


_PROBLEMS_SHOWN = 5


def _conversations_limit(args: list[str]) -> int | None:
    """How many ``/conversations`` lists: ``None`` for all."""
    if not args:
        return CONVERSATIONS_SHOWN
    if len(args) == 1 and args[0].lower() == "all":
        return None
    if len(args) == 1 and args[0].isdigit() and int(args[0]) > 0:
        return int(args[0])
    raise UsageError(f"usage: {_CONVERSATIONS_USAGE}")


@command(
    "export",
    "Export the conversation as Markdown or JSON",
    usage="/export md|json PATH [--force]",
    arguments=("md", "json"),
)
async def export_cmd(session: CommandSession, args: list[str]) -> CommandResult:
    force = "--force" in args
    args = [arg for arg in args if arg != "--force"]
    if len(args) != 2 or args[0] not in ("md", "json"):
        raise UsageError("usage: /export md|json PATH [--force]")
    text = to_markdown(session.conversation) if args[0] == "md" else to_json(session.conversation)
    path = Path(args[1]).expanduser()
    try:
        write_export(path, text, overwrite=force)
    except FileExistsError:
        raise UsageError(f"{path} exists", hint="add --force to replace it") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return CommandResult(message=f"Exported to {path}")
