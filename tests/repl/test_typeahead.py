"""What was typed between prompts, read from a real pseudo-terminal: lines become the next
message, and a Ctrl+D on an empty line ends the chat however the terminal delivered it."""

from __future__ import annotations

import os
import select
import termios
import tty
from collections.abc import Iterator

import pytest

from forge_cli.repl.prompt import typeahead


class _Stream:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, int]]:
    master, slave = os.openpty()
    try:
        yield master, slave
    finally:
        os.close(master)
        os.close(slave)


def _readable(fd: int) -> None:
    assert select.select([fd], [], [], 10)[0], "the terminal never delivered the input"


def test_lines_typed_ahead_are_returned(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    os.write(master, b"first line\n")
    _readable(slave)
    assert typeahead(_Stream(slave)) == "first line\n"


def test_ctrl_d_in_cooked_mode_is_end_of_input(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    os.write(master, b"\x04")  # the line discipline turns it into end of input
    _readable(slave)
    with pytest.raises(EOFError):
        typeahead(_Stream(slave))


def test_ctrl_d_left_raw_by_the_prompt_is_end_of_input(pty_pair: tuple[int, int]) -> None:
    """Pressed right after Enter, while the prompt still had the terminal in raw mode: the byte
    stays in the input as a literal ^D once the terminal is back in cooked mode."""
    master, slave = pty_pair
    cooked = termios.tcgetattr(slave)
    tty.setraw(slave)
    os.write(master, b"\x04")
    _readable(slave)
    termios.tcsetattr(slave, termios.TCSANOW, cooked)
    _readable(slave)
    with pytest.raises(EOFError):
        typeahead(_Stream(slave))


def test_nothing_typed_is_empty(pty_pair: tuple[int, int]) -> None:
    _, slave = pty_pair
    assert typeahead(_Stream(slave)) == ""
