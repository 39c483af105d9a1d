"""``forge ask``: one question, one answer, then exit (pipeline friendly)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from forge_cli.cli.build import (
    build_backend,
    build_mcp,
    build_responder,
    build_store,
    build_view_factory,
    default_model,
    early_sender,
    first_request,
    keep_conversation_model,
    needs_agent,
    new_conversation,
    plain_first_request,
    run_settings,
    streams_straight,
    tool_output_guard,
)
from forge_cli.cli.commands import EXIT_CODES_EPILOG
from forge_cli.cli.context import start_up_of
from forge_cli.cli.ending import end_without_teardown
from forge_cli.cli.options import complete_conversation_ids, shared_options
from forge_cli.config import Settings
from forge_cli.conversations.plain import new_conversation_id
from forge_cli.errors import EXIT_INTERRUPTED, ForgeError, OutputError, UsageError

if TYPE_CHECKING:  # pydantic and the protocol models load once the first request is out
    from forge_cli.agent.turn import Responder, TurnOutcome
    from forge_cli.backends.base import Backend
    from forge_cli.backends.http.early import EarlySending
    from forge_cli.conversations import Conversation, ConversationStore
    from forge_cli.mcp.manager import McpManager
    from forge_cli.protocol.request import Request
    from forge_cli.repl.view import ViewFactory
    from forge_cli.startup import StartUp

__all__ = ["ask", "read_question"]


def read_question(question: str | None, stdin: Any, files: Sequence[str] = ()) -> str:
    """The question with piped stdin and attached files (see :mod:`forge_cli.cli.question`)."""
    from forge_cli.cli.question import compose_question

    return compose_question(question, stdin, files)


async def _answer(
    settings: Settings,
    text: str,
    make_view: ViewFactory,
    saved_or_id: Conversation | str,
    store: ConversationStore | None,
    start_up: StartUp,
    mcp_values: tuple[str, ...] = (),
    shown: list[str] | None = None,
) -> None:
    """Answer ``text`` in a saved conversation, or in a new one given by its id; the status the
    view showed at the end goes into ``shown``."""
    backend = build_backend(settings, on_request_sent=start_up.request_sent)
    mcp = build_mcp(mcp_values)

    try:
        sent: tuple[EarlySending, dict[str, Any]] | None = None
        if isinstance(saved_or_id, str):  # a new conversation: its request goes out first
            sent = await _send_first(backend, settings, text, mcp)
            if sent is not None:
                await _import_reading(start_up)
            conversation = new_conversation(settings, saved_or_id)
        else:
            conversation = saved_or_id
        from forge_cli.agent.turn import run_turn
        from forge_cli.conversations import Turn, build_request
        from forge_cli.conversations.store import ConversationNotSaved
        from forge_cli.repl.view import view_end, view_sink

        view = make_view()
        # A person at a terminal is asked before a tool runs; a script or a pipe is not (denied
        # unless --yes). A question read from a pipe leaves no terminal to answer on.
        interactive = sys.stdin.isatty() and sys.stderr.isatty()
        request: Request
        responder: Responder
        if sent is not None:  # its reply is this turn's, by construction
            request, responder = _taken_over(*sent, start_up)
        else:
            responder = build_responder(
                settings, backend, interactive=interactive, mcp=mcp, start_up=start_up
            )
            request = build_request(
                conversation, text, stores_responses=False, model=default_model(settings)
            )
        show_end = view_end(view)
        closed: list[ForgeError] = []  # the output closed, or the save failed (a full disk)

        def on_end(outcome: TurnOutcome) -> None:
            try:
                show_end(outcome)
                if shown is not None:
                    shown.append(outcome.status)
            except OutputError as exc:  # the output failed (its reader left) at the end
                closed.append(exc)
            finally:
                if store is not None:  # saved like a chat turn, also when interrupted or failed
                    turn = Turn.from_response(
                        text, outcome.response, status=outcome.status, error=outcome.error_line
                    )
                    conversation.turns.append(turn)
                    try:
                        store.save(conversation)
                    except ConversationNotSaved as exc:  # a full disk: the answer stands
                        closed.append(exc)

        start_up.done()  # if the warm-up has not: the turn's own work runs with the collector on
        outcome = await run_turn(responder, request, on_update=view_sink(view), on_end=on_end)
        if outcome.error is not None:
            raise outcome.error
        if closed:
            raise closed[0]
    finally:
        if mcp is not None:
            await mcp.aclose()
        await backend.aclose()


async def _send_first(
    backend: Backend, settings: Settings, text: str, mcp: McpManager | None
) -> tuple[EarlySending, dict[str, Any]] | None:
    """Write a new conversation's request before pydantic and the models are imported; the
    backend that sent it and the request's wire body, or ``None`` (nothing sent).

    Only where the request goes straight to a Responses or Chat Completions server (no
    client-side tools, no MCP; over Chat, no hosted tools either: ``first_request_wire`` refuses
    them) and its body is plain data (``first_request_wire``). The turn then folds the reply of
    this very send (:func:`_taken_over`): nothing is sent twice, and its retries, timeouts and
    errors are the usual ones. Anything else is sent as usual.
    """
    sender = early_sender(backend)
    if sender is None:
        return None
    if settings.api == "chat":  # a request without tools streams straight (``_per_request``)
        if needs_agent(settings) or mcp is not None:
            return None
    elif settings.api not in ("responses", "knowledge-forge") or not streams_straight(
        settings, mcp
    ):
        return None
    wire = first_request(settings, text)
    body = plain_first_request(settings, text, wire)
    if wire is None or body is None:
        return None
    await sender.send_early(body)
    return sender, wire


def _taken_over(
    sender: EarlySending, wire: dict[str, Any], start_up: StartUp
) -> tuple[Request, Responder]:
    """The first turn of a request sent early: its typed request, derived from the wire body
    that was sent (one builder: ``first_request_wire``), and a responder that folds the reply of
    that send (``stream_early``) as ``build_responder``'s plain one folds a reply."""
    from forge_cli.agent.turn import batches_responder
    from forge_cli.protocol.request import Request

    request = Request.model_validate(wire)
    return request, batches_responder(lambda _request: sender.stream_early(), start_up=start_up)


