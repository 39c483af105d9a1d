"""Hostile or clumsy tools cannot take Forge over (issue 12): `forge ask` runs a user function
that prints escape sequences, exits, raises KeyboardInterrupt, hangs past its timeout or returns a
huge result -- and still answers, with honest exit codes and a clean `--json` document."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from forge_cli.testing.fake_chat_server import FakeChatServer, text_chunks, tool_call_chunks

TOOLS = '''
import sys
import threading

from forge_cli.tools import tool


@tool
def noisy() -> str:
    """Prints to stdout and stderr."""
    print("\\x1b]0;pwned\\x07\\x1b[31mRED\\x1b[0m from the tool")
    sys.stderr.write("warning from the tool\\n")
    return "noisy result"


@tool
async def noisy_async() -> str:
    """Prints from a coroutine."""
    print("\\x1b[2Jasync print")
    return "async result"


@tool
def quitter() -> str:
    """Calls sys.exit(7)."""
    sys.exit(7)


@tool
async def quitter_async() -> str:
    """Calls sys.exit(7) in a coroutine."""
    sys.exit(7)


@tool
def interrupter() -> str:
    """Raises KeyboardInterrupt."""
    raise KeyboardInterrupt


@tool(timeout=0.5)
def hangs() -> str:
    """Never returns."""
    threading.Event().wait()
    return "never"


@tool
def raw_fd() -> str:
    """Writes to file descriptor 1 directly and from a child process."""
    import os
    import subprocess

    os.write(1, b"\\x1b[31mraw fd write\\n")
    subprocess.run([sys.executable, "-c", "print('child says hi')"], check=True)
    return "raw result"


@tool
def huge() -> str:
    """A very long result."""
    return "x" * 300_000
'''

Forge = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "tools.py"
    path.write_text(TOOLS)
    return path


def _ask(
    forge: Forge,
    server: FakeChatServer,
    tools_file: Path,
    tool_name: str,
    *extra: str,
    **kw: object,
) -> subprocess.CompletedProcess[str]:
    server.add(tool_call_chunks([(tool_name, {})]))
    server.add(text_chunks("All done."))
    args = ["ask", "--api", "chat", "--base-url", server.base_url, "--model", "m"]
    args += ["--functions", str(tools_file), "--yes", *extra, "Go"]
    return forge(*args, **kw)


def _tool_message(server: FakeChatServer) -> str:
    message = server.requests[1]["messages"][-1]
    assert message["role"] == "tool"
    return str(message["content"])


@pytest.mark.parametrize("name", ["noisy", "noisy_async"])
def test_tool_prints_never_break_the_json_document(
    forge: Forge, tools_file: Path, name: str
) -> None:
    with FakeChatServer() as server:
        proc = _ask(forge, server, tools_file, name, "--json")
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    document = json.loads(proc.stdout)  # stdout is exactly one JSON document
    assert document["text"] == "All done."
    assert "\x1b" not in proc.stdout + proc.stderr
    assert "print" in proc.stderr  # shown, sanitised, on stderr
    assert "result" in _tool_message(server)
    assert "print" not in _tool_message(server)


def test_tool_prints_are_shown_sanitised_in_plain_mode(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        proc = _ask(forge, server, tools_file, "noisy", "--plain")
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout + proc.stderr
    assert "\x07" not in proc.stdout + proc.stderr
    assert "RED" in proc.stderr
    assert "warning from the tool" in proc.stderr
    assert "from the tool" not in proc.stdout
    assert "All done." in proc.stdout


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("quitter", "sys.exit(7)"),
        ("quitter_async", "sys.exit(7)"),
        ("interrupter", "KeyboardInterrupt"),
    ],
)
def test_exits_and_interrupts_in_a_tool_are_error_results(
    forge: Forge, tools_file: Path, name: str, said: str
) -> None:
    with FakeChatServer() as server:
        proc = _ask(forge, server, tools_file, name, "--plain")
        server.assert_consumed()
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert said in _tool_message(server)
    assert "All done." in proc.stdout


def test_a_hung_sync_tool_does_not_hold_the_process(forge: Forge, tools_file: Path) -> None:
    """The tool never returns; forge must still exit (the subprocess timeout is 30 s)."""
    with FakeChatServer() as server:
        proc = _ask(forge, server, tools_file, "hangs", "--plain")
    assert proc.returncode == 0, proc.stderr
    assert "timed out" in _tool_message(server)
    assert "All done." in proc.stdout


def test_a_huge_result_is_cut_with_a_note(forge: Forge, tools_file: Path) -> None:
    with FakeChatServer() as server:
        proc = _ask(
            forge,
            server,
            tools_file,
            "huge",
            "--plain",
            env={"FORGE_TOOLS_MAX_RESULT_CHARS": "1000"},
        )
    assert proc.returncode == 0, proc.stderr
    sent = _tool_message(server)
    assert sent.startswith("x" * 1000)
    assert "x" * 1001 not in sent
    assert "cut this tool result from 300000 to 1000 characters" in sent
    assert "tools.max_result_chars" in sent


@pytest.mark.parametrize("mode", ["--json", "--jsonl", "--plain"])
def test_writes_to_fd_1_stay_out_of_stdout(forge: Forge, tools_file: Path, mode: str) -> None:
    with FakeChatServer() as server:
        proc = _ask(forge, server, tools_file, "raw_fd", mode)
    assert proc.returncode == 0, proc.stderr
    assert "raw fd write" not in proc.stdout
    assert "child says hi" not in proc.stdout
    assert "\x1b" not in proc.stdout + proc.stderr
    assert "raw fd write" in proc.stderr
    assert "child says hi" in proc.stderr
    if mode == "--json":
        assert json.loads(proc.stdout)["text"] == "All done."
    elif mode == "--jsonl":
        assert all(json.loads(line) for line in proc.stdout.splitlines())
    else:
        assert "All done." in proc.stdout
