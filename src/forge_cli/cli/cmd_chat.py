"""``forge chat``: the interactive REPL over a new or resumed conversation."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import click

from forge_cli.cli.build import (
    backend_overridden,
    build_backend,
    build_mcp,
    build_responder,
    build_store,
    build_view_factory,
    default_model,
    keep_conversation_model,
    needs_agent,
    new_conversation,
    run_settings,
    tool_output_guard,
)
from forge_cli.cli.commands import EXIT_CODES_EPILOG
from forge_cli.cli.context import start_up_of
from forge_cli.cli.options import complete_conversation_ids, shared_options
from forge_cli.config import Settings, history_path
from forge_cli.conversations import Conversation, ConversationStore, SessionSettings
from forge_cli.errors import UsageError
from forge_cli.wording import plural

if TYPE_CHECKING:
    from forge_cli.backends.base import Backend
    from forge_cli.startup import StartUp

__all__ = ["chat"]


def _pick(store: ConversationStore, resume: str | None, cont: bool, settings: Settings) -> Any:
    if resume and cont:
        raise UsageError("use either --resume ID or --continue, not both")
    if resume:
        return store.load(resume)
    if cont:
        latest = store.newest(1).conversations
        if not latest:
            raise UsageError("no saved conversation to continue")
        return latest[0]
    return new_conversation(settings, checked=False)  # validators: built by _run's connect


NO_MODEL_HINT = (
    "No language model is configured: answers quote the passages of your documents that match "
    "best (Forge's own guide is in the store forge-docs). /upload PATH adds documents; "
    "`forge config set engine.upstream_base_url URL` and `engine.upstream_model NAME` add a "
    "model that writes answers."
)
"""What a new chat on the built-in engine without a model says under its first line."""


def _retrieval_only(settings: Settings, session: Any) -> bool:
    """Whether the chat runs on the built-in engine with no model (retrieval-only answers)."""
    from forge_cli.engine.config import RETRIEVAL_MODEL

    return settings.api == "local" and session.default_model == RETRIEVAL_MODEL


def _edit(initial: str) -> str:
    return click.edit(initial, extension=".md") or ""


def _warm_modules(settings: Settings) -> tuple[str, ...]:
    """What ``connect`` and the first turn import, imported while the prompt waits for input."""
    if settings.api == "chat":
        backend: tuple[str, ...] = ("forge_cli.backends.chat.backend",)
    else:
        backend = (
            "forge_cli.backends.responses.backend",
            "forge_cli.backends.knowledge_http",
            "forge_cli.cli.knowledge",
        )
    return (
        *backend,
        "forge_cli.conversations.requests",
        "forge_cli.protocol.response",
        "forge_cli.repl.commands",
    )


async def _run(
    settings: Settings,
    conversation: Conversation,
    store: ConversationStore | None,
    mcp_values: tuple[str, ...] = (),
    start_up: StartUp | None = None,
) -> None:
    from forge_cli.repl.session import ChatSession, Connection

    mcp = build_mcp(mcp_values)
    interactive = sys.stdin.isatty()
    opened: list[Callable[[], Awaitable[None]]] = []  # closed when the chat ends
    backends: list[Backend] = []

    def connect() -> Connection:
        """The backend, the knowledge client and the responder, built together (ADR 0021);
        with them, the validators of the conversation models, which ``_pick`` left unbuilt."""
        for model in (Conversation, SessionSettings):
            model.model_rebuild()
        backend = build_backend(
            settings, on_request_sent=start_up.request_sent if start_up is not None else None
        )
        opened.append(backend.aclose)
        backends.append(backend)
        knowledge = None
        if settings.api != "chat" and not backend_overridden(backend):
            from forge_cli.cli.knowledge import build_knowledge_client

            knowledge = build_knowledge_client(settings)
            opened.append(knowledge.aclose)
        return Connection(
            build_responder(settings, backend, interactive=interactive, mcp=mcp, start_up=start_up),
            knowledge=knowledge,
            stores_responses=backend.stores_responses,
            list_models=backend.list_models,
        )

    session: ChatSession | None = None
    try:
        session = ChatSession(
            conversation,
            out=sys.stdout,
            err=sys.stderr,
            store=store,
            view_factory=build_view_factory(settings, start_up=start_up),
            default_model=default_model(settings),
            debug=settings.debug,
            editor=_edit,
            mcp=mcp,
            connect=connect,
            warm_modules=_warm_modules(settings),
            start_up=start_up,
        )
        session.default_scope = ", ".join(settings.engine_default_vector_stores)
        session.function_files = tuple(str(path) for path in settings.functions)
        if settings.api == "local" or needs_agent(settings):
            # The local engine names its model in the toolbar, and the agent's options are
            # checked when it is built: both before the prompt, as the user expects.
            session.connect()
            session.models_are_fixed = settings.api == "local" and not any(
                backend_overridden(backend) for backend in backends
            )
        if session.models_are_fixed and not settings.model and session.list_models is not None:
            session.default_model = (await session.list_models())[0]  # shown, not "default"
        if interactive:
            from forge_cli.repl.prompt import PromptReader

            reader: Any = PromptReader(history_path())
        else:
            from forge_cli.repl.prompt import StreamReader

            reader = StreamReader(sys.stdin)
        resumed = f", {plural(len(conversation.turns), 'turn')}" if conversation.turns else ""
        # session.say fits what it prints to the terminal's width (words whole).
        session.say(f"forge chat · {conversation.id}{resumed} · /help for commands, Ctrl+D quits")
        if interactive and not conversation.turns and _retrieval_only(settings, session):
            session.say(NO_MODEL_HINT)
        if conversation.turns:  # where the conversation stood, before the next question
            shown = min(3, len(conversation.turns))
            session.say(f"The last {plural(shown, 'exchange')} (/history for more):")
            await session.handle_line(f"/history {shown}")
        await session.run(reader)
        if session.conversation.turns and store is not None:
            session.say(f"Saved. Resume with: forge chat --resume {session.conversation.id}")
    finally:
        if session is not None:
            await session.aclose()
        if mcp is not None:
            await mcp.aclose()
        for close in opened:
            await close()


@click.command(epilog=EXIT_CODES_EPILOG)
@shared_options
@click.option(
    "--resume",
    "-r",
    metavar="ID",
    help="Resume a saved conversation.",
    shell_complete=complete_conversation_ids,
)
@click.option("--continue", "-c", "cont", is_flag=True, help="Resume the latest conversation.")
@click.option("--no-save", is_flag=True, help="Incognito: save nothing of this chat.")
def chat(resume: str | None, cont: bool, no_save: bool, **options: Any) -> None:
    """Chat in the terminal. Conversations are saved after every turn (not with --no-save)."""
    if no_save and (resume or cont):
        raise UsageError("--no-save cannot resume a saved conversation")
    settings = run_settings(options)
    start_up = start_up_of()
    store = build_store()
    conversation = _pick(store, resume, cont, settings)
    settings = keep_conversation_model(settings, conversation)
    guard = tool_output_guard(settings)
    if no_save:
        with guard:
            asyncio.run(
                _run(settings, conversation, None, tuple(options.get("mcp") or ()), start_up)
            )
        return
    with store.open_for_writing(conversation.id), guard:
        if conversation.turns:  # re-read under the lock: the last holder may have added turns
            conversation = store.load(conversation.id)
        asyncio.run(_run(settings, conversation, store, tuple(options.get("mcp") or ()), start_up))
