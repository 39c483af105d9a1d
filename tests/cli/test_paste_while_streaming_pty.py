"""Issue 14 item 5: text pasted while an answer streams is held as ONE message for the next
prompt (not sent line by line as separate questions) — in a real pty, against a loopback chat
server whose answer waits on a gate the test opens."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pexpect
import pyte
import pytest

from forge_cli.testing.fake_chat_server import chunk
from helpers.loopback import LoopbackServer, Reply, WaitFor, sse, sse_done  # type: ignore[import-not-found]
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

READY = "\x1b[?2004h"  # prompt-toolkit has the terminal: the line editor is reading


def _answer(*parts: str | WaitFor) -> Reply:
    steps = [sse(chunk({"role": "assistant", "content": ""}))]
    for part in parts:
        steps.append(part if isinstance(part, WaitFor) else sse(chunk({"content": part})))
    steps += [sse(chunk({}, finish_reason="stop")), sse_done()]
    return Reply.sse(steps)


class _Term:
    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.screen = pyte.Screen(100, 40)
        self.stream = pyte.ByteStream(self.screen)
        self.seen = ""

    def until(self, needle: str, *, count: int = 1, after: str = "") -> None:
        """Read until ``needle`` was printed ``count`` times (after the first ``after``)."""
        deadline = time.monotonic() + 20
        while (start := self.seen.find(after)) < 0 or self.seen.count(needle, start) < count:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{needle!r} never appeared:\n" + "\n".join(self.screen.display)
                )
            try:
                data = self.child.read_nonblocking(65536, timeout=1.0)
            except pexpect.TIMEOUT:
                continue
            self.stream.feed(data)
            self.seen += data.decode("utf-8", "replace")


@contextmanager
def _chat(tmp_path: Path, *replies: Reply) -> Iterator[tuple[LoopbackServer, pexpect.spawn, _Term]]:
    """``forge chat`` in a 100x40 pty against a loopback chat server holding ``replies``."""
    env = {
        **os.environ,
        "TERM": "xterm",
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
    }
    with LoopbackServer() as server:
        server.add(*replies)
        args = ["-m", "forge_cli.cli", "chat", "--api", "chat", "--base-url", server.base_url,
                "-m", "m"]  # fmt: skip
        child = TerminalSpawn(sys.executable, args, env=env, dimensions=(40, 100))
        try:
            yield server, child, _Term(child)
        finally:
            child.close(force=True)


def test_a_paste_during_streaming_becomes_one_message(tmp_path: Path) -> None:
    gate = threading.Event()
    replies = _answer("Working", WaitFor(gate), " done."), _answer("Got both lines.")
    with _chat(tmp_path, *replies) as (server, child, term):
        term.until(READY)
        child.send("first question\r")
        term.until("Working")
        child.send("line one\rline two\r")  # pasted while the answer streams
        gate.set()
        term.until(READY, count=2)  # the next prompt, with the pasted text in it
        child.send("\r")
        term.until("Got both lines.")
        term.until(READY, count=3)
        child.send("/exit\r")
        child.expect(pexpect.EOF, timeout=15)
        bodies = [request.json() for request in server.requests]
    assert len(bodies) == 2  # not one request per pasted line
    assert bodies[1]["messages"][-1] == {"role": "user", "content": "line one\nline two"}


def test_one_line_typed_ahead_is_sent_as_the_next_message(tmp_path: Path) -> None:
    gate = threading.Event()
    replies = _answer("Working", WaitFor(gate), " done."), _answer("Second answer.")
    with _chat(tmp_path, *replies) as (server, child, term):
        term.until(READY)
        child.send("first question\r")
        term.until("Working")
        child.send("next question\r")  # typed ahead and entered while the answer streams
        gate.set()
        term.until("Second answer.")  # sent as it was entered, without another Enter
        term.until(READY, after="Second answer.")
        child.send("/exit\r")
        child.expect(pexpect.EOF, timeout=15)
        bodies = [request.json() for request in server.requests]
    assert [b["messages"][-1]["content"] for b in bodies] == ["first question", "next question"]
