"""Issue 14 item 2: the approval question is fully visible while it waits, and what the user
types lands after it — asserted on the rendered screen (pyte) of `forge ask` in a real pty, with
the live status region running (a rich terminal view, colours on)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
import pyte
import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

TOOLS = '''
from forge_cli.tools import tool


@tool
def lookup_order(order_id: int) -> str:
    """Look up an order."""
    return f"order {order_id}: shipped"
'''

PROMPT = "Allow? [y]es, [N]o, [a]lways for lookup_order: "


def _lines(screen: pyte.HistoryScreen) -> list[str]:
    return [line.rstrip() for line in screen.display if line.strip()]


def _flat(screen: pyte.HistoryScreen) -> str:
    """The screen as one string, rows joined as the terminal wrapped them (rows are padded)."""
    return " ".join("".join(screen.display).split())


def _ask(tmp_path: Path, server: FakeChatServer, columns: int) -> pexpect.spawn:
    """``forge ask`` (colours on) against ``server``, which calls lookup_order and then answers."""
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "TERM": "xterm-256color",
    }
    env.pop("NO_COLOR", None)
    server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
    server.add(text_chunks("Order 4711 has shipped."))
    args = [
        "-m", "forge_cli.cli", "ask", "--api", "chat", "--base-url", server.base_url,
        "--model", "m", "--functions", str(tools), "Where is order 4711?",
    ]  # fmt: skip
    return TerminalSpawn(
        sys.executable, args, env=env, encoding="utf-8", timeout=30, dimensions=(30, columns)
    )


@pytest.mark.parametrize("columns", [40, 100])
def test_the_question_stays_on_screen_and_the_answer_lands_after_it(
    tmp_path: Path, columns: int
) -> None:
    screen = pyte.HistoryScreen(columns, 30, history=500)
    stream = pyte.Stream(screen)
    with FakeChatServer() as server:
        child = _ask(tmp_path, server, columns)
        try:
            child.expect_exact("lookup_order: ")  # the question's end (it may wrap)
            stream.feed(child.before + child.after)
            # The live region redraws 15 times a second while a call runs: watch the terminal
            # for several of its ticks. Nothing may be drawn over the waiting question.
            child.expect(pexpect.TIMEOUT, timeout=0.5)
            stream.feed(child.before or "")
            waiting = _flat(screen)
            child.sendline("y")
            child.expect(pexpect.EOF)
            stream.feed(child.before or "")
        finally:
            child.close(force=True)
        server.assert_consumed()
    assert child.exitstatus == 0
    # The question is the last thing on the screen, whole (wrapped at 40 columns).
    assert waiting.endswith(PROMPT.rstrip())
    assert "Tool call: lookup_order" in waiting
    final = _flat(screen)
    assert PROMPT + "y" in final
    after = final.split(PROMPT + "y", 1)[1]
    assert "completed" in after
    assert "Order 4711 has shipped." in after
    assert "Tool call: lookup_order" in _lines(screen)


def test_the_question_breaks_between_words_at_40_columns(tmp_path: Path) -> None:
    """At 40 columns the terminal cut the question mid-word (``… [a]lways for lookup_`` /
    ``order:``): it now breaks between words, so the tool's name reads whole."""
    screen = pyte.HistoryScreen(40, 30, history=500)
    stream = pyte.Stream(screen)
    with FakeChatServer() as server:
        child = _ask(tmp_path, server, 40)
        try:
            child.expect_exact("lookup_order: ")
            stream.feed(child.before + child.after)
            child.sendline("y")
            child.expect(pexpect.EOF)
            stream.feed(child.before or "")
        finally:
            child.close(force=True)
        server.assert_consumed()
    rows = _lines(screen)
    assert "Allow? [y]es, [N]o, [a]lways for" in rows, "\n".join(rows)
    assert "lookup_order: y" in rows, "\n".join(rows)
