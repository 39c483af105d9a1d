"""Real-terminal tests: ``forge chat`` in a pseudo-terminal, the screen read back with pyte.

Nothing here sleeps: every wait reads the terminal until the screen shows what is expected
(with a deadline so a broken build fails instead of hanging).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte
import pytest

from cli.conftest import ANSWER_SCRIPT  # type: ignore[import-not-found]
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]
from helpers.testhook import FORGE_COMMAND  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

COLS, ROWS = 100, 40


class Terminal:
    """A child process on a pty plus a pyte screen fed with everything it prints."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.child = TerminalSpawn(
            FORGE_COMMAND[0], [*FORGE_COMMAND[1:], *args], env=env, dimensions=(ROWS, COLS)
        )
        self.transcript = ""

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, needle: str, timeout: float = 15.0) -> str:
        """Read until ``needle`` is on the screen or was printed at some point."""

        def found() -> bool:
            return needle in self.text() or needle in self.transcript

        return self._read_until(found, f"{needle!r}", timeout)

    def wait_for_screen(self, needle: str, timeout: float = 15.0) -> str:
        """Read until ``needle`` is *on the screen now* (what the user sees, not the transcript)."""
        return self._read_until(lambda: needle in self.text(), f"{needle!r}", timeout)

    def wait_for_prompt(self, since: int, timeout: float = 15.0) -> str:
        """Read until the line editor started again after transcript position ``since``.

        prompt-toolkit switches the terminal to raw mode before it enables bracketed paste;
        a control key sent earlier (Ctrl+D) would be eaten by the cooked-mode line discipline.
        """
        ready = "\x1b[?2004h"
        return self._read_until(lambda: ready in self.transcript[since:], "the prompt", timeout)

    def _read_until(self, done: Callable[[], bool], what: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while not done():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{what} never appeared; screen:\n{self.text()}")
            try:
                data = self.child.read_nonblocking(65536, timeout=min(remaining, 1.0))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                raise AssertionError(f"forge exited before {what}:\n{self.text()}") from None
            self.stream.feed(data)
            self.transcript += data.decode("utf-8", "replace")
        return self.text()

    def line(self, text: str) -> None:
        self.child.send(text + "\r")

    def finish(self) -> int:
        self.child.expect(pexpect.EOF, timeout=15)
        self.stream.feed(self.child.before or b"")
        self.child.close()
        return int(self.child.exitstatus if self.child.exitstatus is not None else -1)


@pytest.fixture
def term_env(tmp_path: Path) -> Callable[[list[list[dict[str, object]]]], dict[str, str]]:
    def make(scripts: list[list[dict[str, object]]]) -> dict[str, str]:
        script = tmp_path / f"script{len(list(tmp_path.glob('script*')))}.json"
        script.write_text(json.dumps({"scripts": scripts}))
        return {
            **os.environ,
            "TERM": "xterm",
            "FORGE_DATA_DIR": str(tmp_path / "data"),
            "FORGE_CONFIG": str(tmp_path / "config.toml"),
            "FORGE_TEST_BACKEND": str(script),
            "EDITOR": "true",
        }

    return make


def test_chat_help_tools_and_a_cited_answer(term_env: Callable[..., dict[str, str]]) -> None:
    term = Terminal(["chat"], term_env([ANSWER_SCRIPT]))
    term.wait_for("forge>")
    term.wait_for("file-search (default)")  # the bottom toolbar: what the engine will search

    term.line("/help")
    term.wait_for("/export md|json PATH")

    term.line("/tool on web-search")
    term.wait_for("web-search on.")
    term.wait_for("web-search │")  # the toolbar follows the conversation state

    term.line("how do I install forge?")
    screen = term.wait_for("[1] install.md")
    assert "File search" in screen
    assert '"install forge"' in screen
    assert "Run pip install forge[1]." in screen  # rich mode: the citation marker in the text
    term.line("/exit")
    assert term.finish() == 0


def _stall_after(*pieces: str) -> list[dict[str, object]]:
    """A script that streams ``pieces`` back to back, then stalls until the turn is cancelled.

    The pieces arrive within one throttle window, so the rich renderer draws the later ones
    only on a tick: the rest of the answer is gated on Ctrl+C, which never comes on its own.
    """
    deltas = [{**ANSWER_SCRIPT[5], "output_index": 0, "delta": piece} for piece in pieces]
    opening = [ANSWER_SCRIPT[0], *({**ANSWER_SCRIPT[i], "output_index": 0} for i in (3, 4))]
    return [*opening, *deltas, {"type": "forge.test.hang"}]


def test_ctrl_c_mid_answer_then_save_and_resume(term_env: Callable[..., dict[str, str]]) -> None:
    # Rich mode: the stream stalls right after snapshots that came inside the redraw throttle;
    # the renderer's tick must still put the partial answer on screen before Ctrl+C.
    term = Terminal(["chat"], term_env([ANSWER_SCRIPT, _stall_after("Partial", " answ")]))
    term.wait_for("forge>")
    term.line("how do I install forge?")
    term.wait_for("[1] install.md")

    term.line("tell me everything")
    screen = term.wait_for_screen("Partial answ")
    assert "interrupted" not in screen  # on screen while the answer is still streaming
    term.child.sendcontrol("c")
    screen = term.wait_for_screen("■ interrupted")
    assert screen.count("Partial answ") == 1  # kept once; the live copy is cleared, not left
    term.line("/status")  # the REPL survived
    term.wait_for("turns         2")

    mark = len(term.transcript)
    term.line("/save install notes")
    saved = term.wait_for("Saved c")
    conv_id = saved.split("Saved ", 1)[1].split()[0]

    term.wait_for_prompt(since=mark)  # Ctrl+C must reach the line editor, not the command
    term.child.sendcontrol("c")  # at an empty prompt: a hint, not an exit
    term.wait_for("press Ctrl+D")
    term.line("/exit")
    assert term.finish() == 0

    again = Terminal(["chat", "--resume", conv_id], term_env([]))
    again.wait_for(f"{conv_id}, 2 turns")
    mark = len(again.transcript)
    again.line("/history")
    screen = again.wait_for("Partial answ [interrupted]")
    assert "Run pip install forge." in screen
    again.wait_for_prompt(since=mark)
    again.child.sendeof()
    assert again.finish() == 0
