"""The chat session: slash commands, turns, cancellation and autosave, with injectable I/O.

:class:`ChatSession` takes its output streams, its responder (what answers) and its view factory
as parameters, so tests drive it with a scripted responder and a ``StringIO`` (ARCHITECTURE
§3.13). The conversation it holds is the one source of truth for the session's settings.

What answers may instead come from a ``connect`` factory (ADR 0021): ``forge chat`` draws its
prompt before the backend, the HTTP stack and the knowledge client exist. The session builds
them on the main thread on first use, or once the prompt is drawn and their modules were
imported on a background thread, whichever comes first; until then nothing sees them half-built.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from forge_cli.agent.turn import Responder, TurnOutcome, response_type, run_turn
from forge_cli.conversations.model import Conversation, SessionSettings, Turn
from forge_cli.conversations.store import ConversationStore
from forge_cli.errors import ForgeError
from forge_cli.fitting import terminal_columns
from forge_cli.redact import redact
from forge_cli.repl.layout import Block, Para, layout
from forge_cli.repl.view import RendererView, TurnView, ViewFactory, view_end, view_sink
from forge_cli.sanitize import sanitize, sanitize_inline
from forge_cli.startup import StartUp

if TYPE_CHECKING:
    from forge_cli.knowledge.client import KnowledgeClient
    from forge_cli.mcp.manager import McpManager
    from forge_cli.protocol.loop_events import AnswerUpdate
    from forge_cli.protocol.response import Response
    from forge_cli.render.plain import PlainRenderer
    from forge_cli.repl.commands import CommandResult

__all__ = ["IDLE_INTERRUPT_HINT", "ChatSession", "Connection", "LineReader"]

IDLE_INTERRUPT_HINT = "(Ctrl+C cancels an answer; press Ctrl+D or type /exit to quit)"


class LineReader(Protocol):
    """Reads the next input; raises ``EOFError`` on Ctrl+D, ``KeyboardInterrupt`` on Ctrl+C."""

    async def read(self, session: ChatSession) -> str:
        """The next line (or multi-line message)."""
        ...


@dataclass(frozen=True)
class Connection:
    """What a session talks to, as its ``connect`` factory builds it (all at once)."""

    responder: Responder
    knowledge: KnowledgeClient | None = None
    stores_responses: bool = False
    list_models: Callable[[], Awaitable[list[str]]] | None = None
    close: Callable[[], Awaitable[None]] | None = None
    """Releases what the factory opened (the backend's connections, the knowledge client)."""


class ChatSession:
    """One interactive chat over a conversation.

    Either ``responder`` (with ``knowledge`` and ``stores_responses``) is given, or ``connect``
    builds them on first use (:meth:`connect`; :meth:`prompt_drawn` starts it early, after
    importing ``warm_modules`` on a background thread). :meth:`aclose` releases what it built.
    """

    def __init__(
        self,
        conversation: Conversation,
        responder: Responder | None = None,
        *,
        out: TextIO,
        err: TextIO | None = None,
        store: ConversationStore | None = None,
        view_factory: ViewFactory | None = None,
        knowledge: KnowledgeClient | None = None,
        stores_responses: bool = False,
        default_model: str = "",
        debug: bool = False,
        editor: Callable[[str], str] | None = None,
        mcp: McpManager | None = None,
        connect: Callable[[], Connection] | None = None,
        warm_modules: Iterable[str] = (),
        start_up: StartUp | None = None,
    ) -> None:
        if (responder is None) == (connect is None):
            raise TypeError("ChatSession needs either a responder or a connect factory")
        self.start_up = start_up or StartUp()
        """The process's start-up (``forge chat``: its warm-up thread and collector pause)."""
        self.conversation = conversation
        self._connect = connect
        self._warm_modules = tuple(warm_modules)
        self._warming = False
        self._connection: Connection | None = None
        self._refresh: asyncio.Task[None] | None = None
        self._responder = responder
        self.out = out
        self.err = err or out
        self.store = store
        self.view_factory: ViewFactory = view_factory or (lambda: _plain_view(out, self.err))
        self._knowledge = knowledge
        self._stores_responses = stores_responses
        self.default_model = default_model
        self.debug = debug
        self.editor = editor
        self.vector_store_cache: list[str] = []
        self.mcp = mcp  # the session's McpManager (forge_cli.mcp), for /mcp and completion
        self._list_models: Callable[[], Awaitable[list[str]]] | None = None
        self.function_files: tuple[str, ...] = ()
        """The ``--functions`` files whose functions the model may call (always on)."""
        self.default_scope = ""
        """The stores the built-in engine searches when no tool is on ("" : all of them)."""
        self.models_are_fixed = False
        """Whether only the listed models can answer (the built-in engine): ``/model`` checks."""
        self._task: asyncio.Task[TurnOutcome] | None = None
        self._outcome: TurnOutcome | None = None
        self._last: Response | None = None
        self._sigint_owned = False
        self._columns: int | None = None

    # -- what answers -----------------------------------------------------------------------

    def connect(self) -> None:
        """Build what answers now, if a ``connect`` factory is still pending (main thread).

        Waits for the background imports first, so no module is imported twice at once. An error
        of the factory propagates and leaves it pending: the next use tries again.
        """
        if self._connect is None:
            return
        self.start_up.wait_for_imports()
        connection = self._connect()
        self._connect = None
        self._connection = connection
        self._responder = connection.responder
        self._knowledge = connection.knowledge
        self._stores_responses = connection.stores_responses
        self._list_models = connection.list_models

    @property
    def connected(self) -> bool:
        """Whether what answers is built (always, without a ``connect`` factory)."""
        return self._connect is None

    def prompt_drawn(self) -> None:
        """The prompt is on screen: import what answers on a background thread, then build it
        on the event loop's thread and fill the completion cache of vector stores. Once."""
        if self._warming:
            return
        self._warming = True
        if self._connect is None:
            self._start_refresh()
            return
        loop = asyncio.get_running_loop()

        def imported() -> None:  # on the background thread
            with contextlib.suppress(RuntimeError):  # the loop is closed: the session ended
                loop.call_soon_threadsafe(self._warmed)

        self.start_up.import_in_background(self._warm_modules, then=imported)

    def _warmed(self) -> None:
        if self._connect is not None:
            try:
                self.connect()
            except ForgeError:
                return  # the first use reports it (a turn fails with the error line)
        self._start_refresh()

    def _start_refresh(self) -> None:
        if self._knowledge is not None and self._refresh is None:
            self._refresh = asyncio.get_running_loop().create_task(self.refresh_vector_stores())

    async def aclose(self) -> None:
        """Stop the completion cache's refresh and release what ``connect`` built (after the
        background imports, which must not be cut off by the interpreter's exit)."""
        self.start_up.wait_for_imports()
        if self._refresh is not None:
            self._refresh.cancel()
            with contextlib.suppress(asyncio.CancelledError, ForgeError):
                await self._refresh
            self._refresh = None
        connection, self._connection = self._connection, None
        if connection is not None and connection.close is not None:
            await connection.close()

    @property
    def responder(self) -> Responder:
        """What answers a request (built on first use with a ``connect`` factory)."""
        self.connect()
        assert self._responder is not None
        return self._responder

    @responder.setter
    def responder(self, value: Responder) -> None:
        self._responder = value

    @property
    def knowledge(self) -> KnowledgeClient | None:
        """The knowledge seam for ``/vs``, ``/upload``, ``/docs``, ``/search`` (if any)."""
        self.connect()
        return self._knowledge

    @knowledge.setter
    def knowledge(self, value: KnowledgeClient | None) -> None:
        self._knowledge = value

    @property
    def stores_responses(self) -> bool:
        """Whether follow-ups may use ``previous_response_id`` (else the history is resent)."""
        self.connect()
        return self._stores_responses

    @stores_responses.setter
    def stores_responses(self, value: bool) -> None:
        self._stores_responses = value

    @property
    def list_models(self) -> Callable[[], Awaitable[list[str]]] | None:
        """The backend's model list (``/model`` shows it), when the backend has one."""
        self.connect()
        return self._list_models

    @list_models.setter
    def list_models(self, value: Callable[[], Awaitable[list[str]]] | None) -> None:
        self._list_models = value

    # -- state ------------------------------------------------------------------------------

    @property
    def settings(self) -> SessionSettings:
        """The live settings: always read through the conversation, never copied."""
        return self.conversation.settings

    @property
    def last_response(self) -> Response | None:
        """The latest answer (this session's, else the conversation's last turn)."""
        if self._last is not None:
            return self._last
        turns = self.conversation.turns
        return turns[-1].response() if turns else None

    def last_snapshot(self) -> Response | None:
        """The latest snapshot of the turn that is streaming (or just ended)."""
        return self._last

    def replace_conversation(self, conversation: Conversation) -> None:
        """Switch to another conversation (``/new``, ``/load``); settings come with it."""
        self.conversation = conversation
        self._last = None

    async def refresh_vector_stores(self) -> None:
        """Fill the completion cache of vector store ids and names (failures leave it as it was)."""
        if self.knowledge is None:
            return
        try:
            stores = await self.knowledge.list_vector_stores()
        except ForgeError:
            return
        self.vector_store_cache = _names_and_ids(stores)

    @property
    def columns(self) -> int | None:
        """The width of the terminal the session prints on (``None`` when ``out`` is not a
        terminal: nothing is wrapped). Read on every use, so a resized window is honoured."""
        if self._columns is not None:
            return self._columns
        return terminal_columns(self.out)

    @columns.setter
    def columns(self, value: int | None) -> None:
        self._columns = value

    def say(self, text: str | Sequence[Block]) -> None:
        """Print session output (text or layout blocks), fitted to the terminal's width."""
        self._print(self.out, text)

    def warn(self, text: str) -> None:
        """Print an error line (the session goes on); it wraps under its text, not the label."""
        self._print(self.err, [Para(f"error: {text}", hang=len("error: "))])

    def _print(self, stream: TextIO, text: str | Sequence[Block]) -> None:
        columns = self._columns if self._columns is not None else terminal_columns(stream)
        width = None if columns is None else max(20, columns - 1)
        stream.write("".join(line + "\n" for line in layout(text, width, _clean)))
        stream.flush()

    def _debug_traceback(self) -> None:
        """With debug on, the current exception's traceback (redacted, sanitised) on stderr."""
        if self.debug:
            import traceback

            self.err.write(sanitize(redact(traceback.format_exc())))

    def save(self) -> None:
        """Write the conversation (atomic); empty conversations are not written. A failed write
        (a full disk) is one line; the turns stay in memory and ``/save`` retries."""
        from forge_cli.conversations.store import ConversationNotSaved

        if self.store is not None and self.conversation.turns:
            try:
                self.store.save(self.conversation)
            except ConversationNotSaved as exc:
                self.warn(f"{exc.one_line()}; the chat is kept in memory: /save retries")

    # -- input ------------------------------------------------------------------------------

    async def handle_line(self, line: str) -> bool:
        """Handle one input; returns ``False`` when the session should end."""
        if not line.strip():
            return True
        if line.startswith("//"):
            await self.send(line[1:])
            return True
        if line.startswith("/"):
            result = await self.run_command(line)
            if result.message:
                self.say(result.message)
            if result.send is not None:
                await self.send(result.send)
            return not result.exit
        await self.send(line)
        return True

    async def run_command(self, line: str) -> CommandResult:
        """Parse and run a slash command; a failure is printed and becomes an empty result."""
        from forge_cli.repl.commands import REGISTRY, CommandResult

        try:
            cmd, args = REGISTRY.parse(line)
            return await cmd.handler(self, args)
        except ForgeError as exc:
            self.warn(exc.one_line())
        except Exception as exc:  # a command bug must not end the session
            self.warn(f"/{line[1:].split(' ', 1)[0]} failed: {type(exc).__name__}: {exc}")
            self._debug_traceback()
        return CommandResult()

    async def run(self, reader: LineReader) -> None:
        """The read-eval loop: until Ctrl+D or /exit.

        While the session runs, SIGINT (Ctrl+C outside the prompt) cancels the streaming answer,
        or does nothing between answers; at the prompt, Ctrl+C is a key and shows a hint.
        """
        with _sigint_cancels(self.cancel):
            self._sigint_owned = True
            try:
                await self._loop(reader)
            finally:
                self._sigint_owned = False
        self.save()

    async def _loop(self, reader: LineReader) -> None:
        while True:
            try:
                line = await reader.read(self)
            except EOFError:
                break
            except KeyboardInterrupt:
                self.say(IDLE_INTERRUPT_HINT)
                continue
            self.start_up.done()  # if the warm-up has not: the line runs with the collector on
            if not await self.handle_line(line):
                break

    # -- turns ------------------------------------------------------------------------------

    def cancel(self) -> None:
        """Cancel the answer that is streaming (Ctrl+C); the session goes on."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _consume(self, text: str, view: TurnView) -> TurnOutcome:
        from forge_cli.conversations.requests import build_request

        finish = view_end(view)
        try:
            self.connect()
        except ForgeError as exc:  # bad settings met on first use: the turn fails with the line
            outcome = TurnOutcome("failed", None, exc)
            self._outcome = outcome
            finish(outcome)
            return outcome
        response_cls: type[Response] | None = None
        request = build_request(
            self.conversation,
            text,
            stores_responses=self.stores_responses,
            model=self.default_model,
        )
        show = view_sink(view)

        checkpointed: set[str] = set()

        def on_update(update: AnswerUpdate) -> None:
            nonlocal response_cls
            if response_cls is None:
                response_cls = response_type()
            if isinstance(update, response_cls):
                self._last = update
                self._checkpoint(text, update, checkpointed)
            show(update)

        def on_end(outcome: TurnOutcome) -> None:
            self._outcome = outcome
            finish(outcome)

        return await run_turn(self.responder, request, on_update=on_update, on_end=on_end)

    def _checkpoint(self, text: str, response: Response, seen: set[str]) -> None:
        """Save the turn as ended in a tool as soon as the answer asks for a new tool call.

        The answer's snapshot reaches here before the loop runs its calls, so a tool that ends
        the process (``os._exit``) leaves a saved record of where the turn was; the turn's real
        end overwrites it.
        """
        from forge_cli.protocol.guards import is_function_call

        calls = [item for item in response.output if is_function_call(item)]
        fresh = [call for call in calls if call.call_id not in seen]
        if not fresh or self.store is None:
            return
        seen.update(call.call_id for call in fresh)
        names = ", ".join(dict.fromkeys(call.name for call in fresh))
        turn = Turn.from_response(
            text, response, status="interrupted", error=f"the turn ended while running tool {names}"
        )
        self.conversation.add_turn(turn)
        try:
            self.save()
        except (OSError, ForgeError):  # a checkpoint that cannot be written is not the turn's end
            pass
        finally:
            self.conversation.turns.pop()

    async def send(self, text: str) -> Turn:
        """Send ``text``, show the answer as it streams, record and save the turn."""
        view = self.view_factory()
        self._last = None
        self._outcome = None
        self._task = asyncio.create_task(self._consume(text, view))
        if self._sigint_owned:
            await asyncio.wait({self._task})
        else:
            with _sigint_cancels(self.cancel):
                await asyncio.wait({self._task})
        try:
            self._task.result()
        except asyncio.CancelledError:
            pass  # the runner reported the interrupted outcome before the cancellation went up
        except Exception as exc:  # a bug, not a run error: the turn is kept as failed, chat goes on
            failure = ForgeError(f"internal error: {type(exc).__name__}: {exc}")
            self._outcome = TurnOutcome("failed", self._last, failure)
            view_end(view)(self._outcome)
            self._debug_traceback()
        finally:
            self._task = None
        outcome = self._outcome
        if outcome is None:  # cancelled before the runner started: nothing was shown
            outcome = TurnOutcome("interrupted", None)
            view.finish(None, status="interrupted", error=None)
        turn = Turn.from_response(
            text, outcome.response, status=outcome.status, error=outcome.error_line
        )
        self.conversation.add_turn(turn)
        self.save()
        return turn


def _plain_view(out: TextIO, err: TextIO) -> RendererView:
    """The default view: the plain renderer (answer on ``out``, status lines on ``err``)."""

    def renderer() -> PlainRenderer:
        from forge_cli.render.plain import PlainRenderer

        return PlainRenderer(out, err)

    return RendererView(renderer)


@contextlib.contextmanager
def _sigint_cancels(cancel: Callable[[], None]) -> Iterator[None]:
    """While streaming, SIGINT cancels the answer instead of ending the program."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, cancel)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or Windows
        yield
        return
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        if sys.platform != "win32":
            signal.signal(signal.SIGINT, signal.default_int_handler)


def _clean(row: str) -> str:
    """A row of output as it may reach the terminal: secrets redacted, control and escape
    characters shown as visible text (measured as shown, so the wrapping stays true)."""
    return sanitize_inline(redact(row))


def _names_and_ids(stores: Any) -> list[str]:
    """Completion candidates: every store's id, then its name (either may be typed)."""
    ids = [store.id for store in stores]
    names = [store.name for store in stores if store.name]
    return list(dict.fromkeys([*ids, *names]))
