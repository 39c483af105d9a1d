"""Ctrl+C at a tool-approval question in `forge chat`: the answer is cancelled, and the chat goes
on. The question's reader was a thread blocked on standard input: cancelled, it kept reading and
took the keys typed at the next prompt (which sends Enter as a carriage return, so its line never
ended): the chat no longer answered anything. Asserted in a real pty, on the screen (pyte)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
import pyte
import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, tool_call_chunks
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

pytestmark = pytest.mark.pty

TOOLS = '''
def lookup_order(order_id: int) -> str:
    """Look up an order."""
    return f"order {order_id}: shipped"
'''


def _chat(tmp_path: Path, server: FakeChatServer, columns: int) -> pexpect.spawn:
    tools = tmp_path / "tools.py"
    tools.write_text(TOOLS)
    env = {
        **os.environ,
        "FORGE_DATA_DIR": str(tmp_path / "data"),
        "FORGE_CONFIG": str(tmp_path / "config.toml"),
        "HOME": str(tmp_path),
        "TERM": "xterm-256color",
    }
    args = ["-m", "forge_cli.cli", "chat", "--api", "chat", "--base-url", server.base_url,
            "--model", "m", "--functions", str(tools)]  # fmt: skip
    return TerminalSpawn(
        sys.executable, args, env=env, encoding="utf-8", timeout=30, dimensions=(30, columns)
    )


@pytest.mark.parametrize("columns", [40, 100])
def test_ctrl_c_at_the_approval_question_leaves_the_chat_usable(
    tmp_path: Path, columns: int
) -> None:
    screen = pyte.HistoryScreen(columns, 30, history=500)
    stream = pyte.Stream(screen)
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        child = _chat(tmp_path, server, columns)
        try:
            child.expect_exact("forge>")
            child.send("Where is order 4711?\r")
            child.expect_exact("lookup_order: ")  # the question's end (it may wrap)
            child.sendintr()
            child.expect_exact("interrupted")
            child.expect_exact("forge>")
            child.send("/status\r")
            child.expect_exact("tokens used")  # the next command was read and answered
            stream.feed(child.before + child.after)
            child.expect_exact("forge>")
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        server.assert_consumed()


def _interrupted_at_the_question(tmp_path: Path) -> list[str]:
    """The screen rows (40 columns) after Ctrl+C at the approval question, back at the prompt."""
    screen = pyte.HistoryScreen(40, 30, history=500)
    stream = pyte.Stream(screen)
    with FakeChatServer() as server:
        server.add(tool_call_chunks([("lookup_order", {"order_id": 4711})]))
        child = _chat(tmp_path, server, 40)
        try:
            child.expect_exact("forge>")
            stream.feed(child.before + child.after)
            child.send("Where is order 4711?\r")
            child.expect_exact("lookup_order: ")  # the question's end (it may wrap)
            stream.feed(child.before + child.after)
            child.sendintr()
            child.expect_exact("interrupted")
            stream.feed(child.before + child.after)
            child.expect_exact("forge>")
            stream.feed(child.before + child.after)
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    return [line.rstrip() for line in screen.display]


def test_what_follows_a_cancelled_question_starts_on_its_own_line(tmp_path: Path) -> None:
    """After Ctrl+C at the question the cursor stayed after the echoed ``^C``: the call's status
    line was drawn from there and wrapped mid-word at 40 columns."""
    rows = _interrupted_at_the_question(tmp_path)
    [asked] = [i for i, row in enumerate(rows) if "[a]lways for" in row]
    # The question (and the echoed ^C) end their row; the next row starts something new.
    after = [row for row in rows[asked:] if row][:4]
    assert any(row.startswith(("order:", "Allow?")) for row in after[:2])
    assert not any("^C" in row and not row.endswith("^C") for row in after), after


def test_tools_names_the_functions_files(tmp_path: Path) -> None:
    """With ``--functions FILE`` /tools listed only the built-in tools, while the model could
    call the file's functions (the toolbar: tests/repl/test_session.py)."""
    screen = pyte.Screen(200, 30)  # the temporary path fits one row
    stream = pyte.Stream(screen)
    with FakeChatServer() as server:
        child = _chat(tmp_path, server, 200)
        try:
            child.expect_exact("forge>")
            stream.feed(child.before + child.after)
            child.send("/tools\r")
            child.expect_exact("code-interpreter")
            stream.feed(child.before + child.after)
            child.expect_exact("forge>")
            stream.feed(child.before + child.after)
            child.send("/exit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
    rows = [line.rstrip() for line in screen.display]
    assert f"  [x] functions of {tmp_path / 'tools.py'}" in rows, "\n".join(rows)


def test_a_call_cut_short_at_its_question_is_not_left_in_progress(tmp_path: Path) -> None:
    """Ctrl+C at the question cancels the call before it ran: the screen showed it as
    ``● Function · in progress`` under ``■ interrupted`` for good (and the saved turn kept
    ``in_progress``). It now reads ``incomplete``, on screen and in the saved conversation."""
    rows = _interrupted_at_the_question(tmp_path)
    calls = [row for row in rows if row.lstrip().startswith(("●", "✓", "✗", "!", "■", "⊘"))]
    assert not any("in progress" in row for row in rows), "\n".join(rows)
    assert any("Function" in row and "incomplete" in row for row in calls), "\n".join(rows)
    [saved] = (tmp_path / "data" / "conversations").glob("*.json")
    assert '"in_progress"' not in saved.read_text()
