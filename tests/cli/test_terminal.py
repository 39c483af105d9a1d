"""Real-terminal tests: ``forge chat`` in a pseudo-terminal, the screen read back with pyte.

Nothing here sleeps: every wait reads the terminal until the screen shows what is expected
(with a deadline so a broken build fails instead of hanging).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte
import pytest

from cli.conftest import ANSWER_SCRIPT, partial_then_hang  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

COLS, ROWS = 100, 40


class AnsweringScreen(pyte.Screen):  # type: ignore[misc]
    """A pyte screen that answers the terminal queries it receives (cursor position reports)."""

    child: pexpect.spawn | None = None

    def write_process_input(self, data: str) -> None:
        if self.child is not None:
            self.child.send(data)


class Terminal:
    """A child process on a pty plus a pyte screen fed with everything it prints."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.screen = AnsweringScreen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.child = pexpect.spawn(
            sys.executable, ["-m", "forge_cli.cli", *args], env=env, dimensions=(ROWS, COLS)
        )
        self.screen.child = self.child
        self.transcript = ""

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, needle: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while needle not in self.text() and needle not in self.transcript:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{needle!r} never appeared; screen:\n{self.text()}")
            try:
                data = self.child.read_nonblocking(65536, timeout=min(remaining, 1.0))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                raise AssertionError(f"forge exited before {needle!r}:\n{self.text()}") from None
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
    term.wait_for("no tools")  # the bottom toolbar

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


def test_ctrl_c_mid_answer_then_save_and_resume(term_env: Callable[..., dict[str, str]]) -> None:
    # Plain mode (NO_COLOR): the partial text is on screen as it streams, so the test can press
    # Ctrl+C exactly in the middle of the answer.
    env = {**term_env([ANSWER_SCRIPT, partial_then_hang("Partial answ")]), "NO_COLOR": "1"}
    term = Terminal(["chat"], env)
    term.wait_for("forge>")
    term.line("how do I install forge?")
    term.wait_for("[1] install.md")

    term.line("tell me everything")
    term.wait_for("Partial answ")
    term.child.sendcontrol("c")
    term.wait_for("interrupted")
    term.line("/status")  # the REPL survived
    term.wait_for("turns         2")

    term.line("/save install notes")
    saved = term.wait_for("Saved c")
    conv_id = saved.split("Saved ", 1)[1].split()[0]

    term.child.sendcontrol("c")  # at an empty prompt: a hint, not an exit
    term.wait_for("press Ctrl+D")
    term.line("/exit")
    assert term.finish() == 0

    again = Terminal(["chat", "--resume", conv_id], {**term_env([]), "NO_COLOR": "1"})
    again.wait_for(f"{conv_id}, 2 turns")
    again.line("/history")
    screen = again.wait_for("Partial answ [interrupted]")
    assert "Run pip install forge." in screen
    again.child.sendeof()
    assert again.finish() == 0
