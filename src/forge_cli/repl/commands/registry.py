"""The slash-command registry: small handlers that return values, looked up by name or alias.

A handler gets the chat session (as :class:`~forge_cli.repl.commands.context.CommandSession`,
the part of it commands use) and the arguments (split like a shell would, so quoted paths
with spaces work) and returns a :class:`CommandResult`; it never prints control flow decisions
itself and never ends the session by raising. Errors are raised as :mod:`forge_cli.errors` types
and the session prints them as one line.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from forge_cli.errors import UsageError

if TYPE_CHECKING:
    from forge_cli.repl.commands.context import CommandSession
    from forge_cli.repl.layout import Block

__all__ = ["REGISTRY", "Command", "CommandRegistry", "CommandResult", "Handler", "command"]


@dataclass(frozen=True)
class CommandResult:
    """What a command asks the session to do next: print, send a message, or exit.

    ``message`` is plain text or layout blocks (:mod:`forge_cli.repl.layout`); the session fits
    either to the terminal's width.
    """

    message: str | Sequence[Block] | None = None
    send: str | None = None
    exit: bool = False


Handler = Callable[["CommandSession", list[str]], Awaitable[CommandResult]]


@dataclass(frozen=True)
class Command:
    """One slash command."""

    name: str
    summary: str
    handler: Handler
    usage: str = ""
    aliases: tuple[str, ...] = field(default=())
    arguments: tuple[str, ...] = field(default=())
    """Words completed after the command name (sub-commands like ``on``/``off``)."""


class CommandRegistry:
    """Commands by name and alias; names and aliases are unique."""

    def __init__(self) -> None:
        self._commands: dict[str, Command] = {}
        self._lookup: dict[str, Command] = {}

    def add(self, cmd: Command) -> None:
        """Register ``cmd``; a clash of names or aliases is a programming error."""
        for key in (cmd.name, *cmd.aliases):
            if key in self._lookup:
                raise ValueError(f"slash command /{key} is registered twice")
            self._lookup[key] = cmd
        self._commands[cmd.name] = cmd

    def get(self, name: str) -> Command | None:
        """The command called ``name`` (or aliased so)."""
        return self._lookup.get(name.lower())

    def __iter__(self) -> Iterator[Command]:
        return iter(self._commands.values())

    def names(self) -> list[str]:
        """Every name and alias, for completion."""
        return sorted(self._lookup)

    def parse(self, line: str) -> tuple[Command, list[str]]:
        """Split ``/name args...``; an unknown name or bad quoting is a UsageError."""
        body = line.strip()[1:]
        try:
            words = shlex.split(body)
        except ValueError as exc:
            raise UsageError(f"cannot parse command: {exc}") from None
        if not words:
            raise UsageError("empty command", hint="type /help for the list")
        cmd = self.get(words[0])
        if cmd is None:
            raise UsageError(f"unknown command /{words[0]}", hint="type /help for the list")
        return cmd, words[1:]


REGISTRY = CommandRegistry()
"""The built-in commands (filled by the ``builtin_*`` modules on import)."""


def command(
    name: str,
    summary: str,
    *,
    usage: str = "",
    aliases: tuple[str, ...] = (),
    arguments: tuple[str, ...] = (),
) -> Callable[[Handler], Handler]:
    """Register the decorated handler in :data:`REGISTRY`."""

    def register(handler: Handler) -> Handler:
        REGISTRY.add(Command(name, summary, handler, usage or f"/{name}", aliases, arguments))
        return handler

    return register
