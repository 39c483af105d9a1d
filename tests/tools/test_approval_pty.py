"""Approval in a real pseudo-terminal: the prompt shows the call, ``n`` denies, ``y`` allows."""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect
import pyte
import pytest

from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]

SCRIPT = Path(__file__).with_name("approval_script.py")

pytestmark = pytest.mark.pty


def _spawn() -> pexpect.spawn:
    return TerminalSpawn(
        sys.executable, [str(SCRIPT)], encoding="utf-8", timeout=20, dimensions=(24, 80)
    )


def _screen(text: str) -> str:
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    stream.feed(text.replace("\n", "\r\n") if "\r\n" not in text else text)
    return "\n".join(line.rstrip() for line in screen.display)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("n", "RESULT: blocked: The user denied the call to 'delete_file'."),
        ("y", "RESULT: completed: deleted /tmp/x"),
    ],
)
def test_ask_prompts_and_the_answer_decides(answer: str, expected: str) -> None:
    child = _spawn()
    try:
        child.expect_exact("Allow? [y]es, [N]o, [a]lways for delete_file: ")
        prompt = child.before + child.after
        child.sendline(answer)
        child.expect_exact("RESULT: ")
        child.expect(pexpect.EOF)
        result = "RESULT: " + child.before
    finally:
        child.close(force=True)
    screen = _screen(prompt)
    assert "Tool call: delete_file" in screen
    assert '"path": "/tmp/x\\u001b[2J.txt"' in screen  # the escape is shown, not obeyed
    assert "\x1b" not in prompt
    assert result.strip().startswith(expected)


def test_end_of_input_at_the_prompt_denies() -> None:
    child = _spawn()
    try:
        child.expect_exact("Allow? [y]es, [N]o, [a]lways for delete_file: ")
        child.sendeof()
        child.expect_exact("RESULT: ")
        child.expect(pexpect.EOF)
        result = "RESULT: " + child.before
    finally:
        child.close(force=True)
    assert result.strip().startswith("RESULT: blocked: The user denied the call to 'delete_file'.")
