"""The live rich view in a pseudo-terminal: an echoed key never reaches the terminal's bytes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte
import pytest

from helpers import hostile
from helpers.loopback import LoopbackServer, ReplySource
from helpers.terminal import TerminalSpawn  # type: ignore[import-not-found]
from hostile.conftest import KEY, ask_args

CASES: dict[str, tuple[Callable[[str], ReplySource], int, str]] = {
    "error body": (hostile.echo_key_error_body, 1, "HTTP 400"),
    "in-stream error": (hostile.echo_key_in_stream, 1, "upstream refused Bearer ***"),
    "answer text": (hostile.echo_key_in_answer, 0, "You sent Bearer ***, key ***."),
}


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("case", list(CASES))
def test_rich_view_never_shows_the_key(case: str, api: str, tmp_path: Path) -> None:
    fault, code, shown = CASES[case]
    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("FORGE_", "OPENAI_", "XDG_", "NO_COLOR"))
    }
    env.update(HOME=str(home), HOSTILE_KEY=KEY, TERM="xterm-256color", COLUMNS="100", LINES="40")
    screen = pyte.Screen(100, 40)
    stream = pyte.ByteStream(screen)
    raw: list[bytes] = []
    with LoopbackServer() as server:
        server.add(fault(api))
        args = ask_args(api, server.base_url, "--ascii")
        child = TerminalSpawn(
            sys.executable,
            ["-m", "forge_cli.cli", *args],
            env=env,
            dimensions=(40, 100),
            timeout=30,
        )
        while True:
            try:
                data = child.read_nonblocking(65536, timeout=30)
            except pexpect.EOF:
                break
            raw.append(data)
            stream.feed(data)
        child.close()
    text = "\n".join(line.rstrip() for line in screen.display)
    assert child.exitstatus == code, text
    assert KEY.encode() not in b"".join(raw)
    assert " ".join(shown.split()) in " ".join(text.split())
