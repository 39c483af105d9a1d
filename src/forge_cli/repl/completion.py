"""Completion for the REPL: commands, their sub-words, tool names, vector store ids, paths."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from forge_cli.config.settings import TOOL_NAMES

if TYPE_CHECKING:
    from forge_cli.repl.session import ChatSession

__all__ = ["ReplCompleter"]

_PATH_COMMANDS = frozenset({"upload", "export"})
_VS_COMMANDS = frozenset({"add", "remove", "use"})


class ReplCompleter(Completer):
    """Completes what the slash commands accept; plain messages get no completion."""

    def __init__(self, session: ChatSession) -> None:
        self.session = session
        self._paths = PathCompleter(expanduser=True)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or text.startswith("//") or "\n" in text:
            return
        from forge_cli.repl.commands import REGISTRY  # the first Tab, not the first prompt

        words = text[1:].split(" ")
        if len(words) == 1:
            for cmd in REGISTRY:
                for name in (cmd.name, *cmd.aliases):
                    if name.startswith(words[0]):
                        yield Completion(
                            "/" + name, start_position=-len(text), display_meta=cmd.summary
                        )
            return
        found = REGISTRY.get(words[0])
        if found is not None:
            yield from self._arguments(
                found.name, words[1:], found.arguments, document, complete_event
            )

    def _arguments(
        self,
        name: str,
        args: list[str],
        choices: tuple[str, ...],
        document: Document,
        event: CompleteEvent,
    ) -> Iterable[Completion]:
        current = args[-1]
        candidates: Iterable[str] = ()
        if len(args) == 1 and choices:
            candidates = choices
        elif name == "tool" and len(args) == 2:
            candidates = TOOL_NAMES
        elif name == "mcp" and len(args) == 2 and args[0] in ("on", "off"):
            candidates = _mcp_names(self.session)
        elif name == "vs" and args[0] in _VS_COMMANDS:
            candidates = self.session.vector_store_cache
        elif name in _PATH_COMMANDS or name == "load":
            if name == "load" and self.session.store is not None:
                candidates = self.session.store.ids()  # from file names: nothing is read
            else:
                yield from self._paths.get_completions(Document(current), event)
                return
        for word in candidates:
            if word.startswith(current):
                yield Completion(word, start_position=-len(current))


def _mcp_names(session: ChatSession) -> list[str]:
    """Server names, then tool names (``server__tool``) of the servers started so far."""
    manager = session.mcp
    if not manager:
        return []
    return [*manager.connections, *(tool.name for tool in manager.all_tools())]
