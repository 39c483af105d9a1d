"""The interactive line reader: prompt-toolkit with history, completion, toolbar, multi-line.

Enter sends; Alt+Enter (or Esc then Enter) inserts a new line; pasted text keeps its newlines
(bracketed paste). The bottom toolbar reads the live conversation settings on every redraw, so it
can never show stale values.
"""

from __future__ import annotations

import asyncio
import os
import select
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.application import get_app
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.utils import get_cwidth

from forge_cli.privacy import private_dir, private_file
from forge_cli.repl.completion import ReplCompleter

if TYPE_CHECKING:
    from forge_cli.repl.session import ChatSession

__all__ = ["PromptReader", "StreamReader", "toolbar_text"]


def toolbar_text(session: ChatSession, columns: int | None = None) -> str:
    """``model · tools · vector stores · tokens`` from the live settings, fitted to ``columns``
    (the terminal's width) by shortening the longest of model, tools and stores (``…``), so
    the token count stays whole."""
    settings = session.settings
    model = settings.model or session.default_model or "default"
    tools = ",".join([*settings.tools, *(["functions"] if session.function_files else [])])
    tools = tools or "no tools"
    stores = ",".join(settings.vector_stores) or "no vector stores"
    if not settings.tools and not session.function_files and session.conversation.api == "local":
        # The built-in engine searches its default stores when no tool is on: say so.
        tools, stores = "file-search (default)", session.default_scope or "all stores"
    return _fit_toolbar(
        [model, tools, stores], f"{session.conversation.tokens_used} tokens", columns
    )


def _fit_toolbar(parts: list[str], tail: str, columns: int | None) -> str:
    def line() -> str:
        return " " + " │ ".join([*parts, tail]) + " "

    whole = list(parts)
    clipped: set[int] = set()
    while columns is not None and get_cwidth(line()) > columns:
        longest = max(range(len(parts)), key=lambda i: get_cwidth(parts[i]))
        part = parts[longest]
        if len(part) <= 2:
            break  # nothing left to shorten: the terminal cuts the rest
        body = part[:-1] if longest in clipped else part
        parts[longest] = body[:-1] + "…"
        clipped.add(longest)
    for index in clipped:  # a part cut inside a word ends at the word boundary before, if any
        body = parts[index][:-1]
        mid_word = whole[index][len(body) : len(body) + 1] not in ("", " ") and body[-1:] != " "
        if mid_word and " " in body.strip():
            body = body[: body.rstrip().rfind(" ")]
        parts[index] = body.rstrip() + "…"
    return line()


def _columns() -> int | None:
    """The width of the running prompt's terminal."""
    try:
        return get_app().output.get_size().columns
    except Exception:  # no application running (a test calling the toolbar directly)
        return None


def _bindings() -> KeyBindings:
    keys = KeyBindings()

    @keys.add("enter")
    def _submit(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    @keys.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return keys


class PromptReader:
    """Reads messages from a terminal with prompt-toolkit."""

    def __init__(self, history_file: Path | None) -> None:
        history: History = InMemoryHistory()
        if history_file is not None:
            private_dir(history_file.parent)
            private_file(history_file)  # what was typed may be private: 0600
            history = FileHistory(str(history_file))
        self._history = history
        self._prompt: PromptSession[str] | None = None

    async def read(self, session: ChatSession) -> str:
        """The next message; EOFError on Ctrl+D, KeyboardInterrupt on Ctrl+C."""
        if self._prompt is None:
            self._prompt = PromptSession(
                history=self._history,
                completer=ReplCompleter(session),
                complete_while_typing=False,
                key_bindings=_bindings(),
                multiline=True,
                bottom_toolbar=lambda: toolbar_text(session, _columns()),
            )
            # A terminal that never answers prompt-toolkit's cursor position requests made it
            # print "WARNING: your terminal doesn't support cursor position requests (CPR)."
            # over the chat after two seconds; the prompt works without the answers, so the
            # warning, which the user can do nothing about, goes to the debug log instead.
            self._prompt.app.renderer.cpr_not_supported_callback = _no_cpr
        # Text typed or pasted while the last answer streamed waits in the terminal's buffer; read
        # line by line it would become one message per line. It becomes one message instead,
        # put in the prompt for the user to send (Enter) or edit.
        pending = typeahead(sys.stdin)
        if pending.count("\n") == 1 and pending.endswith("\n"):
            return pending[:-1]  # one line typed ahead and entered: it is the next message
        # handle_sigint=False: the chat session owns SIGINT for its whole run (Ctrl+C at the
        # prompt is a key press in raw mode anyway). ``pre_run`` comes right before the prompt
        # is drawn: what answers is built after the drawing (ChatSession.prompt_drawn).
        loop = asyncio.get_running_loop()

        def pre_run() -> None:
            loop.call_soon(session.prompt_drawn)  # runs once the prompt is on screen

        return await self._prompt.prompt_async(
            "forge> ", handle_sigint=False, default=pending.rstrip("\n"), pre_run=pre_run
        )


def _no_cpr() -> None:
    """prompt-toolkit found that the terminal does not answer cursor position requests."""
    import logging

    logging.getLogger(__name__).debug(
        "the terminal does not answer cursor position requests (CPR): prompt-toolkit sizes"
        " its menus without them"
    )


_TYPEAHEAD_LIMIT = 1 << 20
_CTRL_D = b"\x04"


def typeahead(stream: object) -> str:
    """What was typed into the terminal ``stream`` but not read yet (complete lines: the line
    discipline holds a partial line until the prompt takes the terminal). Control characters
    other than newlines and tabs are dropped. A Ctrl+D typed meanwhile (and nothing else) raises
    ``EOFError``, as it would at the prompt: both the end of input the line discipline reports
    and the raw ``^D`` byte it leaves when the key came while the prompt still held the terminal
    in raw mode (pressed right after Enter, while a command ran)."""
    try:
        fd = stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return ""
    if not os.isatty(fd):
        return ""
    chunks: list[bytes] = []
    size = 0
    while size < _TYPEAHEAD_LIMIT and select.select([fd], [], [], 0)[0]:
        data = os.read(fd, 65536)
        if not data:  # Ctrl+D typed between prompts: the terminal reports end of input
            if not chunks:
                raise EOFError
            break
        chunks.append(data)
        size += len(data)
    raw = b"".join(chunks)
    if raw.startswith(_CTRL_D):  # typed on an empty line: the end of input, as at the prompt
        raise EOFError
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    return "".join(ch for ch in text if ch in "\n\t" or (ch >= " " and ch != "\x7f"))


class StreamReader:
    """Reads one message per line from a non-terminal input (a pipe or a file)."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    async def read(self, session: ChatSession) -> str:
        """The next line; EOFError at the end of the input."""
        readline = getattr(self._stream, "readline")  # noqa: B009
        line: str = await asyncio.to_thread(readline)
        if not line:
            raise EOFError
        return line.rstrip("\n")
