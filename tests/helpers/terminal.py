"""A pseudo-terminal that answers the queries a real terminal answers, for the pty tests.

prompt-toolkit asks the terminal where its cursor is (``ESC [ 6 n``) each time it draws the
prompt, and when a prompt ends it waits up to a second for the answers still owed. A bare
``pexpect.spawn`` never answers, so every prompt of ``forge chat`` under test cost a second of
waiting that no user's terminal imposes. :class:`TerminalSpawn` keeps a pyte screen in step
with everything the test reads from the child and answers each query from it, as xterm does:
the cursor position report carries the real row and column.
"""

from __future__ import annotations

import os
from typing import Any

import pexpect
import pyte

__all__ = ["TerminalSpawn"]


class _AnsweringScreen(pyte.Screen):  # type: ignore[misc]
    """A pyte screen that writes its answers to terminal queries back to the child."""

    def __init__(self, columns: int, rows: int, child: TerminalSpawn) -> None:
        super().__init__(columns, rows)
        self._child = child

    def write_process_input(self, data: str) -> None:
        # Straight to the pty: ``spawn.send`` first sleeps ``delaybeforesend``, a terminal
        # answers at once.
        os.write(self._child.child_fd, data.encode())


class TerminalSpawn(pexpect.spawn):  # type: ignore[misc]
    """``pexpect.spawn`` on a terminal that answers cursor position (and status) queries.

    The answers come from a screen of the spawn's own ``dimensions`` fed with everything read
    (by ``expect``, ``read_nonblocking`` or ``read``), in order, so the reported position is
    where the cursor really is when the query is read. A test keeps rendering its own pyte
    screen for its assertions; this one only answers.
    """

    def __init__(self, command: str, args: list[str], **kwargs: Any) -> None:
        super().__init__(command, args, **kwargs)
        rows, columns = kwargs.get("dimensions") or (24, 80)
        self._answering = _AnsweringScreen(columns, rows, self)
        self._answering_stream: pyte.Stream = (
            pyte.Stream(self._answering) if self.encoding else pyte.ByteStream(self._answering)
        )

    def read_nonblocking(self, size: int = 1, timeout: float | None = -1) -> Any:
        data = super().read_nonblocking(size, timeout)
        self._answering_stream.feed(data)
        return data
