"""``forge chat``: the interactive REPL over a new or resumed conversation."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

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
    new_conversation,
    run_settings,
    stores_responses,
    tool_output_guard,
)
from forge_cli.cli.knowledge import build_knowledge_client
from forge_cli.cli.main import EXIT_CODES_EPILOG
from forge_cli.cli.options import complete_conversation_ids, shared_options
from forge_cli.config import Settings, history_path
from forge_cli.conversations import Conversation, ConversationStore
from forge_cli.errors import UsageError
from forge_cli.wording import plural

__all__ = ["chat"]


def _pick(store: ConversationStore, resume: str | None, cont: bool, settings: Settings) -> Any:
    if resume and cont:
        raise UsageError("use either --resume ID or --continue, not both")
    if resume:
        return store.load(resume)
    if cont:
        latest = store.list().conversations
        if not latest:
            raise UsageError("no saved conversation to continue")
        return latest[0]
    return new_conversation(settings)


def _edit(initial: str) -> str:
    return click.edit(initial, extension=".md") or ""


async def _run(
    settings: Settings,
    conversation: Conversation,
    store: ConversationStore | None,
    mcp_values: tuple[str, ...] = (),
) -> None:
    from forge_cli.repl.session import ChatSession

    backend = build_backend(settings)
    mcp = build_mcp(mcp_values)
    interactive = sys.stdin.isatty()
    knowledge = None
    refresh: asyncio.Task[None] | None = None
    if settings.api != "chat" and not backend_overridden(backend):
        knowledge = build_knowledge_client(settings)
    try:
        session = ChatSession(
            conversation,
            build_responder(settings, backend, interactive=interactive, mcp=mcp),
            out=sys.stdout,
            err=sys.stderr,
            store=store,
            view_factory=build_view_factory(settings),
            stores_responses=stores_responses(backend),
            default_model=default_model(settings),
            debug=settings.debug,
            editor=_edit,
            knowledge=knowledge,
            mcp=mcp,
        )
        session.list_models = getattr(backend, "list_models", None)
        session.default_scope = ", ".join(settings.engine_default_vector_stores)
        session.models_are_fixed = settings.api == "local" and not backend_overridden(backend)
        if session.models_are_fixed and not settings.model and session.list_models is not None:
            session.default_model = (await session.list_models())[0]  # shown, not "default"
        if interactive:
            from forge_cli.repl.prompt import PromptReader

            reader: Any = PromptReader(history_path())
            refresh = asyncio.create_task(session.refresh_vector_stores())
        else:
            from forge_cli.repl.prompt import StreamReader

            reader = StreamReader(sys.stdin)
        resumed = f", {plural(len(conversation.turns), 'turn')}" if conversation.turns else ""
        session.say(f"forge chat · {conversation.id}{resumed} · /help for commands, Ctrl+D quits")
        if conversation.turns:  # where the conversation stood, before the next question
            shown = min(3, len(conversation.turns))
            session.say(f"The last {plural(shown, 'exchange')} (/history for more):")
            await session.handle_line(f"/history {shown}")
        await session.run(reader)
        if session.conversation.turns and store is not None:
            session.say(f"Saved. Resume with: forge chat --resume {session.conversation.id}")
    finally:
        if refresh is not None:
            refresh.cancel()
        if mcp is not None:
            await mcp.aclose()
        await backend.aclose()
        if knowledge is not None:
            await knowledge.aclose()


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
    store = build_store()
    conversation = _pick(store, resume, cont, settings)
    settings = keep_conversation_model(settings, conversation)
    guard = tool_output_guard(settings)
    if no_save:
        with guard:
            asyncio.run(_run(settings, conversation, None, tuple(options.get("mcp") or ())))
        return
    with store.open_for_writing(conversation.id), guard:
        if conversation.turns:  # re-read under the lock: the last holder may have added turns
            conversation = store.load(conversation.id)
        asyncio.run(_run(settings, conversation, store, tuple(options.get("mcp") or ())))