_TURN_MODULES = (
    "pydantic",
    "forge_cli.conversations",
    "forge_cli.protocol.request",
    "forge_cli.agent.turn",
    "forge_cli.repl.view",
)
"""What ``_answer`` imports once the first request is out (pydantic and the models)."""


async def _import_reading(start_up: StartUp) -> None:
    """Import what the turn needs on the warm-up thread, queued behind the fold's and the
    renderer's modules (one thread: two would only trade the GIL, ADR-0027); the event loop
    stays free meanwhile for the early send's retries (ADR-0020)."""
    loop = asyncio.get_running_loop()
    busy: asyncio.Future[None] = loop.create_future()

    def done() -> None:
        if not busy.done():
            busy.set_result(None)

    def imported() -> None:  # on the import thread
        loop.call_soon_threadsafe(done)

    start_up.import_in_background(_TURN_MODULES, then=imported)
    await busy


@click.command(epilog=EXIT_CODES_EPILOG)
@shared_options
@click.argument("question", required=False)
@click.option(
    "--file",
    "-f",
    "files",
    multiple=True,
    metavar="PATH",
    help="Attach a file's text to the question (repeatable; text, Markdown, HTML, PDF, code).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON document at the end.")
@click.option("--jsonl", "as_jsonl", is_flag=True, help="One JSON line per event.")
@click.option("--plain", "as_plain", is_flag=True, help="Plain text, no styling.")
@click.option("--no-stream", is_flag=True, help="Print the answer only when it is complete.")
@click.option(
    "--continue",
    "-c",
    "cont",
    is_flag=True,
    help="Continue the latest saved conversation (chat or ask).",
)
@click.option(
    "--conversation",
    "conversation_id",
    metavar="ID",
    help="Continue conversation ID.",
    shell_complete=complete_conversation_ids,
)
@click.option("--no-save", is_flag=True, help="Do not save this question and answer.")
def ask(
    question: str | None,
    files: tuple[str, ...],
    as_json: bool,
    as_jsonl: bool,
    as_plain: bool,
    no_stream: bool,
    cont: bool,
    conversation_id: str | None,
    no_save: bool,
    **options: Any,
) -> None:
    """Ask QUESTION and print the answer.

    Piped standard input is added to the question as a document (or is the question, with -
    or no QUESTION); -f attaches files. The exchange is saved like a chat (forge conversations
    list); -c continues the latest conversation, --conversation ID a given one.
    """
    chosen = [
        name for name, on in (("json", as_json), ("jsonl", as_jsonl), ("plain", as_plain)) if on
    ]
    if len(chosen) > 1:
        raise UsageError(f"choose one output mode: --{' or --'.join(chosen)}")
    mode = chosen[0] if chosen else None
    if cont and conversation_id:
        raise UsageError("use either --continue or --conversation ID, not both")
    if no_save and (cont or conversation_id):
        raise UsageError("--no-save cannot continue a saved conversation")
    settings = run_settings(options)
    text = read_question(question, sys.stdin, files)
    store = None if no_save else build_store()
    # A new conversation is built once its first request is out (``_answer``); until then only
    # its id exists, for the lock.
    conversation: Conversation | str = new_conversation_id()
    if cont or conversation_id:
        conversation = _continued(settings, store, cont, conversation_id, options)
        settings = keep_conversation_model(settings, conversation)
    guard = tool_output_guard(settings)
    # One writer per conversation: a chat or another ask on it is refused, not overwritten.
    the_id = conversation if isinstance(conversation, str) else conversation.id
    lock = store.open_for_writing(the_id) if store is not None else contextlib.nullcontext()
    with lock, guard:
        if store is not None and not isinstance(conversation, str) and conversation.turns:
            conversation.turns = store.load(conversation.id).turns  # re-read under the lock
        start_up = start_up_of()
        make_view = build_view_factory(
            settings, mode=mode, stream=not no_stream, one_shot=True, start_up=start_up
        )
        # What start-up built lives until the process ends: the garbage collector need not
        # look at it again while the answer streams (one question, then exit).
        gc.freeze()
        shown: list[str] = []
        mcp_values = tuple(options.get("mcp") or ())
        try:
            asyncio.run(
                _answer(settings, text, make_view, conversation, store, start_up, mcp_values, shown)
            )
        except KeyboardInterrupt:
            if "interrupted" in shown:  # the view marked the answer interrupted: no second line
                raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
            raise
        finally:
            gc.unfreeze()  # a caller that goes on (tests run commands in-process) collects as usual
    end_without_teardown()  # the answer is written and saved: no interpreter teardown


_CARRIED = (
    "model",
    "effort",
    "instructions",
    "tools",
    "vector_stores",
    "temperature",
    "top_p",
    "max_output_tokens",
)
"""Settings a continued conversation keeps unless the command line sets them again."""


def _continued(
    settings: Settings,
    store: ConversationStore | None,
    cont: bool,
    conversation_id: str | None,
    options: dict[str, Any],
) -> Conversation:
    """The conversation to continue, with this run's explicit flags applied."""
    if store is None:  # pragma: no cover - --no-save with -c/--conversation is refused above
        raise UsageError("--no-save cannot continue a saved conversation")
    if conversation_id:
        conversation = store.load(conversation_id)
    else:
        latest = store.newest(1).conversations
        if not latest:
            raise UsageError("no saved conversation to continue", hint="ask without -c first")
        conversation = latest[0]
    fresh = new_conversation(settings).settings
    given = {key for key in _CARRIED if options.get(key) not in (None, (), [])}
    if options.get("template"):
        given |= {"instructions"}
    update = {key: getattr(fresh, key) for key in given}
    if update:
        conversation.settings = conversation.settings.model_copy(update=update)
    return conversation
