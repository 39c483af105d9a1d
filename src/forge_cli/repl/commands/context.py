"""The chat session as slash commands see it: a small Protocol, so no command imports the session.

:class:`~forge_cli.repl.session.ChatSession` satisfies it (the session imports the command
registry and hands itself to a handler; mypy checks the match there). It lists only what the
built-in commands use; everything that runs a turn (sending, cancelling, the view) stays the
session's own: a command asks for a message to be sent by returning it in its result.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from forge_cli.conversations.model import Conversation, SessionSettings
    from forge_cli.conversations.store import ConversationStore
    from forge_cli.knowledge.client import KnowledgeClient
    from forge_cli.mcp.manager import McpManager
    from forge_cli.protocol.response import Response

__all__ = ["CommandSession"]


class CommandSession(Protocol):
    """What a slash command may read and change of the chat session."""

    debug: bool
    """Whether failures print their traceback (``/debug``)."""
    vector_store_cache: list[str]
    """Vector store ids and names for completion (``/vs`` refreshes it)."""

    @property
    def conversation(self) -> Conversation:
        """The conversation in progress (its settings are the session's)."""
        ...

    @property
    def settings(self) -> SessionSettings:
        """The live settings, read through the conversation."""
        ...

    @property
    def store(self) -> ConversationStore | None:
        """Where conversations are saved (``None``: they are not)."""
        ...

    @property
    def out(self) -> TextIO:
        """The session's output stream (progress lines, the clipboard's fallback)."""
        ...

    @property
    def columns(self) -> int | None:
        """The terminal's width (``None``: output is not wrapped)."""
        ...

    @property
    def default_model(self) -> str:
        """The model answering when the settings name none."""
        ...

    @property
    def default_scope(self) -> str:
        """The stores the built-in engine searches when no tool is on ("": all)."""
        ...

    @property
    def models_are_fixed(self) -> bool:
        """Whether only the listed models can answer (``/model`` checks the name)."""
        ...

    @property
    def function_files(self) -> tuple[str, ...]:
        """The ``--functions`` files whose functions the model may call."""
        ...

    @property
    def editor(self) -> Callable[[str], str] | None:
        """Opens the user's editor on a text and returns the edited text (``/edit``)."""
        ...

    @property
    def knowledge(self) -> KnowledgeClient | None:
        """The knowledge seam (``/vs``, ``/upload``, ``/docs``, ``/search``), if any."""
        ...

    @property
    def list_models(self) -> Callable[[], Awaitable[list[str]]] | None:
        """The backend's model list, when it has one."""
        ...

    @property
    def mcp(self) -> McpManager | None:
        """The session's MCP servers (``/mcp``), if any."""
        ...

    @property
    def last_response(self) -> Response | None:
        """The latest answer (``/sources``, ``/copy``)."""
        ...

    def save(self) -> None:
        """Write the conversation (empty ones are not written)."""
        ...

    def replace_conversation(self, conversation: Conversation) -> None:
        """Switch to another conversation (``/new``, ``/load``, ``/clear``)."""
        ...
